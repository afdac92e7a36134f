//! A2A 1.0 results as a server sends them (a task, a message, a stream item), read into the core
//! model by a client. Lenient where ProtoJSON allows (snake_case names, a status without a
//! timestamp), strict where a client could not go on (a task without an id or a state).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::super::Received;
use super::{FieldError, MessageIn, PartIn, parse_state, parts_of};
use crate::model::{
    Artifact, JsonObject, Task, TaskArtifactUpdate, TaskEvent, TaskStatus, TaskStatusUpdate,
};

/// `Task` as a server sends it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIn {
    #[serde(default)]
    id: String,
    #[serde(alias = "context_id", default)]
    context_id: String,
    status: Option<StatusIn>,
    #[serde(default)]
    artifacts: Vec<ArtifactIn>,
    #[serde(default)]
    history: Vec<MessageIn>,
    metadata: Option<JsonObject>,
}

#[derive(Deserialize)]
struct StatusIn {
    state: Option<Value>,
    message: Option<MessageIn>,
    timestamp: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactIn {
    #[serde(alias = "artifact_id", default)]
    artifact_id: String,
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    parts: Vec<PartIn>,
    metadata: Option<JsonObject>,
    #[serde(default)]
    extensions: Vec<String>,
}

/// `StreamResponse` as received: exactly one of its members.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamResponseIn {
    task: Option<TaskIn>,
    message: Option<MessageIn>,
    #[serde(alias = "status_update")]
    status_update: Option<StatusUpdateIn>,
    #[serde(alias = "artifact_update")]
    artifact_update: Option<ArtifactUpdateIn>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusUpdateIn {
    #[serde(alias = "task_id", default)]
    task_id: String,
    #[serde(alias = "context_id", default)]
    context_id: String,
    status: Option<StatusIn>,
    metadata: Option<JsonObject>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactUpdateIn {
    #[serde(alias = "task_id", default)]
    task_id: String,
    #[serde(alias = "context_id", default)]
    context_id: String,
    artifact: Option<ArtifactIn>,
    #[serde(default)]
    append: bool,
    #[serde(alias = "last_chunk", default)]
    last_chunk: bool,
}

fn required(value: String, path: &str, field: &str) -> Result<String, FieldError> {
    if value.is_empty() {
        Err((format!("{path}.{field}"), "is required".into()))
    } else {
        Ok(value)
    }
}

/// A status's `timestamp` (at `path.timestamp`). Optional in the proto (and in 0.3): a status
/// without one is read as received now.
pub fn status_time(at: Option<&str>, path: &str) -> Result<DateTime<Utc>, FieldError> {
    let Some(at) = at else {
        return Ok(Utc::now());
    };
    DateTime::parse_from_rfc3339(at)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|e| {
            (
                format!("{path}.timestamp"),
                format!("is not an RFC 3339 timestamp: {e}"),
            )
        })
}

impl StatusIn {
    fn into_model(self, path: &str) -> Result<TaskStatus, FieldError> {
        let state = match &self.state {
            Some(Value::String(name)) => parse_state(name).ok_or_else(|| {
                (
                    format!("{path}.state"),
                    format!("`{name}` is not a TaskState"),
                )
            })?,
            Some(other) => {
                return Err((
                    format!("{path}.state"),
                    format!("must be a TaskState name, got {other}"),
                ));
            }
            None => return Err((format!("{path}.state"), "is required".into())),
        };
        let timestamp = status_time(self.timestamp.as_deref(), path)?;
        let message = self
            .message
            .map(|m| m.into_model(&format!("{path}.message")))
            .transpose()?;
        Ok(TaskStatus {
            state,
            message,
            timestamp,
        })
    }
}

impl ArtifactIn {
    fn into_model(self, path: &str) -> Result<Artifact, FieldError> {
        let parts = parts_of(self.parts, path)?;
        Ok(Artifact {
            artifact_id: required(self.artifact_id, path, "artifactId")?,
            name: self.name,
            description: self.description,
            parts,
            metadata: self.metadata,
            extensions: self.extensions,
        })
    }
}

impl TaskIn {
    /// The task in the core model. It has no owner (servers never send one), and its creation
    /// time, which the wire does not carry, is its status's timestamp.
    pub fn into_model(self, path: &str) -> Result<Task, FieldError> {
        let status = self
            .status
            .ok_or_else(|| (format!("{path}.status"), "is required".to_owned()))?
            .into_model(&format!("{path}.status"))?;
        let artifacts = self
            .artifacts
            .into_iter()
            .enumerate()
            .map(|(i, a)| a.into_model(&format!("{path}.artifacts[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let history = self
            .history
            .into_iter()
            .enumerate()
            .map(|(i, m)| m.into_model(&format!("{path}.history[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Task {
            id: required(self.id, path, "id")?,
            context_id: required(self.context_id, path, "contextId")?,
            created_at: status.timestamp,
            status,
            artifacts,
            history,
            metadata: self.metadata,
        })
    }
}

impl StreamResponseIn {
    /// The one item this response holds.
    pub fn into_model(self) -> Result<Received, FieldError> {
        match (
            self.task,
            self.message,
            self.status_update,
            self.artifact_update,
        ) {
            (Some(task), None, None, None) => {
                task.into_model("task").map(|t| Received::Task(Box::new(t)))
            }
            (None, Some(message), None, None) => {
                message.into_model("message").map(Received::Message)
            }
            (None, None, Some(update), None) => {
                let path = "statusUpdate";
                let status = update
                    .status
                    .ok_or_else(|| (format!("{path}.status"), "is required".to_owned()))?
                    .into_model(&format!("{path}.status"))?;
                Ok(Received::Event(TaskEvent::Status(TaskStatusUpdate {
                    task_id: required(update.task_id, path, "taskId")?,
                    context_id: required(update.context_id, path, "contextId")?,
                    status,
                    metadata: update.metadata,
                })))
            }
            (None, None, None, Some(update)) => {
                let path = "artifactUpdate";
                let artifact = update
                    .artifact
                    .ok_or_else(|| (format!("{path}.artifact"), "is required".to_owned()))?
                    .into_model(&format!("{path}.artifact"))?;
                Ok(Received::Event(TaskEvent::Artifact(TaskArtifactUpdate {
                    task_id: required(update.task_id, path, "taskId")?,
                    context_id: required(update.context_id, path, "contextId")?,
                    artifact,
                    append: update.append,
                    last_chunk: update.last_chunk,
                })))
            }
            _ => Err((
                String::new(),
                "must hold exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`"
                    .into(),
            )),
        }
    }
}
