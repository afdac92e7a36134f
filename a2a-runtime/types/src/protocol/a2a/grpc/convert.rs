//! The model ⇄ A2A 1.0's proto messages: what a gRPC server answers, and what it reads, checked
//! as the JSON bindings check it (a missing required field is an error naming it, with the
//! proto's field names, which gRPC callers see).

use chrono::{DateTime, Utc};
use prost_types::Timestamp;

use super::json::{from_struct, from_value, to_struct, to_value};
use super::messages as wire;
use crate::model::{
    Artifact, JsonObject, Message, Part, PartContent, Role, Task, TaskArtifactUpdate, TaskEvent,
    TaskState, TaskStatus, TaskStatusUpdate,
};
use crate::protocol::a2a::v1::FieldError;

/// A task as the proto's `Task`.
pub fn task(task: &Task) -> wire::Task {
    wire::Task {
        id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: Some(status(&task.status)),
        artifacts: task.artifacts.iter().map(artifact).collect(),
        history: task.history.iter().map(message).collect(),
        metadata: task.metadata.as_ref().map(to_struct),
    }
}

/// A status as the proto's `TaskStatus`.
pub fn status(status: &TaskStatus) -> wire::TaskStatus {
    wire::TaskStatus {
        state: state(status.state) as i32,
        message: status.message.as_ref().map(message),
        timestamp: Some(timestamp(&status.timestamp)),
    }
}

/// A state as the proto's `TaskState`.
pub fn state(state: TaskState) -> wire::TaskState {
    match state {
        TaskState::Submitted => wire::TaskState::Submitted,
        TaskState::Working => wire::TaskState::Working,
        TaskState::InputRequired => wire::TaskState::InputRequired,
        TaskState::AuthRequired => wire::TaskState::AuthRequired,
        TaskState::Completed => wire::TaskState::Completed,
        TaskState::Failed => wire::TaskState::Failed,
        TaskState::Canceled => wire::TaskState::Canceled,
        TaskState::Rejected => wire::TaskState::Rejected,
    }
}

/// The proto's `TaskState` as the model's; `None` for `TASK_STATE_UNSPECIFIED` or a number the
/// proto does not define.
pub fn state_in(state: i32) -> Option<TaskState> {
    Some(match wire::TaskState::try_from(state).ok()? {
        wire::TaskState::Unspecified => return None,
        wire::TaskState::Submitted => TaskState::Submitted,
        wire::TaskState::Working => TaskState::Working,
        wire::TaskState::InputRequired => TaskState::InputRequired,
        wire::TaskState::AuthRequired => TaskState::AuthRequired,
        wire::TaskState::Completed => TaskState::Completed,
        wire::TaskState::Failed => TaskState::Failed,
        wire::TaskState::Canceled => TaskState::Canceled,
        wire::TaskState::Rejected => TaskState::Rejected,
    })
}

/// A message as the proto's `Message`.
pub fn message(message: &Message) -> wire::Message {
    wire::Message {
        message_id: message.message_id.clone(),
        context_id: message.context_id.clone().unwrap_or_default(),
        task_id: message.task_id.clone().unwrap_or_default(),
        role: match message.role {
            Role::User => wire::Role::User,
            Role::Agent => wire::Role::Agent,
        } as i32,
        parts: message.parts.iter().map(part).collect(),
        metadata: message.metadata.as_ref().map(to_struct),
        extensions: message.extensions.clone(),
        reference_task_ids: message.reference_task_ids.clone(),
    }
}

/// A part as the proto's `Part`.
pub fn part(part: &Part) -> wire::Part {
    wire::Part {
        content: Some(match &part.content {
            PartContent::Text(text) => wire::PartContent::Text(text.clone()),
            PartContent::Raw(bytes) => wire::PartContent::Raw(bytes.clone()),
            PartContent::Url(url) => wire::PartContent::Url(url.clone()),
            PartContent::Data(data) => wire::PartContent::Data(to_value(data)),
        }),
        metadata: part.metadata.as_ref().map(to_struct),
        filename: part.filename.clone().unwrap_or_default(),
        media_type: part.media_type.clone().unwrap_or_default(),
    }
}

/// An artifact as the proto's `Artifact`.
pub fn artifact(artifact: &Artifact) -> wire::Artifact {
    wire::Artifact {
        artifact_id: artifact.artifact_id.clone(),
        name: artifact.name.clone().unwrap_or_default(),
        description: artifact.description.clone().unwrap_or_default(),
        parts: artifact.parts.iter().map(part).collect(),
        metadata: artifact.metadata.as_ref().map(to_struct),
        extensions: artifact.extensions.clone(),
    }
}

/// An event as the proto's `StreamResponse`.
pub fn event(event: &TaskEvent) -> wire::StreamPayload {
    match event {
        TaskEvent::Status(update) => wire::StreamPayload::StatusUpdate(status_update(update)),
        TaskEvent::Artifact(update) => wire::StreamPayload::ArtifactUpdate(artifact_update(update)),
    }
}

fn status_update(update: &TaskStatusUpdate) -> wire::TaskStatusUpdateEvent {
    wire::TaskStatusUpdateEvent {
        task_id: update.task_id.clone(),
        context_id: update.context_id.clone(),
        status: Some(status(&update.status)),
        metadata: update.metadata.as_ref().map(to_struct),
    }
}

fn artifact_update(update: &TaskArtifactUpdate) -> wire::TaskArtifactUpdateEvent {
    wire::TaskArtifactUpdateEvent {
        task_id: update.task_id.clone(),
        context_id: update.context_id.clone(),
        artifact: Some(artifact(&update.artifact)),
        append: update.append,
        last_chunk: update.last_chunk,
        metadata: None,
    }
}

/// A time as the proto's `Timestamp`.
pub fn timestamp(at: &DateTime<Utc>) -> Timestamp {
    Timestamp {
        seconds: at.timestamp(),
        #[allow(clippy::cast_possible_wrap)] // Below 2·10⁹.
        nanos: at.timestamp_subsec_nanos() as i32,
    }
}

/// The proto's `Timestamp` as a time; `Err` when it is out of range (`field` names it).
pub fn timestamp_in(at: &Timestamp, field: &str) -> Result<DateTime<Utc>, FieldError> {
    u32::try_from(at.nanos)
        .ok()
        .and_then(|nanos| DateTime::from_timestamp(at.seconds, nanos))
        .ok_or_else(|| (field.to_owned(), "is not a valid timestamp".to_owned()))
}

/// A received message as the model's, checked: `field` names it in errors (`message`).
pub fn message_in(message: wire::Message, field: &str) -> Result<Message, FieldError> {
    let role = match wire::Role::try_from(message.role) {
        Ok(wire::Role::User) => Role::User,
        Ok(wire::Role::Agent) => Role::Agent,
        Ok(wire::Role::Unspecified) => return Err((format!("{field}.role"), "is required".into())),
        Err(_) => {
            return Err((
                format!("{field}.role"),
                format!(
                    "{} is not a Role (ROLE_USER = 1, ROLE_AGENT = 2)",
                    message.role
                ),
            ));
        }
    };
    if message.message_id.is_empty() {
        return Err((format!("{field}.message_id"), "is required".into()));
    }
    let parts = message
        .parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| part_in(p, &format!("{field}.parts[{i}]")))
        .collect::<Result<_, _>>()?;
    Ok(Message {
        message_id: message.message_id,
        context_id: Some(message.context_id).filter(|c| !c.is_empty()),
        task_id: Some(message.task_id).filter(|t| !t.is_empty()),
        role,
        parts,
        metadata: metadata_in(message.metadata, &format!("{field}.metadata"))?,
        extensions: message.extensions,
        reference_task_ids: message.reference_task_ids,
    })
}

fn part_in(part: wire::Part, field: &str) -> Result<Part, FieldError> {
    let content = match part.content {
        Some(wire::PartContent::Text(text)) => PartContent::Text(text),
        Some(wire::PartContent::Raw(bytes)) => PartContent::Raw(bytes),
        Some(wire::PartContent::Url(url)) => PartContent::Url(url),
        Some(wire::PartContent::Data(data)) => {
            PartContent::Data(from_value(data).map_err(|reason| (format!("{field}.data"), reason))?)
        }
        None => {
            return Err((
                field.to_owned(),
                "must hold one of `text`, `raw`, `url`, `data`".into(),
            ));
        }
    };
    Ok(Part {
        content,
        metadata: metadata_in(part.metadata, &format!("{field}.metadata"))?,
        filename: Some(part.filename).filter(|f| !f.is_empty()),
        media_type: Some(part.media_type).filter(|m| !m.is_empty()),
    })
}

/// Received `metadata` as a JSON object (`field` names it in errors).
pub fn metadata_in(
    metadata: Option<prost_types::Struct>,
    field: &str,
) -> Result<Option<JsonObject>, FieldError> {
    metadata
        .map(from_struct)
        .transpose()
        .map_err(|reason| (field.to_owned(), reason))
}
