//! A2A v1.0 in ProtoJSON: camelCase fields, `TASK_STATE_*` / `ROLE_*` enum names, RFC 3339 UTC
//! timestamps with `Z` and milliseconds, base64 bytes, no `kind` discriminators. Outbound types
//! borrow from the core model; inbound types accept snake_case too, as ProtoJSON parsers must.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    Artifact, JsonObject, Message, Part, PartContent, Role, Task, TaskEvent, TaskState, TaskStatus,
    TaskView,
};

/// The protocol version this module implements.
pub const VERSION: &str = "1.0";

/// A2A 1.0's operations, as its JSON-RPC methods and gRPC methods name them.
pub const METHODS: [&str; 11] = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

pub fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Canceled => "TASK_STATE_CANCELED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
    }
}

pub fn parse_state(name: &str) -> Option<TaskState> {
    TaskState::ALL.into_iter().find(|s| state_name(*s) == name)
}

pub fn timestamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

// ---------------------------------------------------------------------------------------------
// Outbound

/// `Task`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskOut<'a> {
    id: &'a str,
    context_id: &'a str,
    status: StatusOut<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    artifacts: Vec<ArtifactOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    history: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a JsonObject>,
}

impl<'a> From<&'a Task> for TaskOut<'a> {
    fn from(task: &'a Task) -> Self {
        Self::with_history(task, &task.history)
    }
}

/// The task a view shows, written from where it is shared, its history trimmed as it is read.
impl<'a> From<&'a TaskView> for TaskOut<'a> {
    fn from(view: &'a TaskView) -> Self {
        Self::with_history(view.task(), view.history())
    }
}

impl<'a> TaskOut<'a> {
    fn with_history(task: &'a Task, history: &'a [Message]) -> Self {
        Self {
            id: &task.id,
            context_id: &task.context_id,
            status: (&task.status).into(),
            artifacts: task.artifacts.iter().map(Into::into).collect(),
            history: history.iter().map(Into::into).collect(),
            metadata: task.metadata.as_ref(),
        }
    }
}

#[derive(Serialize)]
struct StatusOut<'a> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<MessageOut<'a>>,
    timestamp: String,
}

impl<'a> From<&'a TaskStatus> for StatusOut<'a> {
    fn from(status: &'a TaskStatus) -> Self {
        Self {
            state: state_name(status.state),
            message: status.message.as_ref().map(Into::into),
            timestamp: timestamp(&status.timestamp),
        }
    }
}

/// `Message`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageOut<'a> {
    message_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<&'a str>,
    role: &'static str,
    parts: Vec<PartOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reference_task_ids: &'a [String],
}

impl<'a> From<&'a Message> for MessageOut<'a> {
    fn from(m: &'a Message) -> Self {
        Self {
            message_id: &m.message_id,
            context_id: m.context_id.as_deref(),
            task_id: m.task_id.as_deref(),
            role: match m.role {
                Role::User => "ROLE_USER",
                Role::Agent => "ROLE_AGENT",
            },
            parts: m.parts.iter().map(Into::into).collect(),
            metadata: m.metadata.as_ref(),
            extensions: &m.extensions,
            reference_task_ids: &m.reference_task_ids,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    media_type: Option<&'a str>,
}

impl<'a> From<&'a Part> for PartOut<'a> {
    fn from(part: &'a Part) -> Self {
        let mut out = Self {
            text: None,
            raw: None,
            url: None,
            data: None,
            metadata: part.metadata.as_ref(),
            filename: part.filename.as_deref(),
            media_type: part.media_type.as_deref(),
        };
        match &part.content {
            PartContent::Text(text) => out.text = Some(text),
            PartContent::Raw(bytes) => out.raw = Some(STANDARD.encode(bytes)),
            PartContent::Url(url) => out.url = Some(url),
            PartContent::Data(value) => out.data = Some(value),
        }
        out
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactOut<'a> {
    artifact_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    parts: Vec<PartOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
}

impl<'a> From<&'a Artifact> for ArtifactOut<'a> {
    fn from(a: &'a Artifact) -> Self {
        Self {
            artifact_id: &a.artifact_id,
            name: a.name.as_deref(),
            description: a.description.as_deref(),
            parts: a.parts.iter().map(Into::into).collect(),
            metadata: a.metadata.as_ref(),
            extensions: &a.extensions,
        }
    }
}

/// `SendMessageResponse` (one-of `task` | `message`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SendMessageResponse<'a> {
    Task(TaskOut<'a>),
    Message(MessageOut<'a>),
}

/// `StreamResponse` (one-of): one SSE item.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamResponse<'a> {
    Task(TaskOut<'a>),
    Message(MessageOut<'a>),
    StatusUpdate(StatusUpdateOut<'a>),
    ArtifactUpdate(ArtifactUpdateOut<'a>),
}

impl<'a> From<&'a TaskEvent> for StreamResponse<'a> {
    fn from(event: &'a TaskEvent) -> Self {
        match event {
            TaskEvent::Status(update) => Self::StatusUpdate(StatusUpdateOut {
                task_id: &update.task_id,
                context_id: &update.context_id,
                status: (&update.status).into(),
                metadata: update.metadata.as_ref(),
            }),
            TaskEvent::Artifact(update) => Self::ArtifactUpdate(ArtifactUpdateOut {
                task_id: &update.task_id,
                context_id: &update.context_id,
                artifact: (&update.artifact).into(),
                append: update.append,
                last_chunk: update.last_chunk,
            }),
        }
    }
}

/// `TaskStatusUpdateEvent`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusUpdateOut<'a> {
    task_id: &'a str,
    context_id: &'a str,
    status: StatusOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a JsonObject>,
}

/// `TaskArtifactUpdateEvent`; `append` and `lastChunk` are left out when false, as ProtoJSON
/// does.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactUpdateOut<'a> {
    task_id: &'a str,
    context_id: &'a str,
    artifact: ArtifactOut<'a>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    append: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    last_chunk: bool,
}

/// `ListTasksResponse`; `nextPageToken` is always present (`""` on the last page).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResponse<'a> {
    pub tasks: Vec<TaskOut<'a>>,
    pub next_page_token: String,
    pub page_size: usize,
    pub total_size: usize,
}

// ---------------------------------------------------------------------------------------------
// Inbound

/// A problem with an inbound value: (field path, reason).
pub type FieldError = (String, String);

/// `Message` as received.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageIn {
    #[serde(alias = "message_id", default)]
    message_id: String,
    #[serde(alias = "context_id")]
    context_id: Option<String>,
    #[serde(alias = "task_id")]
    task_id: Option<String>,
    role: Option<Value>,
    #[serde(default)]
    parts: Vec<PartIn>,
    metadata: Option<JsonObject>,
    #[serde(default)]
    extensions: Vec<String>,
    #[serde(alias = "reference_task_ids", default)]
    reference_task_ids: Vec<String>,
    kind: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartIn {
    text: Option<String>,
    raw: Option<String>,
    url: Option<String>,
    data: Option<Value>,
    metadata: Option<JsonObject>,
    filename: Option<String>,
    #[serde(alias = "media_type")]
    media_type: Option<String>,
    kind: Option<Value>,
}

impl MessageIn {
    /// Converts to the core model, checking what serde cannot: the role, one content per part.
    pub fn into_model(self, path: &str) -> Result<Message, FieldError> {
        if self.kind.is_some()
            && self
                .role
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|r| !r.starts_with("ROLE_"))
        {
            return Err((
                format!("{path}.kind"),
                "this is an A2A v0.3 message (`kind`, lower-case role); this agent speaks A2A 1.0"
                    .into(),
            ));
        }
        let role = match self.role.as_ref() {
            Some(Value::String(r)) if r == "ROLE_USER" => Role::User,
            Some(Value::String(r)) if r == "ROLE_AGENT" => Role::Agent,
            Some(Value::Number(n)) if n.as_i64() == Some(1) => Role::User,
            Some(Value::Number(n)) if n.as_i64() == Some(2) => Role::Agent,
            Some(other) => {
                return Err((
                    format!("{path}.role"),
                    format!("must be \"ROLE_USER\" or \"ROLE_AGENT\", got {other}"),
                ));
            }
            None => return Err((format!("{path}.role"), "is required".into())),
        };
        if self.message_id.is_empty() {
            return Err((format!("{path}.messageId"), "is required".into()));
        }
        let parts = parts_of(self.parts, path)?;
        Ok(Message {
            message_id: self.message_id,
            context_id: self.context_id.filter(|c| !c.is_empty()),
            task_id: self.task_id.filter(|t| !t.is_empty()),
            role,
            parts,
            metadata: self.metadata,
            extensions: self.extensions,
            reference_task_ids: self.reference_task_ids,
        })
    }
}

/// The parts of the message or artifact at `path`, in the core model.
fn parts_of(parts: Vec<PartIn>, path: &str) -> Result<Vec<Part>, FieldError> {
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| part.into_model(&format!("{path}.parts[{i}]")))
        .collect()
}

impl PartIn {
    fn into_model(self, path: &str) -> Result<Part, FieldError> {
        let count = [
            self.text.is_some(),
            self.raw.is_some(),
            self.url.is_some(),
            self.data.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if count != 1 {
            let reason = if count == 0 && self.kind.is_some() {
                "this is an A2A v0.3 part (`kind`); A2A 1.0 parts hold `text`, `raw`, `url` or `data` directly".to_owned()
            } else {
                format!("must hold exactly one of `text`, `raw`, `url`, `data` (found {count})")
            };
            return Err((path.to_owned(), reason));
        }
        let content = if let Some(text) = self.text {
            PartContent::Text(text)
        } else if let Some(raw) = self.raw {
            PartContent::Raw(
                super::proto_json::decode_bytes(&raw)
                    .map_err(|e| (format!("{path}.raw"), format!("is not valid base64: {e}")))?,
            )
        } else if let Some(url) = self.url {
            PartContent::Url(url)
        } else {
            PartContent::Data(self.data.unwrap_or(Value::Null))
        };
        Ok(Part {
            content,
            metadata: self.metadata,
            filename: self.filename,
            media_type: self.media_type,
        })
    }
}

/// `SendMessageRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    pub message: MessageIn,
    #[serde(default)]
    pub configuration: Option<SendMessageConfiguration>,
    #[allow(dead_code)]
    pub metadata: Option<JsonObject>,
}

/// `SendMessageConfiguration`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageConfiguration {
    #[serde(alias = "accepted_output_modes", default)]
    #[allow(dead_code)]
    pub accepted_output_modes: Vec<String>,
    #[serde(alias = "task_push_notification_config")]
    pub task_push_notification_config: Option<Value>,
    #[serde(alias = "history_length")]
    pub history_length: Option<i64>,
    #[serde(alias = "return_immediately", default)]
    pub return_immediately: bool,
}

/// `GetTaskRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    pub id: String,
    #[serde(alias = "history_length")]
    pub history_length: Option<i64>,
}

/// `SubscribeToTaskRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeToTaskRequest {
    pub id: String,
}

/// `CancelTaskRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskRequest {
    pub id: String,
}

/// `ListTasksRequest`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequest {
    #[serde(alias = "context_id")]
    pub context_id: Option<String>,
    pub status: Option<String>,
    #[serde(alias = "page_size")]
    pub page_size: Option<i64>,
    #[serde(alias = "page_token")]
    pub page_token: Option<String>,
    #[serde(alias = "history_length")]
    pub history_length: Option<i64>,
    #[serde(alias = "status_timestamp_after")]
    pub status_timestamp_after: Option<String>,
    #[serde(alias = "include_artifacts", default)]
    pub include_artifacts: bool,
}

// ---------------------------------------------------------------------------------------------
// Inbound results (what a client reads from a server)

mod results;
pub use results::{StreamResponseIn, TaskIn, status_time};

// ---------------------------------------------------------------------------------------------
// Agent card

mod card;
pub use card::{
    AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentProvider, AgentSkill,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn states_round_trip_by_name() {
        for state in [
            TaskState::Submitted,
            TaskState::Canceled,
            TaskState::AuthRequired,
        ] {
            assert_eq!(parse_state(state_name(state)), Some(state));
        }
        assert_eq!(parse_state("canceled"), None);
    }

    #[test]
    fn timestamps_are_utc_with_millis_and_z() {
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.678+02:00")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(timestamp(&at), "2026-01-02T01:04:05.678Z");
    }

    #[test]
    fn parts_need_exactly_one_content() {
        let msg: MessageIn = serde_json::from_value(
            json!({"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","data":1}]}),
        )
        .unwrap();
        assert_eq!(msg.into_model("message").unwrap_err().0, "message.parts[0]");
        let msg: MessageIn = serde_json::from_value(
            json!({"message_id":"m","role":"ROLE_USER","parts":[{"raw":"aGk="}]}),
        )
        .unwrap();
        assert_eq!(
            msg.into_model("message").unwrap().parts[0].content,
            PartContent::Raw(b"hi".to_vec())
        );
    }
}
