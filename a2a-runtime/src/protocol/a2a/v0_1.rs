//! The early A2A draft (0.1): tasks named by a client-chosen `id`, `sessionId` for the
//! conversation, `type` parts (shared with 0.3, see [`Tag::Type`]), artifacts with an `index`,
//! and stream events `{id, status, final}` / `{id, artifact}` with no leading task.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::v0_3::{Tag, message_out, part_out};
use super::v1::timestamp;
use crate::model::{Artifact, Task, TaskState, TaskStatus};

/// A state's draft name. The draft had no `rejected` (it failed) nor `auth-required` (it asked
/// for credentials through `input-required`).
pub(crate) fn state_name(state: TaskState) -> &'static str {
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
    let mut out = Map::new();
    out.insert("state".into(), json!(state_name(status.state)));
    if let Some(message) = &status.message {
        out.insert("message".into(), message_out(message, Tag::Type));
    }
    out.insert("timestamp".into(), json!(timestamp(&status.timestamp)));
    Value::Object(out)
}

/// An artifact at position `index`, with the chunk flags of a stream event.
pub(crate) fn artifact_out(
    artifact: &Artifact,
    index: usize,
    chunk: Option<(bool, bool)>,
) -> Value {
    let mut out = Map::new();
    if let Some(name) = &artifact.name {
        out.insert("name".into(), json!(name));
    }
    if let Some(description) = &artifact.description {
        out.insert("description".into(), json!(description));
    }
    out.insert(
        "parts".into(),
        artifact
            .parts
            .iter()
            .map(|p| part_out(p, Tag::Type))
            .collect(),
    );
    if let Some(metadata) = &artifact.metadata {
        out.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    out.insert("index".into(), json!(index));
    if let Some((append, last_chunk)) = chunk {
        out.insert("append".into(), json!(append));
        out.insert("lastChunk".into(), json!(last_chunk));
    }
    Value::Object(out)
}

/// A `Task` under the id its client chose; `sessionId` is the context.
pub(crate) fn task_out(task: &Task, id: &str) -> Value {
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
pub(crate) fn status_event_out(id: &str, status: &TaskStatus, last: bool) -> Value {
    json!({ "id": id, "status": status_out(status), "final": last })
}

/// `TaskArtifactUpdateEvent`.
pub(crate) fn artifact_event_out(id: &str, artifact: Value) -> Value {
    json!({ "id": id, "artifact": artifact })
}

/// `TaskSendParams`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskSendParams {
    pub(crate) id: String,
    pub(crate) session_id: Option<String>,
    pub(crate) message: Value,
    pub(crate) history_length: Option<i64>,
    pub(crate) push_notification: Option<Value>,
}

/// `TaskQueryParams`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskQueryParams {
    pub(crate) id: String,
    pub(crate) history_length: Option<i64>,
}

/// `TaskIdParams`.
#[derive(Deserialize)]
pub(crate) struct TaskIdParams {
    pub(crate) id: String,
}
