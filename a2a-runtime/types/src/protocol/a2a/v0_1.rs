//! The early A2A draft (0.1): tasks named by a client-chosen `id`, `sessionId` for the
//! conversation, `type` parts (shared with 0.3, see [`Tag::Type`]), artifacts with an `index`,
//! and stream events `{id, status, final}` / `{id, artifact}` with no leading task.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::v0_3::{Tag, artifact_fields, message_out, status_out_named};
use crate::model::{Artifact, Task, TaskState, TaskStatus};

/// A state's draft name. The draft had no `rejected` (it failed) nor `auth-required` (it asked
/// for credentials through `input-required`).
pub fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired | TaskState::AuthRequired => "input-required",
        TaskState::Completed => "completed",
        TaskState::Failed | TaskState::Rejected => "failed",
        TaskState::Canceled => "canceled",
    }
}

fn status_out(status: &TaskStatus) -> Value {
    status_out_named(status, Tag::Type, state_name)
}

/// An artifact at position `index`, with the chunk flags of a stream event.
pub fn artifact_out(artifact: &Artifact, index: usize, chunk: Option<(bool, bool)>) -> Value {
    let mut out = artifact_fields(artifact, Tag::Type);
    out.insert("index".into(), json!(index));
    if let Some((append, last_chunk)) = chunk {
        out.insert("append".into(), json!(append));
        out.insert("lastChunk".into(), json!(last_chunk));
    }
    Value::Object(out)
}

/// A `Task` under the id its client chose; `sessionId` is the context.
pub fn task_out(task: &Task, id: &str) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(id));
    out.insert("sessionId".into(), json!(task.context_id));
    out.insert("status".into(), status_out(&task.status));
    if !task.artifacts.is_empty() {
        let artifacts = task
            .artifacts
            .iter()
            .enumerate()
            .map(|(i, a)| artifact_out(a, i, None))
            .collect();
        out.insert("artifacts".into(), artifacts);
    }
    if !task.history.is_empty() {
        let history = task
            .history
            .iter()
            .map(|m| message_out(m, Tag::Type))
            .collect();
        out.insert("history".into(), history);
    }
    out.insert(
        "metadata".into(),
        Value::Object(task.metadata.clone().unwrap_or_default()),
    );
    Value::Object(out)
}

/// `TaskStatusUpdateEvent`.
pub fn status_event_out(id: &str, status: &TaskStatus, last: bool) -> Value {
    json!({ "id": id, "status": status_out(status), "final": last })
}

/// `TaskArtifactUpdateEvent`.
pub fn artifact_event_out(id: &str, artifact: Value) -> Value {
    json!({ "id": id, "artifact": artifact })
}

/// `TaskSendParams`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSendParams {
    pub id: String,
    pub session_id: Option<String>,
    pub message: Value,
    pub history_length: Option<i64>,
    pub push_notification: Option<Value>,
}

/// `TaskQueryParams` and `TaskIdParams` kept their shape from the draft to 0.3.
pub use super::v0_3::{TaskIdParams, TaskQueryParams};
