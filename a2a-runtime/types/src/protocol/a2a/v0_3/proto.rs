//! The 0.3 proto's ProtoJSON, which its HTTP+JSON routes speak: `Message.content`,
//! `Part{text|file|data}`, `TASK_STATE_CANCELLED`, `ROLE_USER`.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::v1::FieldError;
use super::*;

/// A proto `Part`: `{text}`, `{file: {fileWithBytes|fileWithUri, mimeType, name}}`,
/// `{data: {data}}`.
pub(crate) fn proto_part_out(part: &Part) -> Value {
    render_part(part, None)
}

pub(crate) fn proto_part_in(value: &Value, path: &str) -> Result<Part, FieldError> {
    let object = value
        .as_object()
        .ok_or_else(|| (path.to_owned(), "must be an object".to_owned()))?;
    let mut part = if let Some(text) = object.get("text") {
        Part::text(
            text.as_str()
                .ok_or_else(|| (format!("{path}.text"), "must be a string".to_owned()))?,
        )
    } else if let Some(data) = object.get("data") {
        match data.get("data") {
            Some(inner @ Value::Object(_)) => Part::data(inner.clone()),
            _ => {
                return Err((
                    format!("{path}.data.data"),
                    "is required and must be an object".to_owned(),
                ));
            }
        }
    } else if object.contains_key("file") {
        file_in(object.get("file"), &format!("{path}.file"), &PROTO_FILE)?
    } else {
        return Err((
            path.to_owned(),
            "must hold one of `text`, `file`, `data`".to_owned(),
        ));
    };
    part.metadata = object_in(object.get("metadata"), &format!("{path}.metadata"))?;
    Ok(part)
}

/// Reads a proto `Message` (`content` holds the parts; `ROLE_USER`).
pub fn proto_message_in(value: &Value, path: &str) -> Result<Message, FieldError> {
    let object = object_at(Some(value), path)?;
    let text = |key: &str| text_field(object, key);
    let role = match object.get("role") {
        Some(Value::String(r)) if r == "ROLE_USER" => Role::User,
        Some(Value::String(r)) if r == "ROLE_AGENT" => Role::Agent,
        Some(Value::Number(n)) if n.as_i64() == Some(1) => Role::User,
        Some(Value::Number(n)) if n.as_i64() == Some(2) => Role::Agent,
        _ => {
            return Err((
                format!("{path}.role"),
                "is required and must be \"ROLE_USER\" or \"ROLE_AGENT\"".to_owned(),
            ));
        }
    };
    let parts = match object.get("content").or_else(|| object.get("parts")) {
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(i, p)| proto_part_in(p, &format!("{path}.content[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err((
                format!("{path}.content"),
                "is required and must be a list of parts".to_owned(),
            ));
        }
    };
    Ok(Message {
        message_id: text("messageId")
            .ok_or_else(|| (format!("{path}.messageId"), "is required".to_owned()))?,
        context_id: text("contextId"),
        task_id: text("taskId"),
        role,
        parts,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
        extensions: strings(object.get("extensions"), &format!("{path}.extensions"))?,
        reference_task_ids: Vec::new(),
    })
}

pub fn proto_message_out(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("messageId".into(), json!(message.message_id));
    insert_opt(
        &mut out,
        "contextId",
        message.context_id.as_ref().map(|c| json!(c)),
    );
    insert_opt(
        &mut out,
        "taskId",
        message.task_id.as_ref().map(|t| json!(t)),
    );
    out.insert(
        "role".into(),
        json!(match message.role {
            Role::User => "ROLE_USER",
            Role::Agent => "ROLE_AGENT",
        }),
    );
    out.insert(
        "content".into(),
        message.parts.iter().map(proto_part_out).collect(),
    );
    insert_opt(&mut out, "metadata", metadata(message.metadata.as_ref()));
    if !message.extensions.is_empty() {
        out.insert("extensions".into(), json!(message.extensions));
    }
    Value::Object(out)
}

pub(crate) fn proto_status_out(status: &TaskStatus) -> Value {
    let mut out = Map::new();
    out.insert("state".into(), json!(proto_state_name(status.state)));
    insert_opt(
        &mut out,
        "message",
        status.message.as_ref().map(proto_message_out),
    );
    out.insert("timestamp".into(), json!(timestamp(&status.timestamp)));
    Value::Object(out)
}

pub(crate) fn proto_artifact_out(artifact: &Artifact) -> Value {
    let mut out = Map::new();
    out.insert("artifactId".into(), json!(artifact.artifact_id));
    insert_opt(&mut out, "name", artifact.name.as_ref().map(|n| json!(n)));
    insert_opt(
        &mut out,
        "description",
        artifact.description.as_ref().map(|d| json!(d)),
    );
    out.insert(
        "parts".into(),
        artifact.parts.iter().map(proto_part_out).collect(),
    );
    insert_opt(&mut out, "metadata", metadata(artifact.metadata.as_ref()));
    Value::Object(out)
}

/// A proto `Task`.
pub fn proto_task_out(task: &Task) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(task.id));
    out.insert("contextId".into(), json!(task.context_id));
    out.insert("status".into(), proto_status_out(&task.status));
    if !task.artifacts.is_empty() {
        out.insert(
            "artifacts".into(),
            task.artifacts.iter().map(proto_artifact_out).collect(),
        );
    }
    if !task.history.is_empty() {
        out.insert(
            "history".into(),
            task.history.iter().map(proto_message_out).collect(),
        );
    }
    insert_opt(&mut out, "metadata", metadata(task.metadata.as_ref()));
    Value::Object(out)
}

/// A proto `StreamResponse` for an event; `final` marks the last event of the stream.
pub fn proto_event_out(event: &TaskEvent, last: bool) -> Value {
    match event {
        TaskEvent::Status(update) => {
            let mut out = Map::new();
            out.insert("taskId".into(), json!(update.task_id));
            out.insert("contextId".into(), json!(update.context_id));
            out.insert("status".into(), proto_status_out(&update.status));
            if last {
                out.insert("final".into(), json!(true));
            }
            insert_opt(&mut out, "metadata", metadata(update.metadata.as_ref()));
            json!({ "statusUpdate": out })
        }
        TaskEvent::Artifact(update) => {
            let mut out = Map::new();
            out.insert("taskId".into(), json!(update.task_id));
            out.insert("contextId".into(), json!(update.context_id));
            out.insert("artifact".into(), proto_artifact_out(&update.artifact));
            if update.append {
                out.insert("append".into(), json!(true));
            }
            if update.last_chunk {
                out.insert("lastChunk".into(), json!(true));
            }
            json!({ "artifactUpdate": out })
        }
    }
}

/// The 0.3 proto's `SendMessageRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtoSendMessageRequest {
    #[serde(alias = "request")]
    pub message: Value,
    #[serde(default)]
    pub configuration: Option<ProtoSendMessageConfiguration>,
}

/// The 0.3 proto's `SendMessageConfiguration`: proto3 booleans default to false, so an absent
/// `blocking` does not block.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ProtoSendMessageConfiguration {
    pub history_length: Option<i64>,
    pub push_notification: Option<Value>,
    #[serde(default)]
    pub blocking: bool,
}
