//! The A2A 0.3 HTTP+JSON dialect (`/v1/…`), whose bodies are the ProtoJSON of the 0.3 proto.

use serde_json::{Value, json};

use super::Request;
use super::handlers::Dialect;
use crate::decode::params;
use crate::push::{PushConfigPage, PushRegistration};
use crate::service::{ListTasksRequest, SendRequest, Sent, TaskList};
use crate::v1::list_request_with;
use crate::{A2aError, Version};
use a2a_runtime_core::task::{StreamItem, ends_stream};
use a2a_runtime_types::model::{PushConfig, PushWire, Task};
use a2a_runtime_types::protocol::a2a::{push, v0_3};

/// A2A 0.3 over HTTP+JSON.
pub(super) struct V0_3;

fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

impl Dialect for V0_3 {
    const VERSION: Version = Version::V0_3;
    const TASKS: &'static str = "/v1/tasks";
    const EXTENDED_CARD: &'static str = "/card";

    fn send_request(request: &Request) -> Result<SendRequest, A2aError> {
        let request: v0_3::ProtoSendMessageRequest = params(request.json()?)?;
        let configuration = request.configuration.unwrap_or_default();
        let message = v0_3::proto_message_in(&request.message, "message")
            .map_err(|(f, r)| A2aError::invalid_params(f, r))?;
        Ok(SendRequest {
            message,
            history_length: configuration.history_length,
            return_immediately: !configuration.blocking,
            message_reply: true,
            version: a2a_runtime_types::model::A2aVersion::V0_3,
            binding: a2a_runtime_types::model::Binding::HttpJson,
            push_config: configuration
                .push_notification
                .map(|config| {
                    let field = "configuration.pushNotification";
                    PushRegistration::read(
                        field,
                        push::v0_3::config_in(config, field),
                        PushWire::V0_3,
                    )
                })
                .transpose()?,
        })
    }

    /// The same query parameters as 1.0; states by their 0.3 names.
    fn list_request(request: &Request) -> Result<ListTasksRequest, A2aError> {
        list_request_with(request.list_query()?, v0_3::parse_state)
    }

    fn send_response(sent: &Sent) -> Vec<u8> {
        bytes(&match sent {
            Sent::Task(view) => json!({ "task": v0_3::proto_task_out(&view.to_task()) }),
            // The 0.3 proto's `msg` field, whose JSON name is `message`.
            Sent::Message(message) => json!({ "message": v0_3::proto_message_out(message) }),
        })
    }

    fn task(task: &Task) -> Vec<u8> {
        bytes(&v0_3::proto_task_out(task))
    }

    fn list_response(list: &TaskList) -> Vec<u8> {
        bytes(&json!({
            "tasks": list.tasks.iter().map(v0_3::proto_task_out).collect::<Vec<_>>(),
            "nextPageToken": list.next_page_token,
            "pageSize": list.page_size,
            "totalSize": list.total_size,
        }))
    }

    fn push_registration(task_id: &str, body: Value) -> Result<PushRegistration, A2aError> {
        let field = "pushNotificationConfig";
        let parsed = push::v0_3::proto_config_in(body);
        Ok(PushRegistration {
            default_id: Some(task_id.to_owned()),
            ..PushRegistration::read(field, parsed, PushWire::V0_3)?
        })
    }

    fn push_config(task_id: &str, config: &PushConfig) -> Vec<u8> {
        bytes(&push::v0_3::proto_config_out(task_id, config))
    }

    fn push_configs(task_id: &str, page: &PushConfigPage) -> Vec<u8> {
        bytes(&json!({
            "configs": page
                .configs
                .iter()
                .map(|c| push::v0_3::proto_config_out(task_id, c))
                .collect::<Vec<_>>(),
            "nextPageToken": page.next_page_token,
        }))
    }

    fn frame(item: &StreamItem) -> Vec<u8> {
        bytes(&match item {
            StreamItem::Snapshot(task) => json!({ "task": v0_3::proto_task_out(task) }),
            StreamItem::Event(event) => {
                let last = event.state().is_some_and(ends_stream);
                v0_3::proto_event_out(event, last)
            }
            StreamItem::Message(message) => {
                json!({ "message": v0_3::proto_message_out(message) })
            }
        })
    }
}
