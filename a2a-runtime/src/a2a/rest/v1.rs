//! The A2A 1.0 HTTP+JSON routes.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::{get, post};

use super::{Reply, Request, respond, split_verb};
use crate::a2a::service::ListTasksRequest;
use crate::a2a::v1::{list_request, list_response, send_request, stream_response};
use crate::a2a::{A2aError, A2aService, Version};
use crate::protocol::a2a::v1;
use crate::task::StreamItem;

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
        .route("/extendedAgentCard", get(extended_card))
}

fn json<T: serde::Serialize>(value: &T) -> Reply {
    Reply::Json(serde_json::to_vec(value).unwrap_or_default())
}

fn frames() -> crate::a2a::sse::Frames {
    Box::new(|item: &StreamItem| {
        vec![serde_json::to_vec(&stream_response(item)).unwrap_or_default()]
    })
}

async fn send(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V1_0, &headers, &uri, body)?;
        let task = service.send(send_request(request.json()?)?).await?;
        Ok(json(&v1::SendMessageResponse::Task((&task).into())))
    };
    respond(&service, reply.await)
}

async fn stream(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V1_0, &headers, &uri, body)?;
        let streamed = service
            .send_streaming(send_request(request.json()?)?)
            .await?;
        Ok(Reply::Stream(streamed.events, frames()))
    };
    respond(&service, reply.await)
}

async fn list(State(service): Service, headers: HeaderMap, uri: Uri, body: Body) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V1_0, &headers, &uri, body)?;
        let wire = v1::ListTasksRequest {
            context_id: request.text("contextId"),
            status: request.text("status"),
            page_size: request.integer("pageSize")?,
            page_token: request.text("pageToken"),
            history_length: request.integer("historyLength")?,
            status_timestamp_after: request.text("statusTimestampAfter"),
            include_artifacts: request.boolean("includeArtifacts")?,
        };
        let query: ListTasksRequest = list_request(wire)?;
        let list = service.list_tasks(query).await?;
        Ok(json(&list_response(&list)))
    };
    respond(&service, reply.await)
}

/// `GET /tasks/{id}`, `GET|POST /tasks/{id}:subscribe`, `POST /tasks/{id}:cancel`.
async fn task(
    State(service): Service,
    Path(path): Path<HashMap<String, String>>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let reply = async {
        let request = Request::read(&service, Version::V1_0, &headers, &uri, body)?;
        let segment = path.get("task").map(String::as_str).unwrap_or_default();
        match (method, split_verb(segment)) {
            (Method::GET, (id, None)) => {
                let task = service
                    .get_task(id, request.integer("historyLength")?)
                    .await?;
                Ok(json(&v1::TaskOut::from(&task)))
            }
            (Method::POST, (id, Some("cancel"))) => {
                let task = service.cancel_task(id).await?;
                Ok(json(&v1::TaskOut::from(&task)))
            }
            // The proto says GET, the prose and most SDKs POST: both are served.
            (_, (id, Some("subscribe"))) => {
                let events = service.subscribe(id).await?;
                Ok(Reply::Stream(events, frames()))
            }
            (method, _) => Err(A2aError::MethodNotFound {
                message: format!(
                    "no A2A operation is {method} {}; tasks are read with GET /tasks/{{id}}, \
                     canceled with POST /tasks/{{id}}:cancel and followed with \
                     POST /tasks/{{id}}:subscribe",
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
        Request::read(&service, Version::V1_0, &headers, &uri, body)?;
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
        Request::read(&service, Version::V1_0, &headers, &uri, body)?;
        Err(service.extended_agent_card())
    };
    respond(&service, reply.await)
}
