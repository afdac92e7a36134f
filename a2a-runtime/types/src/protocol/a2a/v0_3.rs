//! A2A 0.3 wire formats, and the early draft's (0.1) part shapes they grew from.
//!
//! 0.3 has two JSON forms: the JSON-RPC schema (`kind` discriminators, lower-case states
//! `completed`/`canceled`, roles `user`/`agent`, bare results) and, for its HTTP+JSON routes, the
//! ProtoJSON of the 0.3 proto (`Message.content`, `Part{text|file|data}`, `TASK_STATE_CANCELLED`,
//! `ROLE_USER`). The draft's parts are the JSON-RPC ones with `type` for `kind`. Legacy traffic
//! is small, so these render to `serde_json::Value` rather than borrowing serializers.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::v1::{FieldError, timestamp};
use crate::model::{
    Artifact, JsonObject, Message, Part, PartContent, Role, Task, TaskEvent, TaskState, TaskStatus,
    new_id,
};

/// The protocol version string of the 0.3 card.
pub const VERSION: &str = "0.3.0";

/// Which JSON-RPC generation a shape is for: the discriminator key differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// 0.3: `kind`.
    Kind,
    /// The early draft: `type`.
    Type,
}

impl Tag {
    fn key(self) -> &'static str {
        match self {
            Self::Kind => "kind",
            Self::Type => "type",
        }
    }
}

/// A state's JSON-RPC name (0.3 and the draft).
pub fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input-required",
        TaskState::AuthRequired => "auth-required",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::Rejected => "rejected",
    }
}

/// A state's name in the 0.3 proto (its HTTP+JSON routes).
pub fn proto_state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Canceled => "TASK_STATE_CANCELLED",
        other => super::v1::state_name(other),
    }
}

/// Reads a state name of either 0.3 form.
pub fn parse_state(name: &str) -> Option<TaskState> {
    if name == "TASK_STATE_CANCELLED" {
        return Some(TaskState::Canceled);
    }
    super::v1::parse_state(name)
        .or_else(|| TaskState::ALL.into_iter().find(|s| state_name(*s) == name))
}

fn insert_opt(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.into(), value);
    }
}

fn metadata(value: Option<&JsonObject>) -> Option<Value> {
    value.map(|m| Value::Object(m.clone()))
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC shapes (0.3 `kind`, draft `type`)

/// A part: `{kind: "text", text}`, `{kind: "file", file: {bytes|uri, mimeType, name}}`,
/// `{kind: "data", data}`.
pub fn part_out(part: &Part, tag: Tag) -> Value {
    render_part(part, Some(tag))
}

/// A part in one of the legacy shapes: the JSON-RPC ones (`tag`: 0.3 `kind`, draft `type`) or,
/// without a tag, the 0.3 proto's ProtoJSON (`{data: {data}}`, `fileWithBytes|fileWithUri`).
/// Both require a data part to hold an object; other JSON values are wrapped in `{value}`.
fn render_part(part: &Part, tag: Option<Tag>) -> Value {
    let (bytes_key, uri_key) = match tag {
        Some(_) => ("bytes", "uri"),
        None => ("fileWithBytes", "fileWithUri"),
    };
    let mut out = Map::new();
    let kind = match &part.content {
        PartContent::Text(text) => {
            out.insert("text".into(), json!(text));
            "text"
        }
        PartContent::Data(data) => {
            let data = match data {
                Value::Object(_) => data.clone(),
                other => json!({ "value": other }),
            };
            let data = if tag.is_some() {
                data
            } else {
                json!({ "data": data })
            };
            out.insert("data".into(), data);
            "data"
        }
        PartContent::Raw(_) | PartContent::Url(_) => {
            let mut file = Map::new();
            match &part.content {
                PartContent::Raw(bytes) => {
                    file.insert(bytes_key.into(), json!(STANDARD.encode(bytes)))
                }
                PartContent::Url(url) => file.insert(uri_key.into(), json!(url)),
                _ => None,
            };
            insert_opt(
                &mut file,
                "mimeType",
                part.media_type.as_ref().map(|m| json!(m)),
            );
            insert_opt(&mut file, "name", part.filename.as_ref().map(|n| json!(n)));
            out.insert("file".into(), Value::Object(file));
            "file"
        }
    };
    if let Some(tag) = tag {
        out.insert(tag.key().into(), json!(kind));
    }
    insert_opt(&mut out, "metadata", metadata(part.metadata.as_ref()));
    Value::Object(out)
}

/// Reads a part of either JSON-RPC generation.
pub fn part_in(value: &Value, tag: Tag, path: &str) -> Result<Part, FieldError> {
    let object = value
        .as_object()
        .ok_or_else(|| (path.to_owned(), "must be an object".to_owned()))?;
    let key = tag.key();
    let kind = object.get(key).and_then(Value::as_str).ok_or_else(|| {
        (
            format!("{path}.{key}"),
            "is required: \"text\", \"file\" or \"data\"".to_owned(),
        )
    })?;
    let part_metadata = object_in(object.get("metadata"), &format!("{path}.metadata"))?;
    let mut part = match kind {
        "text" => match object.get("text") {
            Some(Value::String(text)) => Part::text(text.clone()),
            _ => {
                return Err((
                    format!("{path}.text"),
                    "is required and must be a string".into(),
                ));
            }
        },
        "data" => match object.get("data") {
            Some(data @ Value::Object(_)) => Part::data(data.clone()),
            _ => {
                return Err((
                    format!("{path}.data"),
                    "is required and must be an object".into(),
                ));
            }
        },
        "file" => file_in(object.get("file"), &format!("{path}.file"), &JSONRPC_FILE)?,
        other => {
            return Err((
                format!("{path}.{key}"),
                format!("must be \"text\", \"file\" or \"data\", got \"{other}\""),
            ));
        }
    };
    part.metadata = part_metadata;
    Ok(part)
}

/// The keys of a file part's content: JSON-RPC `{bytes | uri}` (the draft's examples also write
/// `data` for `bytes`), ProtoJSON `{fileWithBytes | fileWithUri}`.
struct FileKeys {
    bytes: &'static [&'static str],
    uri: &'static str,
}

const JSONRPC_FILE: FileKeys = FileKeys {
    bytes: &["bytes", "data"],
    uri: "uri",
};
const PROTO_FILE: FileKeys = FileKeys {
    bytes: &["fileWithBytes"],
    uri: "fileWithUri",
};

/// A file part: its content under `keys`, and `mimeType?`, `name?`.
fn file_in(value: Option<&Value>, path: &str, keys: &FileKeys) -> Result<Part, FieldError> {
    let file = object_at(value, path)?;
    let text = |key: &str| file.get(key).and_then(Value::as_str).map(str::to_owned);
    let bytes = keys
        .bytes
        .iter()
        .find_map(|key| text(key).map(|b| (*key, b)));
    let content = match (bytes, text(keys.uri)) {
        (Some((key, bytes)), None) => PartContent::Raw(
            super::proto_json::decode_bytes(&bytes)
                .map_err(|e| (format!("{path}.{key}"), format!("is not valid base64: {e}")))?,
        ),
        (None, Some(uri)) => PartContent::Url(uri),
        _ => {
            return Err((
                path.to_owned(),
                format!(
                    "must hold exactly one of `{}` (base64) and `{}`",
                    keys.bytes[0], keys.uri
                ),
            ));
        }
    };
    Ok(Part {
        content,
        metadata: None,
        filename: text("name"),
        media_type: text("mimeType"),
    })
}

/// The object at `path`, which must be present.
fn object_at<'a>(
    value: Option<&'a Value>,
    path: &str,
) -> Result<&'a Map<String, Value>, FieldError> {
    value.and_then(Value::as_object).ok_or_else(|| {
        (
            path.to_owned(),
            "is required and must be an object".to_owned(),
        )
    })
}

/// A non-empty string field.
fn text_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The role names of JSON-RPC generations.
fn role_in(value: Option<&Value>, path: &str) -> Result<Role, FieldError> {
    match value.and_then(Value::as_str) {
        Some("user") => Ok(Role::User),
        Some("agent") => Ok(Role::Agent),
        _ => Err((
            format!("{path}.role"),
            "is required and must be \"user\" or \"agent\"".to_owned(),
        )),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Agent => "agent",
    }
}

fn strings(value: Option<&Value>, path: &str) -> Result<Vec<String>, FieldError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| (path.to_owned(), "must be a list of strings".to_owned()))
            })
            .collect(),
        Some(_) => Err((path.to_owned(), "must be a list of strings".to_owned())),
    }
}

fn object_in(value: Option<&Value>, path: &str) -> Result<Option<JsonObject>, FieldError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m.clone())),
        Some(_) => Err((path.to_owned(), "must be an object".to_owned())),
    }
}

/// Reads a JSON-RPC `Message`. The draft has no `messageId` (one is minted), nor `contextId`,
/// `taskId` or `referenceTaskIds` on the message.
pub fn message_in(value: &Value, tag: Tag, path: &str) -> Result<Message, FieldError> {
    let object = object_at(Some(value), path)?;
    let text = |key: &str| text_field(object, key);
    let message_id = match (tag, text("messageId")) {
        (_, Some(id)) => id,
        (Tag::Type, None) => new_id(),
        (Tag::Kind, None) => {
            return Err((format!("{path}.messageId"), "is required".to_owned()));
        }
    };
    let parts = match object.get("parts") {
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(i, p)| part_in(p, tag, &format!("{path}.parts[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err((
                format!("{path}.parts"),
                "is required and must be a list".to_owned(),
            ));
        }
    };
    Ok(Message {
        message_id,
        context_id: text("contextId"),
        task_id: text("taskId"),
        role: role_in(object.get("role"), path)?,
        parts,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
        extensions: strings(object.get("extensions"), &format!("{path}.extensions"))?,
        reference_task_ids: strings(
            object.get("referenceTaskIds"),
            &format!("{path}.referenceTaskIds"),
        )?,
    })
}

/// A JSON-RPC `Message`.
pub fn message_out(message: &Message, tag: Tag) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(role_name(message.role)));
    out.insert(
        "parts".into(),
        message.parts.iter().map(|p| part_out(p, tag)).collect(),
    );
    insert_opt(&mut out, "metadata", metadata(message.metadata.as_ref()));
    if tag == Tag::Kind {
        out.insert("kind".into(), json!("message"));
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
        if !message.reference_task_ids.is_empty() {
            out.insert("referenceTaskIds".into(), json!(message.reference_task_ids));
        }
        if !message.extensions.is_empty() {
            out.insert("extensions".into(), json!(message.extensions));
        }
    }
    Value::Object(out)
}

/// A JSON-RPC `TaskStatus`.
pub fn status_out(status: &TaskStatus, tag: Tag) -> Value {
    status_out_named(status, tag, state_name)
}

/// A JSON-RPC `TaskStatus` whose state is named by `name` (the draft names fewer states).
pub fn status_out_named(
    status: &TaskStatus,
    tag: Tag,
    name: fn(TaskState) -> &'static str,
) -> Value {
    let mut out = Map::new();
    out.insert("state".into(), json!(name(status.state)));
    insert_opt(
        &mut out,
        "message",
        status.message.as_ref().map(|m| message_out(m, tag)),
    );
    out.insert("timestamp".into(), json!(timestamp(&status.timestamp)));
    Value::Object(out)
}

/// The fields every JSON-RPC generation's `Artifact` has: name, description, parts, metadata.
pub fn artifact_fields(artifact: &Artifact, tag: Tag) -> Map<String, Value> {
    let mut out = Map::new();
    insert_opt(&mut out, "name", artifact.name.as_ref().map(|n| json!(n)));
    insert_opt(
        &mut out,
        "description",
        artifact.description.as_ref().map(|d| json!(d)),
    );
    out.insert(
        "parts".into(),
        artifact.parts.iter().map(|p| part_out(p, tag)).collect(),
    );
    insert_opt(&mut out, "metadata", metadata(artifact.metadata.as_ref()));
    out
}

/// A 0.3 JSON-RPC `Artifact`.
pub fn artifact_out(artifact: &Artifact) -> Value {
    let mut out = artifact_fields(artifact, Tag::Kind);
    out.insert("artifactId".into(), json!(artifact.artifact_id));
    if !artifact.extensions.is_empty() {
        out.insert("extensions".into(), json!(artifact.extensions));
    }
    Value::Object(out)
}

/// A 0.3 JSON-RPC `Task` (`kind: "task"`).
pub fn task_out(task: &Task) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), json!("task"));
    out.insert("id".into(), json!(task.id));
    out.insert("contextId".into(), json!(task.context_id));
    out.insert("status".into(), status_out(&task.status, Tag::Kind));
    if !task.artifacts.is_empty() {
        out.insert(
            "artifacts".into(),
            task.artifacts.iter().map(artifact_out).collect(),
        );
    }
    if !task.history.is_empty() {
        out.insert(
            "history".into(),
            task.history
                .iter()
                .map(|m| message_out(m, Tag::Kind))
                .collect(),
        );
    }
    insert_opt(&mut out, "metadata", metadata(task.metadata.as_ref()));
    Value::Object(out)
}

/// A 0.3 JSON-RPC stream event; `final` marks the last event of the stream.
pub fn event_out(event: &TaskEvent, last: bool) -> Value {
    match event {
        TaskEvent::Status(update) => {
            let mut out = Map::new();
            out.insert("kind".into(), json!("status-update"));
            out.insert("taskId".into(), json!(update.task_id));
            out.insert("contextId".into(), json!(update.context_id));
            out.insert("status".into(), status_out(&update.status, Tag::Kind));
            out.insert("final".into(), json!(last));
            insert_opt(&mut out, "metadata", metadata(update.metadata.as_ref()));
            Value::Object(out)
        }
        TaskEvent::Artifact(update) => json!({
            "kind": "artifact-update",
            "taskId": update.task_id,
            "contextId": update.context_id,
            "artifact": artifact_out(&update.artifact),
            "append": update.append,
            "lastChunk": update.last_chunk,
        }),
    }
}

/// 0.3 `MessageSendParams`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    pub message: Value,
    #[serde(default)]
    pub configuration: Option<MessageSendConfiguration>,
}

/// 0.3 `MessageSendConfiguration`; an absent `blocking` blocks, as the 0.3 servers did.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    pub history_length: Option<i64>,
    pub push_notification_config: Option<Value>,
    pub blocking: Option<bool>,
}

/// 0.3 `TaskQueryParams`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    pub id: String,
    pub history_length: Option<i64>,
}

/// 0.3 `TaskIdParams`.
#[derive(Deserialize)]
pub struct TaskIdParams {
    pub id: String,
}

mod results;
pub use results::{Form, proto_received_in, received_in, task_in};

mod proto;
pub use proto::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_have_both_legacy_names() {
        assert_eq!(state_name(TaskState::InputRequired), "input-required");
        assert_eq!(
            proto_state_name(TaskState::Canceled),
            "TASK_STATE_CANCELLED"
        );
        assert_eq!(parse_state("canceled"), Some(TaskState::Canceled));
        assert_eq!(
            parse_state("TASK_STATE_CANCELLED"),
            Some(TaskState::Canceled)
        );
    }

    #[test]
    fn draft_parts_use_type_and_files_round_trip() {
        let part = part_in(
            &json!({"type": "file", "file": {"mimeType": "image/png", "bytes": "aGk=", "name": "a.png"}}),
            Tag::Type,
            "p",
        )
        .unwrap();
        assert_eq!(part.content, PartContent::Raw(b"hi".to_vec()));
        let out = part_out(&part, Tag::Type);
        assert_eq!(out["type"], "file");
        assert_eq!(out["file"]["name"], "a.png");
        let err = part_in(&json!({"kind": "text", "text": "x"}), Tag::Type, "p").unwrap_err();
        assert_eq!(err.0, "p.type");
    }

    #[test]
    fn proto_messages_read_content() {
        let message = proto_message_in(
            &json!({"messageId": "m", "role": "ROLE_USER", "content": [{"data": {"data": {"a": 1}}}]}),
            "message",
        )
        .unwrap();
        assert_eq!(message.parts[0].content, PartContent::Data(json!({"a": 1})));
    }

    #[test]
    fn file_parts_read_both_shapes_and_name_the_bad_field() {
        let proto =
            json!({"file": {"fileWithUri": "https://x.example/a.png", "mimeType": "image/png"}});
        let part = proto_part_in(&proto, "p").unwrap();
        assert_eq!(
            part.content,
            PartContent::Url("https://x.example/a.png".into())
        );
        assert_eq!(part.media_type.as_deref(), Some("image/png"));
        let jsonrpc = json!({"kind": "file", "file": {"bytes": "aGk=", "name": "hi.txt"}});
        let part = part_in(&jsonrpc, Tag::Kind, "p").unwrap();
        assert_eq!(part.content, PartContent::Raw(b"hi".to_vec()));
        assert_eq!(part.filename.as_deref(), Some("hi.txt"));
        let (field, _) = proto_part_in(&json!({"file": {"fileWithBytes": "%%"}}), "p").unwrap_err();
        assert_eq!(field, "p.file.fileWithBytes");
        let (field, reason) =
            part_in(&json!({"kind": "file", "file": {}}), Tag::Kind, "p").unwrap_err();
        assert_eq!(field, "p.file");
        assert!(reason.contains("`bytes` (base64) and `uri`"), "{reason}");
    }
}
