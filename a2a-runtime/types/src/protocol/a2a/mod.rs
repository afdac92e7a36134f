//! A2A wire formats, one module per protocol version. The early draft shares its part shapes
//! with 0.3 (`v0_3::Tag::Type`).

#[cfg(feature = "grpc")]
pub mod grpc;
pub mod proto_json;
pub mod push;
pub mod v0_1;
pub mod v0_3;
pub mod v1;

/// The card extension that publishes each skill's input and output JSON Schemas, since
/// `AgentSkill` has no schema field: `params.skills.{id}.inputSchema` (and `outputSchema`).
pub const SKILL_SCHEMAS_EXTENSION: &str = "urn:a2a-runtime:extension:skill-schemas:v1";

/// A task, message or event a server sent, read into the core model (by a client).
#[derive(Debug)]
pub enum Received {
    Task(Box<crate::model::Task>),
    Message(crate::model::Message),
    Event(crate::model::TaskEvent),
}
