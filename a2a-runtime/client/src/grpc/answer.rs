//! What a gRPC agent answers, as the 1.0 JSON the other bindings answer: read into the model by
//! the types layer (strictly, errors naming the proto's fields), then written as 1.0 JSON, so the
//! client's one reader of results serves every binding.

use serde_json::{Map, Value, json};

use crate::wire::{event_json, task_json};
use crate::{ClientError, StreamEvent};
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use a2a_runtime_types::protocol::a2a::grpc::received;

/// A send's answer: `{task}` or `{message}`.
pub(super) fn sent(response: wire::SendMessageResponse) -> Result<Value, ClientError> {
    let payload = response.payload.map(|payload| match payload {
        wire::SendMessagePayload::Task(task) => wire::StreamPayload::Task(task),
        wire::SendMessagePayload::Message(message) => wire::StreamPayload::Message(message),
    });
    stream_item(wire::StreamResponse { payload })
}

/// One item of a stream: `{task}`, `{message}`, `{statusUpdate}` or `{artifactUpdate}`.
pub(super) fn stream_item(response: wire::StreamResponse) -> Result<Value, ClientError> {
    let item = received::stream_item_in(response)?;
    Ok(event_json(&StreamEvent::from(item)))
}

/// A task.
pub(super) fn task(task: wire::Task) -> Result<Value, ClientError> {
    Ok(task_json(&received::task_in(task, "task")?))
}

/// A page of tasks.
pub(super) fn tasks(page: wire::ListTasksResponse) -> Result<Value, ClientError> {
    let tasks = page
        .tasks
        .into_iter()
        .enumerate()
        .map(|(i, t)| Ok(task_json(&received::task_in(t, &format!("tasks[{i}]"))?)))
        .collect::<Result<Vec<_>, ClientError>>()?;
    Ok(json!({
        "tasks": tasks,
        "nextPageToken": page.next_page_token,
        "pageSize": page.page_size,
        "totalSize": page.total_size,
    }))
}

/// A page of a task's push configs.
pub(super) fn push_configs(page: wire::ListTaskPushNotificationConfigsResponse) -> Value {
    let configs: Vec<Value> = page.configs.into_iter().map(push_config).collect();
    json!({ "configs": configs, "nextPageToken": page.next_page_token })
}

/// A push config as the 1.0 JSON the client reads (credentials as the agent redacted them).
pub(super) fn push_config(config: wire::TaskPushNotificationConfig) -> Value {
    let mut fields = Map::new();
    for (key, value) in [
        ("taskId", config.task_id),
        ("id", config.id),
        ("url", config.url),
        ("token", config.token),
    ] {
        if !value.is_empty() {
            fields.insert(key.into(), Value::String(value));
        }
    }
    if let Some(auth) = config.authentication {
        let mut out = Map::new();
        out.insert("scheme".into(), Value::String(auth.scheme));
        if !auth.credentials.is_empty() {
            out.insert("credentials".into(), Value::String(auth.credentials));
        }
        fields.insert("authentication".into(), Value::Object(out));
    }
    Value::Object(fields)
}
