//! A2A 0.3 results as a server sends them, read into the core model by a client: in the
//! JSON-RPC form (`kind`-tagged tasks, messages and stream events, lower-case states) or in the
//! proto's (`{task}`, `{statusUpdate}`, `Message.content`, `TASK_STATE_*`) of its HTTP+JSON
//! routes.

use serde_json::{Map, Value};

use super::super::{Received, v1};
use super::{
    FieldError, Tag, message_in, object_at, object_in, parse_state, part_in, proto_message_in,
    proto_part_in, strings, text_field,
};
use crate::model::{
    Artifact, Message, Part, Task, TaskArtifactUpdate, TaskEvent, TaskStatus, TaskStatusUpdate,
};

/// Which of 0.3's two JSON forms a result is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The JSON-RPC schema.
    JsonRpc,
    /// The 0.3 proto's ProtoJSON (HTTP+JSON).
    Proto,
}

impl Form {
    fn part(self, value: &Value, path: &str) -> Result<Part, FieldError> {
        match self {
            Self::JsonRpc => part_in(value, Tag::Kind, path),
            Self::Proto => proto_part_in(value, path),
        }
    }

    fn message(self, value: &Value, path: &str) -> Result<Message, FieldError> {
        match self {
            Self::JsonRpc => message_in(value, Tag::Kind, path),
            Self::Proto => proto_message_in(value, path),
        }
    }
}

fn required(object: &Map<String, Value>, path: &str, key: &str) -> Result<String, FieldError> {
    text_field(object, key)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| (format!("{path}.{key}"), "is required".to_owned()))
}

fn status_in(value: Option<&Value>, path: &str, form: Form) -> Result<TaskStatus, FieldError> {
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
        .map(|m| form.message(m, &format!("{path}.message")))
        .transpose()?;
    Ok(TaskStatus {
        state,
        message,
        timestamp,
    })
}

fn artifact_in(value: &Value, path: &str, form: Form) -> Result<Artifact, FieldError> {
    let object = object_at(Some(value), path)?;
    let parts = match object.get("parts") {
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(i, p)| form.part(p, &format!("{path}.parts[{i}]")))
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
pub fn task_in(value: &Value, path: &str, form: Form) -> Result<Task, FieldError> {
    let object = object_at(Some(value), path)?;
    let status = status_in(object.get("status"), &format!("{path}.status"), form)?;
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
        .map(|(i, a)| artifact_in(a, &format!("{path}.artifacts[{i}]"), form))
        .collect::<Result<Vec<_>, _>>()?;
    let history = list("history")
        .iter()
        .enumerate()
        .map(|(i, m)| form.message(m, &format!("{path}.history[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Task {
        id: required(object, path, "id")?,
        context_id: required(object, path, "contextId")?,
        created_at: status.timestamp,
        status,
        artifacts,
        history,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
    })
}

/// What a send answered or a stream carried, in the JSON-RPC form: a task, a message or an
/// event, by its `kind`.
pub fn received_in(value: &Value, path: &str) -> Result<Received, FieldError> {
    let object = object_at(Some(value), path)?;
    let form = Form::JsonRpc;
    match text_field(object, "kind").as_deref() {
        Some("task") => task_in(value, path, form).map(|t| Received::Task(Box::new(t))),
        Some("message") => message_in(value, Tag::Kind, path).map(Received::Message),
        Some("status-update") => status_update_in(object, path, form),
        Some("artifact-update") => artifact_update_in(object, path, form),
        Some(other) => Err((
            format!("{path}.kind"),
            format!("`{other}` is not a result kind"),
        )),
        None => Err((format!("{path}.kind"), "is required".into())),
    }
}

/// What a send answered or a stream carried, in the proto form: `{task}`, `{message}` (`msg`
/// in the proto), `{statusUpdate}` or `{artifactUpdate}`.
pub fn proto_received_in(value: &Value, path: &str) -> Result<Received, FieldError> {
    let object = object_at(Some(value), path)?;
    let form = Form::Proto;
    let field = |key: &str| object.get(key).map(|v| (v, format!("{path}.{key}")));
    if let Some((task, at)) = field("task") {
        return task_in(task, &at, form).map(|t| Received::Task(Box::new(t)));
    }
    if let Some((message, at)) = field("message").or_else(|| field("msg")) {
        return proto_message_in(message, &at).map(Received::Message);
    }
    if let Some((update, at)) = field("statusUpdate") {
        return status_update_in(object_at(Some(update), &at)?, &at, form);
    }
    if let Some((update, at)) = field("artifactUpdate") {
        return artifact_update_in(object_at(Some(update), &at)?, &at, form);
    }
    Err((
        path.to_owned(),
        "must hold one of `task`, `message`, `statusUpdate`, `artifactUpdate`".into(),
    ))
}

fn status_update_in(
    object: &Map<String, Value>,
    path: &str,
    form: Form,
) -> Result<Received, FieldError> {
    Ok(Received::Event(TaskEvent::Status(TaskStatusUpdate {
        task_id: required(object, path, "taskId")?,
        context_id: required(object, path, "contextId")?,
        status: status_in(object.get("status"), &format!("{path}.status"), form)?,
        metadata: object_in(object.get("metadata"), &format!("{path}.metadata"))?,
    })))
}

fn artifact_update_in(
    object: &Map<String, Value>,
    path: &str,
    form: Form,
) -> Result<Received, FieldError> {
    let flag = |key: &str| object.get(key).and_then(Value::as_bool).unwrap_or(false);
    let artifact = object
        .get("artifact")
        .ok_or_else(|| (format!("{path}.artifact"), "is required".to_owned()))?;
    Ok(Received::Event(TaskEvent::Artifact(TaskArtifactUpdate {
        task_id: required(object, path, "taskId")?,
        context_id: required(object, path, "contextId")?,
        artifact: artifact_in(artifact, &format!("{path}.artifact"), form)?,
        append: flag("append"),
        last_chunk: flag("lastChunk"),
    })))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{PartContent, TaskState};

    #[test]
    fn proto_results_read_content_and_proto_states() {
        let task = json!({"task": {
            "id": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_CANCELLED", "timestamp": "2026-01-01T00:00:00Z"},
            "artifacts": [{"artifactId": "a", "parts": [{"data": {"data": {"x": 1}}}]}],
            "history": [{"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}]
        }});
        let Received::Task(task) = proto_received_in(&task, "result").unwrap() else {
            panic!("not a task");
        };
        assert_eq!(task.status.state, TaskState::Canceled);
        assert_eq!(task.history[0].text().as_deref(), Some("hi"));
        let content = &task.artifacts[0].parts[0].content;
        assert_eq!(content, &PartContent::Data(json!({"x": 1})));
        let update = json!({"statusUpdate": {
            "taskId": "t", "contextId": "c", "final": true,
            "status": {"state": "TASK_STATE_COMPLETED"}
        }});
        assert!(matches!(
            proto_received_in(&update, "result").unwrap(),
            Received::Event(TaskEvent::Status(_))
        ));
        let unnamed = json!({"artifactUpdate": {
            "taskId": "t", "artifact": {"artifactId": "a", "parts": []}
        }});
        let (field, _) = proto_received_in(&unnamed, "result").unwrap_err();
        assert_eq!(field, "result.artifactUpdate.contextId");
    }
}
