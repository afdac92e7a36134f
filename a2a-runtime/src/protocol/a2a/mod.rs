//! A2A wire formats, one module per protocol version. The early draft shares its part shapes
//! with 0.3 (`v0_3::Tag::Type`).

pub(crate) mod proto_json;
pub(crate) mod push;
pub(crate) mod v0_1;
pub(crate) mod v0_3;
pub(crate) mod v1;

/// A task, message or event a server sent, read into the core model (by a client).
#[cfg(feature = "client")]
#[derive(Debug)]
pub(crate) enum Received {
    Task(Box<crate::model::Task>),
    Message(crate::model::Message),
    Event(crate::model::TaskEvent),
}
