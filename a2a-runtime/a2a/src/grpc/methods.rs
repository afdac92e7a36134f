//! The eleven methods of `A2AService`: each reads its proto request into the service's terms,
//! calls [`A2aService`] as the JSON bindings do, and answers the proto response.

use a2a_runtime_core::task::{StreamItem, TaskEvents};
use a2a_runtime_types::model::{A2aVersion, Binding, PushWire};
use a2a_runtime_types::protocol::a2a::grpc::card::AgentCard;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use a2a_runtime_types::protocol::a2a::grpc::{convert, push};
use futures::StreamExt as _;

use super::Call;
use crate::A2aError;
use crate::push::PushRegistration;
use crate::service::{ListTasksRequest, SendRequest, Sent};

/// A field error of the conversions as the service's.
fn invalid((field, reason): (String, String)) -> A2aError {
    A2aError::invalid_params(field, reason)
}

/// `field`, required: empty is an error naming it.
fn required(value: String, field: &str) -> Result<String, A2aError> {
    if value.is_empty() {
        return Err(A2aError::invalid_params(field, "is required"));
    }
    Ok(value)
}

fn send_request(request: wire::SendMessageRequest) -> Result<SendRequest, A2aError> {
    let message = request
        .message
        .ok_or_else(|| A2aError::invalid_params("message", "is required"))?;
    let message = convert::message_in(message, "message").map_err(invalid)?;
    let configuration = request.configuration.unwrap_or_default();
    let push_config = configuration
        .task_push_notification_config
        .map(|config| {
            let field = "configuration.task_push_notification_config";
            PushRegistration::read(field, Ok(push::config_in(config)), PushWire::V1)
        })
        .transpose()?;
    Ok(SendRequest {
        message,
        history_length: configuration.history_length.map(i64::from),
        return_immediately: configuration.return_immediately,
        push_config,
        message_reply: true,
        version: A2aVersion::V1_0,
        binding: Binding::Grpc,
    })
}

/// `SendMessage`.
pub(super) async fn send(
    call: Call,
    request: wire::SendMessageRequest,
) -> Result<wire::SendMessageResponse, A2aError> {
    let payload = match call
        .service
        .send(send_request(request)?, &call.caller)
        .await?
    {
        Sent::Task(view) => wire::SendMessagePayload::Task(convert::task(&view.into_task())),
        Sent::Message(message) => wire::SendMessagePayload::Message(convert::message(&message)),
    };
    Ok(wire::SendMessageResponse {
        payload: Some(payload),
    })
}

/// `SendStreamingMessage`.
pub(super) async fn send_streaming(
    call: Call,
    request: wire::SendMessageRequest,
) -> Result<TaskEvents, A2aError> {
    let streamed = call
        .service
        .send_streaming(send_request(request)?, &call.caller)
        .await?;
    Ok(streamed.events)
}

/// `SubscribeToTask`.
pub(super) async fn subscribe(
    call: Call,
    request: wire::SubscribeToTaskRequest,
) -> Result<TaskEvents, A2aError> {
    call.service
        .subscribe(&required(request.id, "id")?, &call.caller)
        .await
}

/// One item of a stream as the proto's `StreamResponse`.
pub(super) fn stream_response(item: &StreamItem) -> wire::StreamResponse {
    let payload = match item {
        StreamItem::Snapshot(task) => wire::StreamPayload::Task(convert::task(task)),
        StreamItem::Event(event) => convert::event(event),
        StreamItem::Message(message) => wire::StreamPayload::Message(convert::message(message)),
    };
    wire::StreamResponse {
        payload: Some(payload),
    }
}

/// The events of a stream as `StreamResponse`s.
pub(super) fn responses(
    events: TaskEvents,
) -> impl futures::Stream<Item = Result<wire::StreamResponse, tonic::Status>> + Send {
    events.map(|item| Ok(stream_response(&item)))
}

/// `GetTask`.
pub(super) async fn get_task(
    call: Call,
    request: wire::GetTaskRequest,
) -> Result<wire::Task, A2aError> {
    let id = required(request.id, "id")?;
    let history = request.history_length.map(i64::from);
    let task = call.service.get_task(&id, history, &call.caller).await?;
    Ok(convert::task(&task))
}

/// `ListTasks`.
pub(super) async fn list_tasks(
    call: Call,
    request: wire::ListTasksRequest,
) -> Result<wire::ListTasksResponse, A2aError> {
    let state = match request.status {
        0 => None,
        number => Some(convert::state_in(number).ok_or_else(|| {
            A2aError::invalid_params("status", format!("{number} is not a TaskState"))
        })?),
    };
    let status_after = request
        .status_timestamp_after
        .map(|at| convert::timestamp_in(&at, "status_timestamp_after"))
        .transpose()
        .map_err(invalid)?;
    let list = ListTasksRequest {
        context_id: Some(request.context_id).filter(|c| !c.is_empty()),
        state,
        page_size: request.page_size.map(i64::from),
        page_token: Some(request.page_token).filter(|t| !t.is_empty()),
        history_length: request.history_length.map(i64::from),
        status_after,
        include_artifacts: request.include_artifacts.unwrap_or(false),
    };
    let page = call.service.list_tasks(list, &call.caller).await?;
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    Ok(wire::ListTasksResponse {
        tasks: page.tasks.iter().map(convert::task).collect(),
        next_page_token: page.next_page_token,
        page_size: count(page.page_size),
        total_size: count(page.total_size),
    })
}

/// `CancelTask`.
pub(super) async fn cancel_task(
    call: Call,
    request: wire::CancelTaskRequest,
) -> Result<wire::Task, A2aError> {
    let task = call
        .service
        .cancel_task(&required(request.id, "id")?, &call.caller)
        .await?;
    Ok(convert::task(&task))
}

/// `CreateTaskPushNotificationConfig`.
pub(super) async fn create_push_config(
    call: Call,
    request: wire::TaskPushNotificationConfig,
) -> Result<wire::TaskPushNotificationConfig, A2aError> {
    call.service.push()?;
    let task_id = required(request.task_id.clone(), "task_id")?;
    let registration = PushRegistration::read("", Ok(push::config_in(request)), PushWire::V1)?;
    let config = call
        .service
        .create_push_config(&task_id, registration, &call.caller)
        .await?;
    Ok(push::config_out(&task_id, &config))
}

/// `GetTaskPushNotificationConfig`.
pub(super) async fn get_push_config(
    call: Call,
    request: wire::TaskPushNotificationConfigRef,
) -> Result<wire::TaskPushNotificationConfig, A2aError> {
    call.service.push()?;
    let task_id = required(request.task_id, "task_id")?;
    let id = required(request.id, "id")?;
    let config = call
        .service
        .get_push_config(&task_id, &id, &call.caller)
        .await?;
    Ok(push::config_out(&task_id, &config))
}

/// `ListTaskPushNotificationConfigs`.
pub(super) async fn list_push_configs(
    call: Call,
    request: wire::ListTaskPushNotificationConfigsRequest,
) -> Result<wire::ListTaskPushNotificationConfigsResponse, A2aError> {
    call.service.push()?;
    let task_id = required(request.task_id, "task_id")?;
    let page_size = Some(i64::from(request.page_size)).filter(|size| *size != 0);
    let token = Some(request.page_token).filter(|t| !t.is_empty());
    let page = call
        .service
        .list_push_configs(&task_id, page_size, token.as_deref(), &call.caller)
        .await?;
    Ok(wire::ListTaskPushNotificationConfigsResponse {
        configs: page
            .configs
            .iter()
            .map(|config| push::config_out(&task_id, config))
            .collect(),
        next_page_token: page.next_page_token,
    })
}

/// `DeleteTaskPushNotificationConfig`.
pub(super) async fn delete_push_config(
    call: Call,
    request: wire::TaskPushNotificationConfigRef,
) -> Result<(), A2aError> {
    call.service.push()?;
    let task_id = required(request.task_id, "task_id")?;
    let id = required(request.id, "id")?;
    call.service
        .delete_push_config(&task_id, &id, &call.caller)
        .await
}

/// `GetExtendedAgentCard`: the card the JSON bindings serve, read into the proto's.
pub(super) async fn extended_card(
    call: Call,
    _request: wire::GetExtendedAgentCardRequest,
) -> Result<AgentCard, A2aError> {
    let card = call.service.extended_agent_card(&call.caller)?;
    AgentCard::from_json(card.as_ref().clone())
        .map_err(|e| A2aError::Internal(format!("the extended card does not fit the proto: {e}")))
}
