//! A task event as a push delivery's body, in the wire version its config was registered in
//! (a2a-spec.md §6): A2A 1.0 POSTs a `StreamResponse` as `application/a2a+json`; 0.3 the task
//! itself, as it is after the event (`kind: "task"`, `application/json`: what the 0.3
//! specification's example and its reference SDK send, and so what 0.3 receivers parse); the
//! early draft its stream events.

use serde_json::Value;

use crate::task::ends_stream;
use a2a_runtime_types::model::{PushWire, Task, TaskEvent};
use a2a_runtime_types::protocol::a2a::{v0_1, v0_3, v1};

/// The media type of A2A 1.0 deliveries.
pub const A2A_JSON: &str = "application/a2a+json";
/// The media type of 0.3 and early-draft deliveries.
const JSON: &str = "application/json";

/// The media type and body of `event`, which `task` is now in, for a config of `wire`.
pub fn render(wire: &PushWire, task: &Task, event: &TaskEvent) -> (&'static str, String) {
    let body = match wire {
        PushWire::V1 => serde_json::to_string(&v1::StreamResponse::from(event)),
        PushWire::V0_3 => serde_json::to_string(&v0_3::task_out(task)),
        PushWire::Draft { task_alias } => serde_json::to_string(&draft(task_alias, task, event)),
    };
    let media_type = match wire {
        PushWire::V1 => A2A_JSON,
        PushWire::V0_3 | PushWire::Draft { .. } => JSON,
    };
    // Serializing the model cannot fail (string keys, no custom serializers that error).
    (media_type, body.unwrap_or_default())
}

/// The early draft's event: `{id, status, final}` or `{id, artifact}` with the artifact's index
/// in the task.
fn draft(alias: &str, task: &Task, event: &TaskEvent) -> Value {
    match event {
        TaskEvent::Status(update) => {
            v0_1::status_event_out(alias, &update.status, ends_stream(update.status.state))
        }
        TaskEvent::Artifact(update) => {
            let index = task
                .artifacts
                .iter()
                .position(|a| a.artifact_id == update.artifact.artifact_id)
                .unwrap_or(task.artifacts.len());
            let chunk = Some((update.append, update.last_chunk));
            v0_1::artifact_event_out(alias, v0_1::artifact_out(&update.artifact, index, chunk))
        }
    }
}
