//! Stateless `tools/call`s (protocol 2026-07-28) answered on the request's own task.
//!
//! rmcp serves each stateless request by spawning a serve loop for it, which spawns the handler,
//! whose answer comes back through a channel: three tasks and their wake-ups for one call. A
//! call whose request rmcp would take as it is — the headers the revision asks for, agreeing
//! with the body, nothing rmcp would refuse — is answered here instead, by the handler called
//! where the request arrived, with the endpoint's one shared peer (`hub.rs`). Anything else, a
//! request rmcp would refuse included, goes to rmcp, which answers it as before.
//!
//! The answer is rmcp's: one JSON body when the call sends nothing first, its error's HTTP
//! status as rmcp maps it; an event stream when it sends progress or log messages first. A
//! client that closes the stream cancels the call.

mod hub;

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::Service as _;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, GetExtensions, GetMeta, JsonRpcRequest,
    ProtocolVersion, ServerJsonRpcMessage,
};
use rmcp::service::RequestContext;
use tokio_util::sync::CancellationToken;

use crate::McpHandler;
use crate::call_stream::{CallStream, WhenLeft};
use hub::Hub;

/// The revision whose calls are answered here.
const REVISION: &str = "2026-07-28";

/// The stateless calls of one endpoint answered directly.
pub struct DirectCalls {
    handler: McpHandler,
    hub: OnceLock<Hub>,
    keep_alive: Duration,
    shutdown: CancellationToken,
}

impl DirectCalls {
    /// `handler`'s calls, their streams kept alive every `keep_alive` and ended at `shutdown`;
    /// `None` when a tool's input schema names `x-mcp-header` parameters, whose headers rmcp
    /// checks.
    pub fn new(
        handler: &McpHandler,
        keep_alive: Duration,
        shutdown: CancellationToken,
    ) -> Option<Self> {
        let mirrored = handler.tools.iter().any(|tool| {
            serde_json::to_string(&tool.input_schema).is_ok_and(|s| s.contains("x-mcp-header"))
        });
        (!mirrored).then(|| Self {
            handler: handler.clone(),
            hub: OnceLock::new(),
            keep_alive,
            shutdown,
        })
    }

    /// The call in `body`, if it is answered here: a stateless `tools/call` whose headers
    /// (`headers`) and body rmcp would take as they are.
    pub fn call(&self, headers: &HeaderMap, body: &[u8]) -> Option<JsonRpcRequest<ClientRequest>> {
        let name = named_call(headers)?;
        let ClientJsonRpcMessage::Request(request) = serde_json::from_slice(body).ok()? else {
            return None;
        };
        let ClientRequest::CallToolRequest(call) = &request.request else {
            return None;
        };
        let meta = request.request.get_meta();
        let stateless = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
        (stateless && call.params.name == name).then_some(request)
    }

    /// Answers `call`, whose request's head is `parts`.
    pub async fn answer(
        &self,
        parts: axum::http::request::Parts,
        call: JsonRpcRequest<ClientRequest>,
    ) -> Response {
        let hub = self
            .hub
            .get_or_init(|| Hub::start(self.handler.for_session()));
        let (outbox, routed) = hub::outbox();
        let JsonRpcRequest {
            id, mut request, ..
        } = call;
        let cancel = CancellationToken::new();
        let mut context = RequestContext::new(id.clone(), hub.peer().clone());
        context.ct = cancel.clone();
        context.meta = std::mem::take(request.get_meta_mut());
        context.extensions = std::mem::take(request.extensions_mut());
        context.extensions.insert(outbox);
        context.extensions.insert(parts);
        // A fresh session's handler, as rmcp gives each stateless request.
        let handler = self.handler.for_session();
        let answer = Box::pin(async move {
            match handler.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            }
        });
        let mut stream = CallStream::new(answer, routed, (), WhenLeft::Cancel(cancel));
        let Some(first) = stream.next().await else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        if matches!(
            first,
            ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
        ) {
            return json_answer(&first);
        }
        let events = futures::stream::once(std::future::ready(first))
            .chain(stream)
            .map(|message| Event::default().json_data(&message))
            .take_until(self.shutdown.clone().cancelled_owned());
        let keep_alive = KeepAlive::new().interval(self.keep_alive);
        let mut response = Sse::new(events).keep_alive(keep_alive).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
        response
    }
}

/// The tool a request's headers name, if they are all a stateless `tools/call` needs and nothing
/// rmcp checks further: no session, JSON in, JSON and events accepted (without weights), the
/// revision, the method and the tool named once each, no `Mcp-Param-*` header.
fn named_call(headers: &HeaderMap) -> Option<&str> {
    if headers.contains_key("mcp-session-id")
        || headers
            .keys()
            .any(|name| name.as_str().starts_with("mcp-param-"))
    {
        return None;
    }
    let one = |name: &str| {
        let mut values = headers.get_all(name).iter();
        let value = values.next()?.to_str().ok()?;
        values.next().is_none().then_some(value)
    };
    let content_type = one(header::CONTENT_TYPE.as_str())?;
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return None;
    }
    let accept = one(header::ACCEPT.as_str())?;
    let accepted = |media: &str| {
        accept
            .split(',')
            .any(|range| range.trim().eq_ignore_ascii_case(media))
    };
    if accept.contains(';') || !accepted("application/json") || !accepted("text/event-stream") {
        return None;
    }
    if one("mcp-protocol-version")? != REVISION || one("mcp-method")? != "tools/call" {
        return None;
    }
    // A name rmcp would decode first (SEP-2243's Base64 form) goes to rmcp.
    one("mcp-name").filter(|name| !name.starts_with("=?"))
}

/// A call's answer as one JSON body, with the HTTP status rmcp gives its error.
fn json_answer(message: &ServerJsonRpcMessage) -> Response {
    let status = match message {
        ServerJsonRpcMessage::Error(error) => match error.error.code {
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
            ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
            _ => StatusCode::OK,
        },
        _ => StatusCode::OK,
    };
    let Ok(body) = serde_json::to_vec(message) else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let json = HeaderValue::from_static("application/json");
    response.headers_mut().insert(header::CONTENT_TYPE, json);
    response
}
