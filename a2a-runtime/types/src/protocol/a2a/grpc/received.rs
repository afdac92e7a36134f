//! What a gRPC client reads, into the model: a task, a stream item, a status; strict where a
//! client could not go on (a task without an id, a status without a state), as the JSON
//! bindings' readers are. Field names in errors are the proto's.

use chrono::{DateTime, Utc};

use super::convert::{message_in, metadata_in, state_in, timestamp_in};
use super::messages as wire;
use crate::model::{
    Artifact, Part, Task, TaskArtifactUpdate, TaskEvent, TaskStatus, TaskStatusUpdate,
};
use crate::protocol::a2a::Received;
use crate::protocol::a2a::v1::FieldError;

/// `value`, which the proto requires: empty is an error naming `field`.
fn required(value: String, field: String) -> Result<String, FieldError> {
    if value.is_empty() {
        return Err((field, "is required".into()));
    }
    Ok(value)
}

/// A task as the model's. Its creation time, which the wire does not carry, is its status's.
pub fn task_in(task: wire::Task, field: &str) -> Result<Task, FieldError> {
    let status = task
        .status
        .ok_or_else(|| (format!("{field}.status"), "is required".to_owned()))?;
    let status = status_in(status, &format!("{field}.status"))?;
    let artifacts = task
        .artifacts
        .into_iter()
        .enumerate()
        .map(|(i, a)| artifact_in(a, &format!("{field}.artifacts[{i}]")))
        .collect::<Result<_, _>>()?;
    let history = task
        .history
        .into_iter()
        .enumerate()
        .map(|(i, m)| message_in(m, &format!("{field}.history[{i}]")))
        .collect::<Result<_, _>>()?;
    Ok(Task {
        id: required(task.id, format!("{field}.id"))?,
        context_id: required(task.context_id, format!("{field}.context_id"))?,
        created_at: status.timestamp,
        status,
        artifacts,
        history,
        metadata: metadata_in(task.metadata, &format!("{field}.metadata"))?,
    })
}

/// A status as the model's; one without a timestamp is taken as of now.
pub fn status_in(status: wire::TaskStatus, field: &str) -> Result<TaskStatus, FieldError> {
    let state = state_in(status.state).ok_or_else(|| {
        let reason = format!("{} is not a task state", status.state);
        (format!("{field}.state"), reason)
    })?;
    let timestamp: DateTime<Utc> = match &status.timestamp {
        Some(at) => timestamp_in(at, &format!("{field}.timestamp"))?,
        None => Utc::now(),
    };
    let message = status
        .message
        .map(|m| message_in(m, &format!("{field}.message")))
        .transpose()?;
    Ok(TaskStatus {
        state,
        message,
        timestamp,
    })
}

fn artifact_in(artifact: wire::Artifact, field: &str) -> Result<Artifact, FieldError> {
    // The parts read as a message's are: one message of the parts, its errors renamed.
    let holder = wire::Message {
        message_id: "artifact".into(),
        role: wire::Role::Agent as i32,
        parts: artifact.parts,
        ..Default::default()
    };
    let parts: Vec<Part> = message_in(holder, field)?.parts;
    Ok(Artifact {
        artifact_id: required(artifact.artifact_id, format!("{field}.artifact_id"))?,
        name: Some(artifact.name).filter(|n| !n.is_empty()),
        description: Some(artifact.description).filter(|d| !d.is_empty()),
        parts,
        metadata: metadata_in(artifact.metadata, &format!("{field}.metadata"))?,
        extensions: artifact.extensions,
    })
}

/// One item of a stream (or a send's answer) as the model's.
pub fn stream_item_in(response: wire::StreamResponse) -> Result<Received, FieldError> {
    let payload = response.payload.ok_or_else(|| {
        let reason = "must hold one of `task`, `message`, `status_update`, `artifact_update`";
        (String::new(), reason.to_owned())
    })?;
    Ok(match payload {
        wire::StreamPayload::Task(task) => Received::Task(Box::new(task_in(task, "task")?)),
        wire::StreamPayload::Message(message) => Received::Message(message_in(message, "message")?),
        wire::StreamPayload::StatusUpdate(update) => {
            let field = "status_update";
            let status = update
                .status
                .ok_or_else(|| (format!("{field}.status"), "is required".to_owned()))?;
            Received::Event(TaskEvent::Status(TaskStatusUpdate {
                task_id: required(update.task_id, format!("{field}.task_id"))?,
                context_id: required(update.context_id, format!("{field}.context_id"))?,
                status: status_in(status, &format!("{field}.status"))?,
                metadata: metadata_in(update.metadata, &format!("{field}.metadata"))?,
            }))
        }
        wire::StreamPayload::ArtifactUpdate(update) => {
            let field = "artifact_update";
            let artifact = update
                .artifact
                .ok_or_else(|| (format!("{field}.artifact"), "is required".to_owned()))?;
            Received::Event(TaskEvent::Artifact(TaskArtifactUpdate {
                task_id: required(update.task_id, format!("{field}.task_id"))?,
                context_id: required(update.context_id, format!("{field}.context_id"))?,
                artifact: artifact_in(artifact, &format!("{field}.artifact"))?,
                append: update.append,
                last_chunk: update.last_chunk,
            }))
        }
    })
}
