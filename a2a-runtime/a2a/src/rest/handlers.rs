//! The HTTP+JSON operations, written once over a `Dialect`: each reads the request, calls the
//! [`A2aService`] and renders the result in the dialect's wire shape.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::{MethodFilter, get, on, post};
use serde_json::Value;

use super::{Operation, Reply, Request, respond, split_verb};
use crate::Calling;
use crate::push::{PushConfigPage, PushRegistration};
use crate::service::{ListTasksRequest, SendRequest, Sent, TaskList};
use crate::{A2aError, A2aService, Version};
use a2a_runtime_core::task::StreamItem;
use a2a_runtime_types::model::{PushConfig, Task};

/// What differs between the HTTP+JSON dialects (1.0, 0.3): the version and the wire shapes.
pub(super) trait Dialect: Send + Sync + 'static {
    /// The protocol version the routes serve.
    const VERSION: Version;
    /// The path of the task routes, as error messages name it (`/tasks`, `/v1/tasks`).
    const TASKS: &'static str;
    /// The path of the extended agent card.
    const EXTENDED_CARD: &'static str;
    /// Reads a send request's body.
    fn send_request(request: &Request) -> Result<SendRequest, A2aError>;
    /// Reads the list query parameters.
    fn list_request(request: &Request) -> Result<ListTasksRequest, A2aError>;
    /// The body answering a blocking send.
    fn send_response(sent: &Sent) -> Vec<u8>;
    /// A task.
    fn task(task: &Task) -> Vec<u8>;
    /// A page of tasks.
    fn list_response(list: &TaskList) -> Vec<u8>;
    /// One SSE frame's data.
    fn frame(item: &StreamItem) -> Vec<u8>;
    /// Reads the body of a push config registration for task `task_id`.
    fn push_registration(task_id: &str, body: Value) -> Result<PushRegistration, A2aError>;
    /// A push config of task `task_id`.
    fn push_config(task_id: &str, config: &PushConfig) -> Vec<u8>;
    /// A page of task `task_id`'s push configs.
    fn push_configs(task_id: &str, page: &PushConfigPage) -> Vec<u8>;
}

type Service = State<Arc<A2aService>>;
type Body = Result<Bytes, BytesRejection>;

/// The routes of dialect `D`, relative to where it is mounted.
pub(super) fn routes<D: Dialect>() -> Router<Arc<A2aService>> {
    let push = MethodFilter::GET
        .or(MethodFilter::POST)
        .or(MethodFilter::DELETE);
    Router::new()
        .route("/message:send", post(send::<D>))
        .route("/message:stream", post(stream::<D>))
        .route("/tasks", get(list::<D>))
        .route("/tasks/{task}", get(task::<D>).post(task::<D>))
        .route(
            "/tasks/{task}/pushNotificationConfigs",
            on(push, push_configs::<D>),
        )
        .route(
            "/tasks/{task}/pushNotificationConfigs/{config}",
            on(push, push_configs::<D>),
        )
        .route(D::EXTENDED_CARD, get(extended_card::<D>))
}

/// `GET /extendedAgentCard` (1.0), `GET /v1/card` (0.3).
async fn extended_card<D: Dialect>(
    State(service): Service,
    Calling(caller): Calling,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let operation = Operation::start(&service, "GetExtendedAgentCard", D::VERSION);
    let reply = Request::read(&service, D::VERSION, &headers, &uri, body).and_then(|_| {
        let card = service.extended_agent_card(&caller)?;
        Ok(Reply::Json(
            serde_json::to_vec(card.as_ref()).unwrap_or_default(),
        ))
    });
    respond(&service, operation, &caller, reply)
}

fn frames<D: Dialect>() -> crate::sse::Frames {
    Box::new(|item: &StreamItem| vec![D::frame(item)])
}

async fn send<D: Dialect>(
    State(service): Service,
    Calling(caller): Calling,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let operation = Operation::start(&service, "SendMessage", D::VERSION);
    let reply = async {
        let request = Request::read(&service, D::VERSION, &headers, &uri, body)?;
        let sent = service.send(D::send_request(&request)?, &caller).await?;
        Ok(Reply::Json(D::send_response(&sent)))
    };
    respond(&service, operation, &caller, reply.await)
}

async fn stream<D: Dialect>(
    State(service): Service,
    Calling(caller): Calling,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let operation = Operation::start(&service, "SendStreamingMessage", D::VERSION);
    let reply = async {
        let request = Request::read(&service, D::VERSION, &headers, &uri, body)?;
        let streamed = service
            .send_streaming(D::send_request(&request)?, &caller)
            .await?;
        Ok(Reply::Stream(streamed.events, frames::<D>()))
    };
    respond(&service, operation, &caller, reply.await)
}

async fn list<D: Dialect>(
    State(service): Service,
    Calling(caller): Calling,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let operation = Operation::start(&service, "ListTasks", D::VERSION);
    let reply = async {
        let request = Request::read(&service, D::VERSION, &headers, &uri, body)?;
        let list = service
            .list_tasks(D::list_request(&request)?, &caller)
            .await?;
        Ok(Reply::Json(D::list_response(&list)))
    };
    respond(&service, operation, &caller, reply.await)
}

/// `GET /tasks/{id}`, `GET|POST /tasks/{id}:subscribe`, `POST /tasks/{id}:cancel`.
async fn task<D: Dialect>(
    State(service): Service,
    Path(path): Path<HashMap<String, String>>,
    Calling(caller): Calling,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let segment = path.get("task").map(String::as_str).unwrap_or_default();
    let name = match (&method, split_verb(segment).1) {
        (&Method::GET, None) => "GetTask",
        (&Method::POST, Some("cancel")) => "CancelTask",
        (_, Some("subscribe")) => "SubscribeToTask",
        _ => "unknown",
    };
    let operation = Operation::start(&service, name, D::VERSION);
    let reply = async {
        let request = Request::read(&service, D::VERSION, &headers, &uri, body)?;
        let segment = path.get("task").map(String::as_str).unwrap_or_default();
        match (method, split_verb(segment)) {
            (Method::GET, (id, None)) => {
                let task = service
                    .get_task(id, request.integer("historyLength")?, &caller)
                    .await?;
                Ok(Reply::Json(D::task(&task)))
            }
            (Method::POST, (id, Some("cancel"))) => {
                let task = service.cancel_task(id, &caller).await?;
                Ok(Reply::Json(D::task(&task)))
            }
            // The proto says GET, the prose and most SDKs POST: both are served.
            (_, (id, Some("subscribe"))) => {
                let events = service.subscribe(id, &caller).await?;
                Ok(Reply::Stream(events, frames::<D>()))
            }
            (method, _) => Err(A2aError::MethodNotFound {
                message: format!(
                    "no A2A {} operation is {method} {}; tasks are read with GET {tasks}/{{id}}, \
                     canceled with POST {tasks}/{{id}}:cancel and followed with \
                     POST {tasks}/{{id}}:subscribe",
                    D::VERSION.as_str(),
                    uri.path(),
                    tasks = D::TASKS,
                ),
            }),
        }
    };
    respond(&service, operation, &caller, reply.await)
}

/// `POST|GET {tasks}/{id}/pushNotificationConfigs`,
/// `GET|DELETE {tasks}/{id}/pushNotificationConfigs/{configId}`.
async fn push_configs<D: Dialect>(
    State(service): Service,
    Path(path): Path<HashMap<String, String>>,
    Calling(caller): Calling,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let name = match (&method, path.contains_key("config")) {
        (&Method::POST, false) => "CreateTaskPushNotificationConfig",
        (&Method::GET, false) => "ListTaskPushNotificationConfigs",
        (&Method::GET, true) => "GetTaskPushNotificationConfig",
        (&Method::DELETE, true) => "DeleteTaskPushNotificationConfig",
        _ => "unknown",
    };
    let operation = Operation::start(&service, name, D::VERSION);
    let reply = async {
        let request = Request::read(&service, D::VERSION, &headers, &uri, body)?;
        service.push()?;
        let task_id = path.get("task").map(String::as_str).unwrap_or_default();
        match (method, path.get("config")) {
            (Method::POST, None) => {
                let registration = D::push_registration(task_id, request.json()?)?;
                let config = service
                    .create_push_config(task_id, registration, &caller)
                    .await?;
                Ok(Reply::Json(D::push_config(task_id, &config)))
            }
            (Method::GET, None) => {
                let page = service
                    .list_push_configs(
                        task_id,
                        request.integer("pageSize")?,
                        request.text("pageToken").as_deref(),
                        &caller,
                    )
                    .await?;
                Ok(Reply::Json(D::push_configs(task_id, &page)))
            }
            (Method::GET, Some(config_id)) => {
                let config = service.get_push_config(task_id, config_id, &caller).await?;
                Ok(Reply::Json(D::push_config(task_id, &config)))
            }
            (Method::DELETE, Some(config_id)) => {
                service
                    .delete_push_config(task_id, config_id, &caller)
                    .await?;
                Ok(Reply::Json(b"{}".to_vec()))
            }
            (method, _) => Err(A2aError::MethodNotFound {
                message: format!(
                    "no A2A {} operation is {method} {}; push configs are created with POST \
                     {tasks}/{{id}}/pushNotificationConfigs, listed with GET on it, and read or \
                     deleted with GET or DELETE {tasks}/{{id}}/pushNotificationConfigs/{{configId}}",
                    D::VERSION.as_str(),
                    uri.path(),
                    tasks = D::TASKS,
                ),
            }),
        }
    };
    respond(&service, operation, &caller, reply.await)
}
