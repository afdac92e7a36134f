//! A2A 0.3 JSON-RPC results as a server sends them (`kind`-tagged tasks, messages and stream
//! events, lower-case states), read into the core model by a client.

use serde_json::{Map, Value};

use super::super::{Received, v1};
use super::{
    FieldError, Tag, message_in, object_at, object_in, parse_state, part_in, strings, text_field,
};
use crate::model::{Artifact, Task, TaskArtifactUpdate, TaskEvent, TaskStatus, TaskStatusUpdate};

fn required(object: &Map<String, Value>, path: &str, key: &str) -> Result<String, FieldError> {
    text_field(object, key)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| (format!("{path}.{key}"), "is required".to_owned()))
}

fn status_in(value: Option<&Value>, path: &str) -> Result<TaskStatus, FieldError> {
    let object = object_at(value, path)?;
    let name = required(object, path, "state")?;
    let state = parse_state(&name).ok_or_else(|| {
        (
            format!("{path}.state"),
            format!("`{name}` is not a TaskState"),
        )
    })?;
    let timestamp = v1::status_time(text_field(object, "timestamp").as_deref(), path)?;
    let message = object
        .get("message")
        .map(|m| message_in(m, Tag::Kind, &format!("{path}.message")))
        .transpose()?;
    Ok(TaskStatus {
        state,
        message,
        timestamp,
    })
}

fn artifact_in(value: &Value, path: &str) -> Result<Artifact, FieldError> {
    let object = object_at(Some(value), path)?;
    let parts = match object.get("parts") {
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(i, p)| part_in(p, Tag::Kind, &format!("{path}.parts[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err((
                format!("{path}.parts"),
                "is required and must be a list".into(),
            ));
        }
    };
    Ok(Artifact {
        artifact_id: required(object, path, "artifactId")?,
        name: text_field(object, "name"),
        description: text_field(object, "description"),
        parts,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
        extensions: strings(object.get("extensions"), &format!("{path}.extensions"))?,
    })
}

/// A 0.3 `Task`. It has no owner, and its creation time is its status's timestamp.
pub(crate) fn task_in(value: &Value, path: &str) -> Result<Task, FieldError> {
    let object = object_at(Some(value), path)?;
    let status = status_in(object.get("status"), &format!("{path}.status"))?;
    let list = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let artifacts = list("artifacts")
        .iter()
        .enumerate()
        .map(|(i, a)| artifact_in(a, &format!("{path}.artifacts[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let history = list("history")
        .iter()
        .enumerate()
        .map(|(i, m)| message_in(m, Tag::Kind, &format!("{path}.history[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Task {
        id: required(object, path, "id")?,
        context_id: required(object, path, "contextId")?,
        created_at: status.timestamp,
        status,
        artifacts,
        history,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
        owner: String::new(),
        checkpoint: None,
        push_configs: Vec::new(),
    })
}

/// What a send answered or a stream carried: a task, a message or an event, by its `kind`.
pub(crate) fn received_in(value: &Value, path: &str) -> Result<Received, FieldError> {
    let object = object_at(Some(value), path)?;
    match text_field(object, "kind").as_deref() {
        Some("task") => task_in(value, path).map(|t| Received::Task(Box::new(t))),
        Some("message") => message_in(value, Tag::Kind, path).map(Received::Message),
        Some("status-update") => Ok(Received::Event(TaskEvent::Status(TaskStatusUpdate {
            task_id: required(object, path, "taskId")?,
            context_id: required(object, path, "contextId")?,
            status: status_in(object.get("status"), &format!("{path}.status"))?,
            metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
        }))),
        Some("artifact-update") => {
            let flag = |key: &str| object.get(key).and_then(Value::as_bool).unwrap_or(false);
            let artifact = object
                .get("artifact")
                .ok_or_else(|| (format!("{path}.artifact"), "is required".to_owned()))?;
            Ok(Received::Event(TaskEvent::Artifact(TaskArtifactUpdate {
                task_id: required(object, path, "taskId")?,
                context_id: required(object, path, "contextId")?,
                artifact: artifact_in(artifact, &format!("{path}.artifact"))?,
                append: flag("append"),
                last_chunk: flag("lastChunk"),
            })))
        }
        Some(other) => Err((
            format!("{path}.kind"),
            format!("`{other}` is not a result kind"),
        )),
        None => Err((format!("{path}.kind"), "is required".into())),
    }
}
