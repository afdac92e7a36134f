//! The A2A 1.0 HTTP+JSON dialect: the ProtoJSON of the 1.0 proto, shared with 1.0 JSON-RPC.

use a2a_runtime_types::model::Binding;
use serde_json::Value;

use super::Request;
use super::handlers::Dialect;
use crate::push::{PushConfigPage, PushRegistration};
use crate::service::{ListTasksRequest, SendRequest, Sent, TaskList};
use crate::v1::{
    list_request, list_response, send_request, send_request_text, send_response, stream_response,
};
use crate::{A2aError, Version};
use a2a_runtime_core::task::StreamItem;
use a2a_runtime_types::model::{PushConfig, PushWire, Task};
use a2a_runtime_types::protocol::a2a::{push, v1};

/// A2A 1.0 over HTTP+JSON.
pub(super) struct V1;

fn bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

impl Dialect for V1 {
    const VERSION: Version = Version::V1_0;
    const TASKS: &'static str = "/tasks";
    const EXTENDED_CARD: &'static str = "/extendedAgentCard";

    fn send_request(request: &Request) -> Result<SendRequest, A2aError> {
        let read = match send_request_text(request.body()) {
            Some(read) => read,
            None => send_request(request.json()?),
        };
        read.map(|request| SendRequest {
            binding: Binding::HttpJson,
            ..request
        })
    }

    fn list_request(request: &Request) -> Result<ListTasksRequest, A2aError> {
        list_request(request.list_query()?)
    }

    fn send_response(sent: &Sent) -> Vec<u8> {
        bytes(&send_response(sent))
    }

    fn task(task: &Task) -> Vec<u8> {
        bytes(&v1::TaskOut::from(task))
    }

    fn list_response(list: &TaskList) -> Vec<u8> {
        bytes(&list_response(list))
    }

    fn frame(item: &StreamItem) -> Vec<u8> {
        bytes(&stream_response(item))
    }

    fn push_registration(_task_id: &str, body: Value) -> Result<PushRegistration, A2aError> {
        PushRegistration::read("", push::v1::config_in(body, ""), PushWire::V1)
    }

    fn push_config(task_id: &str, config: &PushConfig) -> Vec<u8> {
        bytes(&push::v1::config_out(task_id, config))
    }

    fn push_configs(task_id: &str, page: &PushConfigPage) -> Vec<u8> {
        bytes(&push::v1::list_out(
            task_id,
            &page.configs,
            &page.next_page_token,
        ))
    }
}
