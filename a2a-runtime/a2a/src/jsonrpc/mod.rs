//! A2A over JSON-RPC 2.0 on `POST /`: the envelope, version negotiation, and one thin adapter per
//! protocol version over the shared [`A2aService`].
//!
//! Negotiation (a2a-spec.md §1): an `A2A-Version` header (or query parameter) selects the version
//! and only its methods are served (anything else is -32601). Without one, the method name
//! decides: PascalCase methods are 1.0, slash methods are 0.3, and the early draft's own methods
//! (`tasks/send`, …) are the draft; `tasks/get`, `tasks/cancel` and `tasks/resubscribe`, shared
//! by 0.3 and the draft, answer in the draft's shape for tasks the draft created.

pub mod v0_1;
pub mod v0_3;
pub mod v1;

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use serde_json::value::RawValue;

use super::sse::{self, Frames};
use super::{A2aError, A2aService, Version};
use crate::Calling;
use crate::metering::{operation_name, report};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::TaskEvents;
use a2a_runtime_types::model::Binding;
use a2a_runtime_types::protocol::jsonrpc::{self, ErrorObject};

pub use v0_1::Aliases;

/// The state of the JSON-RPC endpoint.
pub struct JsonRpc {
    pub service: Arc<A2aService>,
    /// Early-draft task ids chosen by clients.
    pub aliases: Aliases,
}

/// What a method answers: one result, or a stream of them.
enum Reply {
    Json(Vec<u8>),
    Stream(TaskEvents, Frames),
}

/// `POST /` as a service of its own, what [`handle`] is when the router calls it (with the
/// caller its `Calling` extractor takes), for a server to answer an agent's JSON-RPC calls
/// without its router, whose levels each box and clone the route once more per request. It
/// goes behind the same gate and body limit as the route.
pub fn service(
    endpoint: Arc<JsonRpc>,
) -> impl tower::Service<Request, Response = Response, Error = Infallible, Future: Send + 'static>
+ Clone
+ Send
+ Sync
+ 'static {
    tower::service_fn(move |request: Request| {
        let endpoint = Arc::clone(&endpoint);
        async move {
            let (mut parts, body) = request.into_parts();
            let Ok(calling) = Calling::from_request_parts(&mut parts, &()).await;
            let request = Request::from_parts(parts, body);
            Ok(handle(State(endpoint), calling, request).await)
        }
    })
}

/// `POST /`.
pub async fn handle(
    State(endpoint): State<Arc<JsonRpc>>,
    Calling(caller): Calling,
    request: Request,
) -> Response {
    let service = &endpoint.service;
    let started = service.manager.meter().clock();
    // The head is taken apart rather than extracted piece by piece: extracting `HeaderMap`
    // copies it, for every request.
    let (mut parts, body) = request.into_parts();
    let headers = std::mem::take(&mut parts.headers);
    let uri = std::mem::take(&mut parts.uri);
    let body = Bytes::from_request(Request::from_parts(parts, body), &()).await;
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let error = super::unread_body(&rejection, service.settings.max_body_bytes);
            return error_response(&Value::Null, &error, Version::V1_0);
        }
    };
    // A JSON content type is required: it makes browsers preflight cross-origin calls, so a web
    // page cannot start skills with a plain form or `text/plain` post.
    if let Err(error) = super::check_json_content_type(&headers, true) {
        return error_response(&Value::Null, &error, Version::V1_0);
    }
    let (id, method, params) = match jsonrpc::parse_borrowed(&body) {
        Some(request) => (
            request.id,
            Cow::Borrowed(request.method),
            Params::Raw(request.params),
        ),
        None => match read_envelope(&body) {
            Ok(request) => (
                request.id,
                Cow::Owned(request.method),
                Params::Parsed(request.params),
            ),
            Err(response) => return *response,
        },
    };
    let version = match negotiate(&endpoint, &headers, &uri, &method, &params, &caller) {
        Ok(version) => version,
        Err(error) => return error_response(&id, &error, Version::V1_0),
    };
    if let Err(error) = service.settings.extensions.check(&headers) {
        return error_response(&id, &error, version);
    }
    let streams_0_3 = version == Version::V0_3 && v0_3::streams(&method);
    let reply = call(&endpoint, &caller, &id, &method, params, version).await;
    if started.is_some() {
        let (name, error) = (operation_name(version, &method), reply.as_ref().err());
        let binding = Binding::JsonRpc;
        caller.note(|span| span.request_id = a2a_runtime_types::protocol::jsonrpc::id_text(&id));
        report(service, started, name, version, binding, error, &caller);
    }
    // Errors found before a stream starts are plain JSON-RPC errors, not SSE (a2a-spec.md §5),
    // except in 0.3, whose clients read a streaming method's answer as SSE whatever it is (the
    // official one raises "Invalid SSE response" on JSON): there the error is the stream's one
    // event, as the 0.3 JS SDK sends it.
    match reply {
        Err(error) if streams_0_3 => error_event_stream(&id, &error, version),
        Ok(Reply::Json(bytes)) => json_response(StatusCode::OK, bytes),
        Ok(Reply::Stream(events, frames)) => sse::respond(
            events,
            frames,
            service.settings.sse_keep_alive,
            service.shutdown.clone(),
        ),
        Err(error) => error_response(&id, &error, version),
    }
}

/// Method `method` called with `params` in `version`, by that version's adapter.
async fn call(
    endpoint: &Arc<JsonRpc>,
    caller: &CallerId,
    id: &Value,
    method: &str,
    params: Params<'_>,
    version: Version,
) -> Result<Reply, A2aError> {
    let service = &endpoint.service;
    match version {
        Version::V1_0 => v1::call(service, caller, id, method, params).await,
        Version::V0_3 => v0_3::call(service, caller, id, method, params.into_value()?).await,
        Version::V0_1 => v0_1::call(endpoint, caller, id, method, params.into_value()?).await,
    }
}

/// A request's params: as sent (the common case), or parsed with an envelope that needed the
/// full reading.
pub(super) enum Params<'a> {
    /// The params object's text; `None` when the request had none.
    Raw(Option<&'a RawValue>),
    Parsed(Value),
}

impl Params<'_> {
    /// The params as a JSON tree (an empty object when the request had none). The envelope's
    /// reading checked their syntax but not what their escapes stand for: text that is JSON
    /// but not Unicode (a lone surrogate, `\ud800`) is a parse error here, never read as no
    /// params, which would drop a request's id or filters without a word.
    pub(super) fn into_value(self) -> Result<Value, A2aError> {
        match self {
            Params::Parsed(value) => Ok(value),
            Params::Raw(None) => Ok(Value::Object(Default::default())),
            Params::Raw(Some(raw)) => serde_json::from_str(raw.get())
                .map_err(|e| A2aError::Parse(format!("`params` cannot be read: {e}"))),
        }
    }

    /// The params' `id`, for the early draft's client-chosen task ids (read only for the
    /// methods the draft shares with 0.3).
    fn id(&self) -> Option<String> {
        let parsed;
        let value = match self {
            Params::Parsed(value) => value,
            Params::Raw(raw) => {
                parsed = serde_json::from_str::<Value>((*raw)?.get()).ok()?;
                &parsed
            }
        };
        value.get("id").and_then(Value::as_str).map(str::to_owned)
    }
}

/// The tenant a JSON-RPC request names (`params.tenant`, A2A 1.0), for a server hosting several
/// agents at one URL to select the agent by: `Ok(None)` when it names none, `Err` with the
/// error response when the body is not a JSON-RPC request at all (nothing to select by) or its
/// tenant is not one string (a number, or two `tenant` members: which agent was meant cannot
/// be told, and serving the primary agent would answer a request meant for another).
pub fn tenant_of(body: &[u8]) -> Result<Option<String>, Box<Response>> {
    use a2a_runtime_types::protocol::tenant::{Tenant, scan};
    // The scan walks the body's structure only; the parse below decides what it cannot.
    match scan(body) {
        Tenant::Named(tenant) => return Ok(Some(tenant)),
        Tenant::Absent => return Ok(None),
        Tenant::Unknown => {}
    }
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    let refused = |error: A2aError| Err(Box::new(refuse(body, &error)));
    let params = match serde_json::from_slice::<Envelope<'_>>(body) {
        Ok(envelope) => envelope.params,
        // A body that is JSON but no envelope (an array, two `params`): the agent's handler
        // says what is wrong with it.
        Err(_) if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() => None,
        Err(error) => return refused(A2aError::Parse(error.to_string())),
    };
    // Params that are not an object name no tenant; the agent's handler says what is wrong.
    let Some(params) = params.filter(|raw| raw.get().starts_with('{')) else {
        return Ok(None);
    };
    let tenant = match serde_json::from_str::<TenantMembers<'_>>(params.get()) {
        Ok(TenantMembers(members)) if members.len() > 1 => {
            return refused(A2aError::invalid_params(
                "tenant",
                "appears more than once; name one agent",
            ));
        }
        Ok(TenantMembers(mut members)) => members.pop(),
        Err(_) => None,
    };
    let Some(tenant) = tenant.filter(|raw| raw.get() != "null") else {
        return Ok(None);
    };
    match serde_json::from_str::<Cow<'_, str>>(tenant.get()) {
        Ok(name) if name.is_empty() => Ok(None),
        Ok(name) => Ok(Some(name.into_owned())),
        Err(_) => refused(A2aError::invalid_params(
            "tenant",
            format!(
                "must be a string naming an agent; got `{}`",
                a2a_runtime_types::util::echoed(tenant.get())
            ),
        )),
    }
}

/// Every `tenant` member of a params object, as sent: JSON lets a name appear twice, and which
/// one a reader keeps differs, so a request naming two cannot say which agent it means.
struct TenantMembers<'a>(Vec<&'a RawValue>);

impl<'de> serde::Deserialize<'de> for TenantMembers<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = TenantMembers<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a params object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut found = Vec::new();
                while let Some(name) = map.next_key::<Cow<'de, str>>()? {
                    if name == "tenant" {
                        found.push(map.next_value()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(TenantMembers(found))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// The JSON-RPC error response to `body` for `error`, its id echoed when the body has one.
pub fn refuse(body: &[u8], error: &A2aError) -> Response {
    let id = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| value.get("id").cloned())
        .unwrap_or(Value::Null);
    error_response(&id, error, Version::V1_0)
}

/// The envelope of a body [`jsonrpc::parse_borrowed`] did not read: parsed in full, or the
/// error response saying what is wrong with it.
fn read_envelope(body: &[u8]) -> Result<jsonrpc::Request, Box<Response>> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        Box::new(error_response(
            &Value::Null,
            &A2aError::Parse(e.to_string()),
            Version::V1_0,
        ))
    })?;
    let mut request = jsonrpc::parse_request(value).map_err(|(message, id)| {
        Box::new(error_response(
            &id,
            &A2aError::InvalidRequest(message),
            Version::V1_0,
        ))
    })?;
    request.id = jsonrpc::id_as_sent(request.id, body);
    Ok(request)
}

/// The version a request speaks.
fn negotiate(
    endpoint: &JsonRpc,
    headers: &HeaderMap,
    uri: &Uri,
    method: &str,
    params: &Params<'_>,
    caller: &CallerId,
) -> Result<Version, A2aError> {
    match super::requested_version(headers, uri) {
        Some(requested) => {
            Version::parse(&requested).ok_or(A2aError::VersionNotSupported(requested))
        }
        None if v1::serves(method) => {
            if endpoint.service.settings.require_version_header {
                // A missing header means 0.3 (a2a-spec.md §1), which has no such method.
                Err(A2aError::VersionNotSupported("0.3".into()))
            } else {
                Ok(Version::V1_0)
            }
        }
        None if v0_1::serves_only(method) => Ok(Version::V0_1),
        None if v0_1::serves(method)
            && params
                .id()
                .is_some_and(|id| endpoint.aliases.names(&id, caller)) =>
        {
            Ok(Version::V0_1)
        }
        None => Ok(Version::V0_3),
    }
}

/// The frames of a JSON-RPC stream: each result wrapped in a response envelope carrying the
/// request id.
fn envelope_frames(
    id: &Value,
    mut render: impl FnMut(&a2a_runtime_core::task::StreamItem) -> Vec<Value> + Send + 'static,
) -> Frames {
    let id = id.clone();
    Box::new(move |item| {
        render(item)
            .into_iter()
            .map(|result| jsonrpc::success(&id, result))
            .collect()
    })
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

/// A JSON-RPC error response in protocol `version`'s codes.
pub(super) fn error_response(id: &Value, error: &A2aError, version: Version) -> Response {
    let mut response = json_response(error.jsonrpc_http_status(), error_body(id, error, version));
    super::add_error_headers(&mut response, error);
    response
}

/// A JSON-RPC error as an event stream of that one event (HTTP 200, `text/event-stream`).
fn error_event_stream(id: &Value, error: &A2aError, version: Version) -> Response {
    let mut event = b"data: ".to_vec();
    event.extend(error_body(id, error, version));
    event.extend_from_slice(b"\n\n");
    let mut response = (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        event,
    )
        .into_response();
    super::add_error_headers(&mut response, error);
    response
}

/// The JSON-RPC error document of `error` in protocol `version`'s codes.
fn error_body(id: &Value, error: &A2aError, version: Version) -> Vec<u8> {
    let message = error.to_string();
    jsonrpc::failure(
        id,
        &ErrorObject {
            code: error.jsonrpc_code(version),
            message: &message,
            data: Some(error.details()),
        },
    )
}
