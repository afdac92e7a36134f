//! The version-neutral core model: tasks, messages, parts, artifacts.
//!
//! Nothing here knows about a wire format; the protocol adapters under `protocol/` translate these
//! types to and from A2A v1.0 ProtoJSON (and, later, other versions) at the edge.

mod event;
mod message;
mod observer;
mod protocol;
mod push;
mod size;
mod task;

#[doc(hidden)]
pub use event::join_artifact;
pub use event::{TaskArtifactUpdate, TaskEvent, TaskStatusUpdate};
pub use message::{Artifact, Message, Part, PartContent, Role};
pub use observer::{ObservedTask, TaskObserver};
pub use protocol::{A2aVersion, Binding, Protocol};
#[doc(hidden)]
pub use push::REDACTED;
pub use push::{PushAuthentication, PushConfig, PushWire};
#[doc(hidden)]
pub use size::ByteSize;
pub use task::{Task, TaskState, TaskStatus, TaskView};

/// A JSON object, as used for metadata and structured data.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// A new random identifier for contexts, messages, artifacts and questions.
#[doc(hidden)]
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A new task id: a UUIDv7 (RFC 9562), time-ordered so that tasks created together sit side by
/// side in a store's index (one page written for a batch of new tasks, not one per task), with
/// 74 random bits.
#[doc(hidden)]
pub fn new_task_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
