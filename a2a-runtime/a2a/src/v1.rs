//! A2A 1.0 wire requests and results ⇄ the service's, shared by the 1.0 JSON-RPC and HTTP+JSON
//! adapters (both carry the same ProtoJSON).

use serde_json::Value;

use super::A2aError;
use super::decode::{params, strict};
use super::push::PushRegistration;
use super::service::{ListTasksRequest, SendRequest, Sent, TaskList, parse_timestamp};
use a2a_runtime_core::task::StreamItem;
use a2a_runtime_types::model::{PushWire, TaskState};
use a2a_runtime_types::protocol::a2a::{push, v1};

/// Reads a 1.0 `SendMessageRequest` from the lenient tree of its JSON.
pub fn send_request(raw: Value) -> Result<SendRequest, A2aError> {
    read_send(params(raw)?)
}

/// Reads a 1.0 `SendMessageRequest` from its JSON text in one pass when it is strict ProtoJSON
/// (see [`strict`]); `None` when it needs the lenient reading.
pub fn send_request_text(text: &[u8]) -> Option<Result<SendRequest, A2aError>> {
    strict(text).map(read_send)
}

fn read_send(request: v1::SendMessageRequest) -> Result<SendRequest, A2aError> {
    let configuration = request.configuration.unwrap_or_default();
    let message = request
        .message
        .into_model("message")
        .map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    Ok(SendRequest {
        message,
        history_length: configuration.history_length,
        return_immediately: configuration.return_immediately,
        message_reply: true,
        version: a2a_runtime_types::model::A2aVersion::V1_0,
        binding: a2a_runtime_types::model::Binding::JsonRpc,
        push_config: configuration
            .task_push_notification_config
            .map(|config| {
                let field = "configuration.taskPushNotificationConfig";
                PushRegistration::read(field, push::v1::config_in(config, field), PushWire::V1)
            })
            .transpose()?,
    })
}

/// Reads a 1.0 Create request for task `task_id` (`None`: the request names it).
pub fn push_registration(raw: Value) -> Result<(String, PushRegistration), A2aError> {
    let input = push::v1::config_in(raw, "").map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    let task_id = input
        .task_id
        .clone()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| A2aError::invalid_params("taskId", "is required"))?;
    Ok((
        task_id,
        PushRegistration {
            field: String::new(),
            input,
            wire: PushWire::V1,
            default_id: None,
        },
    ))
}

/// Reads a 1.0 `ListTasksRequest`.
pub fn list_request(request: v1::ListTasksRequest) -> Result<ListTasksRequest, A2aError> {
    list_request_with(request, v1::parse_state)
}

/// Reads a `ListTasksRequest` whose `status` names states the way `parse_state` reads them
/// (0.3's ProtoJSON has the same fields, and its own state names).
pub fn list_request_with(
    request: v1::ListTasksRequest,
    parse_state: fn(&str) -> Option<TaskState>,
) -> Result<ListTasksRequest, A2aError> {
    let state = match request.status.as_deref() {
        None | Some("" | "TASK_STATE_UNSPECIFIED") => None,
        Some(name) => Some(parse_state(name).ok_or_else(|| {
            A2aError::invalid_params(
                "status",
                format!("`{name}` is not a TaskState (expected a name like TASK_STATE_WORKING)"),
            )
        })?),
    };
    let status_after = request
        .status_timestamp_after
        .as_deref()
        .map(|ts| parse_timestamp("statusTimestampAfter", ts))
        .transpose()?;
    Ok(ListTasksRequest {
        context_id: request.context_id,
        state,
        page_size: request.page_size,
        page_token: request.page_token,
        history_length: request.history_length,
        status_after,
        include_artifacts: request.include_artifacts,
    })
}

/// A page of tasks as a 1.0 `ListTasksResponse`.
pub fn list_response(list: &TaskList) -> v1::ListTasksResponse<'_> {
    v1::ListTasksResponse {
        tasks: list.tasks.iter().map(Into::into).collect(),
        next_page_token: list.next_page_token.clone(),
        page_size: list.page_size,
        total_size: list.total_size,
    }
}

/// A stream item as a 1.0 `StreamResponse`.
pub fn stream_response(item: &StreamItem) -> v1::StreamResponse<'_> {
    match item {
        StreamItem::Snapshot(task) => v1::StreamResponse::Task(task.as_ref().into()),
        StreamItem::Event(event) => v1::StreamResponse::from(event.as_ref()),
        StreamItem::Message(message) => v1::StreamResponse::Message(message.as_ref().into()),
    }
}

/// What a blocking send answers, as a 1.0 `SendMessageResponse`.
pub fn send_response(sent: &Sent) -> v1::SendMessageResponse<'_> {
    match sent {
        Sent::Task(view) => v1::SendMessageResponse::Task(view.into()),
        Sent::Message(message) => v1::SendMessageResponse::Message(message.as_ref().into()),
    }
}
