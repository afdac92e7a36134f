//! The shapes the bridge answers in: the seed's (`status.state` in lower case, parts tagged with
//! `kind`), which MCP hosts written against it read. A2A 1.0 is stricter and spells states
//! `TASK_STATE_INPUT_REQUIRED`; the bridge reads every A2A version with the SDK's client and
//! writes this one shape, whatever version the remote agent spoke.

use a2a_runtime::serde_json::{Map, Value, json};
use a2a_runtime::{
    Message, Part, Task, TaskState, model::Artifact, model::PartContent, model::Role,
};

/// A state as the seed names it: `submitted`, `working`, `input_required`, `completed`,
/// `failed`, `canceled` (and `rejected`, `auth_required`, which it does not list).
pub fn state(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input_required",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth_required",
    }
}

fn part(part: &Part) -> Value {
    let mut out = match &part.content {
        PartContent::Text(text) => json!({ "kind": "text", "text": text }),
        PartContent::Data(data) => json!({ "kind": "data", "data": data }),
        PartContent::Url(url) => json!({ "kind": "file", "file": { "uri": url } }),
        PartContent::Raw(bytes) => {
            use a2a_runtime::serde_json::to_value;
            json!({ "kind": "file", "file": { "bytes": to_value(bytes).unwrap_or_default() } })
        }
    };
    if let (Some(file), Some(media_type)) = (out.get_mut("file"), &part.media_type) {
        file["mimeType"] = json!(media_type);
    }
    out
}

fn parts(list: &[Part]) -> Value {
    list.iter().map(part).collect()
}

/// A message: its role and parts.
pub fn message(message: &Message) -> Value {
    let role = match message.role {
        Role::User => "user",
        Role::Agent => "agent",
    };
    json!({ "role": role, "parts": parts(&message.parts) })
}

fn artifact(artifact: &Artifact) -> Value {
    let mut out = Map::new();
    out.insert("artifactId".into(), json!(artifact.artifact_id));
    if let Some(name) = &artifact.name {
        out.insert("name".into(), json!(name));
    }
    out.insert("parts".into(), parts(&artifact.parts));
    Value::Object(out)
}

/// A task: id, conversation, status, and both the `artifacts` (ADK) and `history` (LangGraph)
/// the seed's hosts look for.
pub fn task(task: &Task) -> Value {
    let mut status = json!({ "state": state(task.status.state) });
    if let Some(said) = &task.status.message {
        status["message"] = message(said);
    }
    status["timestamp"] = json!(task.status.timestamp.to_rfc3339());
    json!({
        "id": task.id,
        "contextId": task.context_id,
        "status": status,
        "artifacts": task.artifacts.iter().map(artifact).collect::<Vec<_>>(),
        "history": task.history.iter().map(message).collect::<Vec<_>>(),
    })
}
