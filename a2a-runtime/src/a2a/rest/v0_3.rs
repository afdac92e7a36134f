//! The A2A 0.3 HTTP+JSON routes (`/v1/…`), whose bodies are the ProtoJSON of the 0.3 proto.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{Reply, Request, respond, split_verb};
use crate::a2a::decode::params;
use crate::a2a::service::{ListTasksRequest, SendRequest};
use crate::a2a::{A2aError, A2aService, Version};
use crate::protocol::a2a::v0_3;
use crate::task::{StreamItem, ends_stream};

type Service = State<Arc<A2aService>>;
type Body = Result<Bytes, BytesRejection>;

pub(super) fn routes() -> Router<Arc<A2aService>> {
    Router::new()
        .route("/message:send", post(send))
        .route("/message:stream", post(stream))
        .route("/tasks", get(list))
        .route("/tasks/{task}", get(task).post(task))
        .route(
            "/tasks/{task}/pushNotificationConfigs",
            get(push_config).post(push_config),
        )
        .route(
            "/tasks/{task}/pushNotificationConfigs/{config}",
            get(push_config).delete(push_config),
        )
        .route("/card", get(extended_card))
}

fn json_reply(value: &Value) -> Reply {
    Reply::Json(serde_json::to_vec(value).unwrap_or_default())
}

fn send_request(body: Value) -> Result<SendRequest, A2aError> {
    let request: v0_3::ProtoSendMessageRequest = params(body)?;
    let configuration = request.configuration.unwrap_or_default();
    let message = v0_3::proto_message_in(&request.message, "message")
        .map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    Ok(SendRequest {
        message,
        history_length: configuration.history_length,
        return_immediately: !configuration.blocking,
        push_config: configuration.push_notification.is_some(),
    })
}

fn frames() -> crate::a2a::sse::Frames {
    Box::new(|item: &StreamItem| {
        let value = match item {
            StreamItem::Snapshot(task) => json!({ "task": v0_3::proto_task_out(task) }),
            StreamItem::Event(event) => {
                let last = event.state().is_some_and(ends_stream);
                v0_3::proto_event_out(event, last)
            }
        };
        vec![serde_json::to_vec(&value).unwrap_or_default()]
    })
}

async fn send(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        let task = service.send(send_request(request.json()?)?).await?;
        Ok(json_reply(&json!({ "task": v0_3::proto_task_out(&task) })))
    };
    respond(&service, reply.await)
}

async fn stream(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        let streamed = service
            .send_streaming(send_request(request.json()?)?)
            .await?;
        Ok(Reply::Stream(streamed.events, frames()))
    };
    respond(&service, reply.await)
}

async fn list(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        let state = request
            .text("status")
            .filter(|s| !s.is_empty() && s != "TASK_STATE_UNSPECIFIED")
            .map(|name| {
                v0_3::parse_state(&name).ok_or_else(|| {
                    A2aError::invalid_params("status", format!("`{name}` is not a TaskState"))
                })
            })
            .transpose()?;
        let status_after = request
            .text("statusTimestampAfter")
            .map(|ts| crate::a2a::service::parse_timestamp("statusTimestampAfter", &ts))
            .transpose()?;
        let list = service
            .list_tasks(ListTasksRequest {
                context_id: request.text("contextId"),
                state,
                page_size: request.integer("pageSize")?,
                page_token: request.text("pageToken"),
                history_length: request.integer("historyLength")?,
                status_after,
                include_artifacts: request.boolean("includeArtifacts")?,
            })
            .await?;
        Ok(json_reply(&json!({
            "tasks": list.tasks.iter().map(v0_3::proto_task_out).collect::<Vec<_>>(),
            "nextPageToken": list.next_page_token,
            "pageSize": list.page_size,
            "totalSize": list.total_size,
        })))
    };
    respond(&service, reply.await)
}

/// `GET /v1/tasks/{id}`, `GET|POST /v1/tasks/{id}:subscribe`, `POST /v1/tasks/{id}:cancel`.
async fn task(
    State(service): Service,
    Path(path): Path<HashMap<String, String>>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        let segment = path.get("task").map(String::as_str).unwrap_or_default();
        match (method, split_verb(segment)) {
            (Method::GET, (id, None)) => {
                let task = service
                    .get_task(id, request.integer("historyLength")?)
                    .await?;
                Ok(json_reply(&v0_3::proto_task_out(&task)))
            }
            (Method::POST, (id, Some("cancel"))) => {
                let task = service.cancel_task(id).await?;
                Ok(json_reply(&v0_3::proto_task_out(&task)))
            }
            (_, (id, Some("subscribe"))) => {
                let events = service.subscribe(id).await?;
                Ok(Reply::Stream(events, frames()))
            }
            (method, _) => Err(A2aError::MethodNotFound {
                message: format!(
                    "no A2A 0.3 operation is {method} {}; tasks are read with \
                     GET /v1/tasks/{{id}}, canceled with POST /v1/tasks/{{id}}:cancel and \
                     followed with GET /v1/tasks/{{id}}:subscribe",
                    uri.path()
                ),
            }),
        }
    };
    respond(&service, reply.await)
}

async fn push_config(
    State(service): Service,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let reply = async {
        Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        Err(service.push_notification_config())
    };
    respond(&service, reply.await)
}

async fn extended_card(
    State(service): Service,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let reply = async {
        Request::read(&service, Version::V0_3, &headers, &uri, body)?;
        Err(service.extended_agent_card())
    };
    respond(&service, reply.await)
}
