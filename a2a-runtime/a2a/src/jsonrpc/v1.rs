//! A2A 1.0 JSON-RPC methods (PascalCase) over the shared service.

use serde_json::Value;

use super::{Params, Reply};
use crate::decode::params;
use crate::service::SendRequest;
use crate::v1::{
    list_request, list_response, push_registration, send_request, send_request_text, send_response,
    stream_response,
};
use crate::{A2aError, A2aService};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_types::protocol::a2a::v1::METHODS;
use a2a_runtime_types::protocol::a2a::{push, v1};
use a2a_runtime_types::protocol::jsonrpc;

/// `method`, if it is an A2A 1.0 method.
pub(crate) fn name(method: &str) -> Option<&'static str> {
    METHODS.iter().copied().find(|known| *known == method)
}

/// Whether `method` is an A2A 1.0 method.
pub(super) fn serves(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Runs one method; results are serialized here because they borrow from the task.
pub(super) async fn call(
    service: &A2aService,
    caller: &CallerId,
    id: &Value,
    method: &str,
    sent: Params<'_>,
) -> Result<Reply, A2aError> {
    if method.contains("PushNotificationConfig") {
        service.push()?;
    }
    match method {
        "SendMessage" => {
            let sent = service.send(read_send(sent)?, caller).await?;
            return Ok(Reply::Json(jsonrpc::success(id, send_response(&sent))));
        }
        "SendStreamingMessage" => {
            let events = service
                .send_streaming(read_send(sent)?, caller)
                .await?
                .events;
            return Ok(Reply::Stream(events, frames(id)));
        }
        _ => {}
    }
    let raw = lenient(sent.into_value()?);
    let json = match method {
        "SubscribeToTask" => {
            let request: v1::SubscribeToTaskRequest = params(raw)?;
            let events = service.subscribe(&request.id, caller).await?;
            return Ok(Reply::Stream(events, frames(id)));
        }
        "GetTask" => {
            let request: v1::GetTaskRequest = params(raw)?;
            let task = service
                .get_task(&request.id, request.history_length, caller)
                .await?;
            jsonrpc::success(id, v1::TaskOut::from(&task))
        }
        "ListTasks" => {
            let list = service
                .list_tasks(list_request(params(raw)?)?, caller)
                .await?;
            jsonrpc::success(id, list_response(&list))
        }
        "CancelTask" => {
            let request: v1::CancelTaskRequest = params(raw)?;
            let task = service.cancel_task(&request.id, caller).await?;
            jsonrpc::success(id, v1::TaskOut::from(&task))
        }
        "CreateTaskPushNotificationConfig" => {
            let (task_id, registration) = push_registration(raw)?;
            let config = service
                .create_push_config(&task_id, registration, caller)
                .await?;
            jsonrpc::success(id, push::v1::config_out(&task_id, &config))
        }
        "GetTaskPushNotificationConfig" => {
            let request: push::v1::ConfigRef = params(raw)?;
            let config = service
                .get_push_config(&request.task_id, &request.id, caller)
                .await?;
            jsonrpc::success(id, push::v1::config_out(&request.task_id, &config))
        }
        "ListTaskPushNotificationConfigs" => {
            let request: push::v1::ListRequest = params(raw)?;
            let page = service
                .list_push_configs(
                    &request.task_id,
                    request.page_size,
                    request.page_token.as_deref(),
                    caller,
                )
                .await?;
            let list = push::v1::list_out(&request.task_id, &page.configs, &page.next_page_token);
            jsonrpc::success(id, list)
        }
        "DeleteTaskPushNotificationConfig" => {
            let request: push::v1::ConfigRef = params(raw)?;
            service
                .delete_push_config(&request.task_id, &request.id, caller)
                .await?;
            jsonrpc::success(id, Value::Null)
        }
        "GetExtendedAgentCard" => {
            jsonrpc::success(id, service.extended_agent_card(caller)?.as_ref())
        }
        other => return Err(method_not_found(other)),
    };
    Ok(Reply::Json(json))
}

/// A send's params: strict ProtoJSON in one typed pass, anything else through the lenient tree.
fn read_send(sent: Params<'_>) -> Result<SendRequest, A2aError> {
    if let Params::Raw(Some(text)) = &sent
        && let Some(read) = send_request_text(text.get().as_bytes())
    {
        return read;
    }
    send_request(lenient(sent.into_value()?))
}

/// Params are the proto messages' JSON: read as ProtoJSON readers read them.
fn lenient(params: Value) -> Value {
    a2a_runtime_types::protocol::a2a::proto_json::lenient(params)
}

fn frames(id: &Value) -> crate::sse::Frames {
    let id = id.clone();
    Box::new(move |item| vec![jsonrpc::success(&id, stream_response(item))])
}

fn method_not_found(method: &str) -> A2aError {
    let hint = match super::v0_3::v1_name(method) {
        Some(v1) => format!(
            "`{method}` is an A2A 0.3 method and this request asked for A2A 1.0 (A2A-Version: \
             1.0); the 1.0 method is `{v1}`"
        ),
        None => format!(
            "method `{method}` not found; A2A 1.0 methods are {}",
            METHODS.join(", ")
        ),
    };
    A2aError::MethodNotFound { message: hint }
}
