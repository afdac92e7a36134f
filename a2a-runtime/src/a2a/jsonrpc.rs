//! A2A v1.0 over JSON-RPC 2.0 on `POST /`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::RequestError;
use crate::protocol::a2a::v1;
use crate::protocol::jsonrpc::{self, ErrorObject};
use crate::server::App;
use crate::task::{ListQuery, TaskEvents};

/// v0.3 method names, recognized only to give a precise error.
const V0_3_METHODS: &[(&str, &str)] = &[
    ("message/send", "SendMessage"),
    ("message/stream", "SendStreamingMessage"),
    ("tasks/get", "GetTask"),
    ("tasks/cancel", "CancelTask"),
    ("tasks/resubscribe", "SubscribeToTask"),
    ("tasks/send", "SendMessage"),
];

/// `POST /`.
pub(crate) async fn handle(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return error_response(
                &Value::Null,
                &RequestError::PayloadTooLarge {
                    limit: app.limits.max_body_bytes,
                },
            );
        }
        Err(rejection) => {
            return error_response(
                &Value::Null,
                &RequestError::InvalidRequest(rejection.body_text()),
            );
        }
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(e) => return error_response(&Value::Null, &RequestError::Parse(e.to_string())),
    };
    let request = match jsonrpc::parse_request(value) {
        Ok(request) => request,
        Err((message, id)) => return error_response(&id, &RequestError::InvalidRequest(message)),
    };
    if let Err(error) = check_version(&headers, &uri, app.limits.require_version_header) {
        return error_response(&request.id, &error);
    }
    // Errors found before a stream starts are plain JSON-RPC errors, not SSE (a2a-spec.md §5).
    match call(&app, &request.id, &request.method, request.params).await {
        Ok(Reply::Json(bytes)) => json_response(StatusCode::OK, bytes),
        Ok(Reply::Stream(events)) => super::sse::jsonrpc_stream(
            request.id,
            events,
            app.limits.sse_keep_alive,
            app.shutdown.clone(),
        ),
        Err(error) => error_response(&request.id, &error),
    }
}

fn check_version(headers: &HeaderMap, uri: &Uri, require: bool) -> Result<(), RequestError> {
    let from_query = uri.query().and_then(|q| {
        q.split('&').find_map(|pair| {
            pair.split_once('=')
                .filter(|(k, _)| k.eq_ignore_ascii_case("A2A-Version"))
                .map(|(_, v)| v.to_owned())
        })
    });
    let given = headers
        .get("a2a-version")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
        .or(from_query);
    match given.as_deref() {
        None | Some("") if !require => Ok(()),
        None | Some("") => Err(RequestError::VersionNotSupported(
            "0.3 (no A2A-Version header)".into(),
        )),
        Some(version) => {
            // Major.Minor only; a patch part is ignored (a2a-spec.md §1).
            let mut parts = version.split('.');
            match (parts.next(), parts.next()) {
                (Some("1"), Some("0")) => Ok(()),
                _ => Err(RequestError::VersionNotSupported(version.to_owned())),
            }
        }
    }
}

fn params<T: DeserializeOwned>(params: Value) -> Result<T, RequestError> {
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let reason = e.into_inner().to_string();
        let (field, reason) = match reason
            .strip_prefix("missing field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((name, _)) => (
                if path == "." {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                },
                "is required".to_owned(),
            ),
            None => (
                if path == "." {
                    "params".to_owned()
                } else {
                    path
                },
                reason,
            ),
        };
        RequestError::invalid_params(field, reason)
    })
}

fn history_length(value: Option<i64>, field: &str) -> Result<Option<usize>, RequestError> {
    match value {
        None => Ok(None),
        Some(n) if n < 0 => Err(RequestError::invalid_params(
            field,
            format!("must be zero or positive, got {n}"),
        )),
        Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
    }
}

/// What a method answers: one JSON-RPC response, or a stream of them.
enum Reply {
    Json(Vec<u8>),
    Stream(TaskEvents),
}

/// The parts of a `SendMessageRequest` both send methods use.
struct Send {
    message: crate::model::Message,
    history: Option<usize>,
    return_immediately: bool,
}

fn send_params(raw: Value) -> Result<Send, RequestError> {
    let request: v1::SendMessageRequest = params(raw)?;
    let configuration = request.configuration.unwrap_or_default();
    if configuration.task_push_notification_config.is_some() {
        return Err(RequestError::PushNotSupported);
    }
    let history = history_length(configuration.history_length, "configuration.historyLength")?;
    let message = request
        .message
        .into_model("message")
        .map_err(|(f, r)| RequestError::invalid_params(f, r))?;
    Ok(Send {
        message,
        history,
        return_immediately: configuration.return_immediately,
    })
}

/// Runs one method; results are serialized here because they borrow from the task.
async fn call(app: &App, id: &Value, method: &str, raw: Value) -> Result<Reply, RequestError> {
    let json = match method {
        "SendMessage" => {
            let send = send_params(raw)?;
            let task = app
                .manager
                .send(send.message, send.return_immediately)
                .await?;
            let view = task.view(send.history, true);
            jsonrpc::success(id, v1::SendMessageResponse::Task((&view).into()))
        }
        // `historyLength` and `returnImmediately` do not apply to streams: the first event is the
        // whole task as created, and the stream runs until the task ends (a2a-spec.md §3.6).
        "SendStreamingMessage" => {
            let send = send_params(raw)?;
            return Ok(Reply::Stream(
                app.manager.send_streaming(send.message).await?,
            ));
        }
        "SubscribeToTask" => {
            let request: v1::SubscribeToTaskRequest = params(raw)?;
            return Ok(Reply::Stream(app.manager.subscribe(&request.id).await?));
        }
        "GetTask" => {
            let request: v1::GetTaskRequest = params(raw)?;
            let history = history_length(request.history_length, "historyLength")?;
            let task = app.manager.get(&request.id).await?;
            jsonrpc::success(id, v1::TaskOut::from(&task.view(history, true)))
        }
        "ListTasks" => list_tasks(app, id, raw).await?,
        "CancelTask" => {
            let request: v1::CancelTaskRequest = params(raw)?;
            let task = app.manager.cancel(&request.id).await?;
            jsonrpc::success(id, v1::TaskOut::from(&task))
        }
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => return Err(RequestError::PushNotSupported),
        "GetExtendedAgentCard" => {
            return Err(RequestError::Unsupported(
                "this agent has no extended agent card (capabilities.extendedAgentCard is false)"
                    .into(),
            ));
        }
        other => {
            return Err(match V0_3_METHODS.iter().find(|(old, _)| *old == other) {
                Some((old, new)) => RequestError::VersionNotSupported(format!(
                    "0.3 (method `{old}`; the A2A 1.0 method is `{new}`)"
                )),
                None => RequestError::MethodNotFound {
                    message: format!(
                        "method `{other}` not found; this agent serves SendMessage, \
                         SendStreamingMessage, SubscribeToTask, GetTask, ListTasks, CancelTask \
                         (A2A 1.0 JSON-RPC method names are PascalCase)"
                    ),
                },
            });
        }
    };
    Ok(Reply::Json(json))
}

async fn list_tasks(app: &App, id: &Value, raw: Value) -> Result<Vec<u8>, RequestError> {
    let request: v1::ListTasksRequest = params(raw)?;
    let history = history_length(request.history_length, "historyLength")?;
    let page_size = match request.page_size {
        None => 50,
        Some(n @ 1..=100) => usize::try_from(n).unwrap_or(50),
        Some(n) => {
            return Err(RequestError::invalid_params(
                "pageSize",
                format!("must be between 1 and 100, got {n}"),
            ));
        }
    };
    let state = match request.status.as_deref() {
        None | Some("") | Some("TASK_STATE_UNSPECIFIED") => None,
        Some(name) => Some(v1::parse_state(name).ok_or_else(|| {
            RequestError::invalid_params(
                "status",
                format!("`{name}` is not a TaskState (expected a name like TASK_STATE_WORKING)"),
            )
        })?),
    };
    let status_after = request
        .status_timestamp_after
        .as_deref()
        .map(|ts| {
            DateTime::parse_from_rfc3339(ts)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|e| {
                    RequestError::invalid_params(
                        "statusTimestampAfter",
                        format!("is not an RFC 3339 timestamp: {e}"),
                    )
                })
        })
        .transpose()?;
    let query = ListQuery {
        context_id: request.context_id.filter(|c| !c.is_empty()),
        state,
        status_after,
        page_size,
        page_token: request.page_token.filter(|t| !t.is_empty()),
    };
    let page = app.manager.list(&query).await?;
    let views: Vec<_> = page
        .tasks
        .iter()
        .map(|t| t.view(history, request.include_artifacts))
        .collect();
    Ok(jsonrpc::success(
        id,
        v1::ListTasksResponse {
            tasks: views.iter().map(Into::into).collect(),
            next_page_token: page.next_page_token.unwrap_or_default(),
            page_size,
            total_size: page.total_size,
        },
    ))
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A JSON-RPC error response. JSON-RPC errors travel with HTTP 200 as the reference SDKs do; an
/// oversized body is answered 413.
pub(crate) fn error_response(id: &Value, error: &RequestError) -> Response {
    let mapped = error.mapped();
    let message = error.to_string();
    let body = jsonrpc::failure(
        id,
        &ErrorObject {
            code: mapped.code,
            message: &message,
            data: Some(error.data()),
        },
    );
    json_response(mapped.http, body)
}
