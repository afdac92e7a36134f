//! A2A 0.3 JSON-RPC methods (slash names, `kind` shapes, lower-case states, `final` on stream
//! events) over the shared service.

use serde_json::Value;

use super::{Reply, envelope_frames};
use crate::decode::params;
use crate::push::PushRegistration;
use crate::service::{SendRequest, Sent};
use crate::{A2aError, A2aService};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::StreamItem;
use a2a_runtime_types::model::PushWire;
use a2a_runtime_types::protocol::a2a::push;
use a2a_runtime_types::protocol::a2a::v0_3::{self, Tag};
use a2a_runtime_types::protocol::jsonrpc;

/// 0.3 methods and their 1.0 names.
const METHODS: &[(&str, &str)] = &[
    ("message/send", "SendMessage"),
    ("message/stream", "SendStreamingMessage"),
    ("tasks/get", "GetTask"),
    ("tasks/cancel", "CancelTask"),
    ("tasks/resubscribe", "SubscribeToTask"),
    (
        "tasks/pushNotificationConfig/set",
        "CreateTaskPushNotificationConfig",
    ),
    (
        "tasks/pushNotificationConfig/get",
        "GetTaskPushNotificationConfig",
    ),
    (
        "tasks/pushNotificationConfig/list",
        "ListTaskPushNotificationConfigs",
    ),
    (
        "tasks/pushNotificationConfig/delete",
        "DeleteTaskPushNotificationConfig",
    ),
    ("agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"),
];

/// The 1.0 name of a 0.3 method.
pub(crate) fn v1_name(method: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .find(|(old, _)| *old == method)
        .map(|(_, new)| *new)
}

fn send_request(raw: Value) -> Result<SendRequest, A2aError> {
    let request: v0_3::MessageSendParams = params(raw)?;
    let configuration = request.configuration.unwrap_or_default();
    let message = v0_3::message_in(&request.message, Tag::Kind, "message")
        .map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    Ok(SendRequest {
        message,
        history_length: configuration.history_length,
        return_immediately: configuration.blocking == Some(false),
        message_reply: true,
        version: a2a_runtime_types::model::A2aVersion::V0_3,
        binding: a2a_runtime_types::model::Binding::JsonRpc,
        push_config: configuration
            .push_notification_config
            .map(|config| {
                let field = "configuration.pushNotificationConfig";
                PushRegistration::read(field, push::v0_3::config_in(config, field), PushWire::V0_3)
            })
            .transpose()?,
    })
}

/// A 0.3 config without an id gets its task's id, as the 0.3 SDKs did (so `get` without
/// `pushNotificationConfigId` finds it).
fn set_request(raw: Value) -> Result<(String, PushRegistration), A2aError> {
    let input = push::v0_3::set_in(raw).map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    let task_id = input
        .task_id
        .clone()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| A2aError::invalid_params("taskId", "is required"))?;
    Ok((
        task_id.clone(),
        PushRegistration {
            field: "pushNotificationConfig".to_owned(),
            input,
            wire: PushWire::V0_3,
            default_id: Some(task_id),
        },
    ))
}

/// A stream item in 0.3: the task first (`kind: "task"`), then events with `final` on the one
/// that ends the stream.
pub fn stream_result(item: &StreamItem) -> Value {
    match item {
        StreamItem::Snapshot(task) => v0_3::task_out(task),
        StreamItem::Event(event) => {
            let last = event
                .state()
                .is_some_and(a2a_runtime_core::task::ends_stream);
            v0_3::event_out(event, last)
        }
        StreamItem::Message(message) => v0_3::message_out(message, Tag::Kind),
    }
}

/// Whether `method` answers with an event stream in 0.3.
pub(super) fn streams(method: &str) -> bool {
    matches!(method, "message/stream" | "tasks/resubscribe")
}

pub(super) async fn call(
    service: &A2aService,
    caller: &CallerId,
    id: &Value,
    method: &str,
    raw: Value,
) -> Result<Reply, A2aError> {
    if method.starts_with("tasks/pushNotificationConfig/") {
        service.push()?;
    }
    let result = match method {
        // 0.3 results are the bare Task, told apart from a Message by `kind`.
        "message/send" => match service.send(send_request(raw)?, caller).await? {
            Sent::Task(view) => v0_3::task_out(&view.into_task()),
            Sent::Message(message) => v0_3::message_out(&message, Tag::Kind),
        },
        "message/stream" => {
            let events = service
                .send_streaming(send_request(raw)?, caller)
                .await?
                .events;
            return Ok(Reply::Stream(
                events,
                envelope_frames(id, |i| vec![stream_result(i)]),
            ));
        }
        "tasks/resubscribe" => {
            let request: v0_3::TaskIdParams = params(raw)?;
            let events = service.subscribe(&request.id, caller).await?;
            return Ok(Reply::Stream(
                events,
                envelope_frames(id, |i| vec![stream_result(i)]),
            ));
        }
        "tasks/get" => {
            let request: v0_3::TaskQueryParams = params(raw)?;
            v0_3::task_out(
                &service
                    .get_task(&request.id, request.history_length, caller)
                    .await?,
            )
        }
        "tasks/cancel" => {
            let request: v0_3::TaskIdParams = params(raw)?;
            v0_3::task_out(&service.cancel_task(&request.id, caller).await?)
        }
        "tasks/pushNotificationConfig/set" => {
            let (task_id, registration) = set_request(raw)?;
            let config = service
                .create_push_config(&task_id, registration, caller)
                .await?;
            push::v0_3::config_out(&task_id, &config)
        }
        "tasks/pushNotificationConfig/get" => {
            let request: push::v0_3::ConfigRef = params(raw)?;
            let config = match request
                .push_notification_config_id
                .filter(|c| !c.is_empty())
            {
                Some(config_id) => {
                    service
                        .get_push_config(&request.id, &config_id, caller)
                        .await?
                }
                // The config registered without an id (it has the task's), else the first.
                None => {
                    let configs = service.all_push_configs(&request.id, caller).await?;
                    let position = configs.iter().position(|c| c.id == request.id);
                    configs
                        .into_iter()
                        .nth(position.unwrap_or(0))
                        .ok_or_else(|| {
                            A2aError::invalid_params(
                                "id",
                                format!("task `{}` has no push config", request.id),
                            )
                        })?
                }
            };
            push::v0_3::config_out(&request.id, &config)
        }
        "tasks/pushNotificationConfig/list" => {
            let request: v0_3::TaskIdParams = params(raw)?;
            let configs = service.all_push_configs(&request.id, caller).await?;
            Value::Array(
                configs
                    .iter()
                    .map(|c| push::v0_3::config_out(&request.id, c))
                    .collect(),
            )
        }
        "tasks/pushNotificationConfig/delete" => {
            let request: push::v0_3::ConfigRef = params(raw)?;
            let config_id = request
                .push_notification_config_id
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    A2aError::invalid_params("pushNotificationConfigId", "is required")
                })?;
            service
                .delete_push_config(&request.id, &config_id, caller)
                .await?;
            Value::Null
        }
        "agent/getAuthenticatedExtendedCard" => {
            Value::clone(&*service.extended_agent_card(caller)?)
        }
        other => {
            let message = match super::v1::serves(other).then_some(other) {
                Some(v1) => format!(
                    "`{v1}` is an A2A 1.0 method and this request speaks A2A 0.3; send \
                     `A2A-Version: 1.0` to use it"
                ),
                None => format!(
                    "method `{other}` not found; A2A 0.3 methods are {}",
                    METHODS
                        .iter()
                        .map(|(m, _)| *m)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(A2aError::MethodNotFound { message });
        }
    };
    Ok(Reply::Json(jsonrpc::success(id, result)))
}
