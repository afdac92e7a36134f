//! A2A wire formats, one module per protocol version. The early draft shares its part shapes
//! with 0.3 (`v0_3::Tag::Type`).

#[cfg(feature = "grpc")]
pub mod grpc;
pub mod proto_json;
pub mod push;
pub mod v0_1;
pub mod v0_3;
pub mod v1;

/// A task, message or event a server sent, read into the core model (by a client).
#[derive(Debug)]
pub enum Received {
    Task(Box<crate::model::Task>),
    Message(crate::model::Message),
    Event(crate::model::TaskEvent),
}
