//! The version-neutral model every protocol is read into and written from: tasks, messages,
//! parts, artifacts, the events of a task, push configs.

pub use a2a_runtime_types::model::{
    A2aVersion, Artifact, JsonObject, Message, ObservedTask, Part, PartContent, Protocol,
    PushAuthentication, PushConfig, PushWire, Role, Task, TaskArtifactUpdate, TaskEvent,
    TaskObserver, TaskState, TaskStatus, TaskStatusUpdate,
};
