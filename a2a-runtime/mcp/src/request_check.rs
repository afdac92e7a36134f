//! Checks a `POST /mcp` body before rmcp reads it, so malformed requests get the JSON-RPC error
//! the specification names: invalid JSON is HTTP 400 with -32700 (rmcp answers 415), and a body
//! that is not a JSON-RPC message is -32600. A standard method whose params have the wrong shape
//! is -32602 naming the field ([`misshapen`]). In a well-formed envelope rmcp reads such a
//! request as a custom one, which the handler answers with that check, so a call's params are
//! parsed once, by rmcp; `initialize` (it opens a session before any handler runs) and
//! malformed envelopes are checked here.

use std::borrow::Cow;
use std::sync::Arc;

use crate::sessions::McpSessions;
use axum::body::{Body, Bytes, HttpBody as _};
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CancelTaskParams, ClientJsonRpcMessage, CompleteRequestParams,
    GetPromptRequestParams, GetTaskParams, InitializeRequestParams, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
    UpdateTaskParams,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use a2a_runtime_core::auth::Caller;
use a2a_runtime_core::auth::security::Unauthenticated;
use a2a_runtime_core::body::{BodyTime, BodyTooSlow, TimedBody};
use a2a_runtime_types::protocol::jsonrpc::code;

/// Checks that params (JSON text) deserialize into one method's params type; the error names
/// the field.
type ShapeCheck = fn(&str) -> Result<(), String>;

/// The standard methods this server serves, each with a check of its params' shape.
const TYPED_METHODS: &[(&str, ShapeCheck)] = &[
    ("initialize", shape::<InitializeRequestParams>),
    ("tools/list", shape::<Option<PaginatedRequestParams>>),
    ("tools/call", shape::<CallToolRequestParams>),
    ("tasks/get", shape::<GetTaskParams>),
    ("tasks/update", shape::<UpdateTaskParams>),
    ("tasks/cancel", shape::<CancelTaskParams>),
    ("resources/list", shape::<Option<PaginatedRequestParams>>),
    (
        "resources/templates/list",
        shape::<Option<PaginatedRequestParams>>,
    ),
    ("resources/read", shape::<ReadResourceRequestParams>),
    ("resources/subscribe", shape::<SubscribeRequestParams>),
    ("resources/unsubscribe", shape::<UnsubscribeRequestParams>),
    ("prompts/list", shape::<Option<PaginatedRequestParams>>),
    ("prompts/get", shape::<GetPromptRequestParams>),
    ("completion/complete", shape::<CompleteRequestParams>),
    ("logging/setLevel", set_level_shape),
];

/// What the check needs: the body's limit and timeout, and the sessions to count against
/// their cap.
pub struct McpGate {
    pub max_body: usize,
    pub body_time: BodyTime,
    pub sessions: Arc<McpSessions>,
    pub max_sessions: usize,
    /// The skills behind the tools, for the scope check of `tools/call`.
    pub tools: super::namespace::ToolSkills,
    /// The protected-resource metadata URL named in 401 challenges.
    pub resource_metadata: String,
    /// Whether a request without valid credentials is refused whatever it asks, `initialize`
    /// and discovery included: for clients that start their sign-in only on a 401 there, and
    /// stall when an anonymous session is granted.
    pub token_required: bool,
    /// A meter of the server's: a request's span starts at the endpoint when it traces them.
    pub meter: a2a_runtime_core::observe::Meter,
}

/// A request the gate lets through to rmcp.
pub struct Admitted {
    pub request: Request,
    /// Its body, when the gate read it (a JSON POST).
    pub body: Option<Bytes>,
    /// Set when rmcp reads the body first ([`McpGate::admit`]): what the gate checks after
    /// rmcp, should rmcp refuse it.
    pub unchecked: Option<Unchecked>,
}

/// The body of a request rmcp reads before the gate does.
pub struct Unchecked {
    bytes: Bytes,
    version: HeaderValue,
}

impl Unchecked {
    /// The gate's refusal of a body rmcp refused, when the gate refuses it too: the JSON-RPC
    /// error the specification names (-32700, -32600, -32602) instead of rmcp's plain text.
    pub fn refusal(&self) -> Option<Response> {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(&PROTOCOL_VERSION_HEADER, self.version.clone());
        checked(&self.bytes, &headers).err().map(|refusal| *refusal)
    }
}

impl McpGate {
    /// The request, its body read and checked, or the refusal to answer it with.
    pub async fn admit(&self, request: Request) -> Result<Admitted, Response> {
        let (mut parts, body) = request.into_parts();
        if parts.method != Method::POST || !is_json(&parts.headers) {
            if let Some(refusal) = super::authorize::check_other(self, &mut parts) {
                return Err(refusal);
            }
            // rmcp answers other methods and content types itself (405, 415), unread.
            let request = Request::from_parts(parts, body);
            return Ok(Admitted {
                request,
                body: None,
                unchecked: None,
            });
        }
        let opens_session = !parts.headers.contains_key(&SESSION_HEADER);
        let bytes = read_body(body, self.max_body, self.body_time).await?;
        if let Some(version) = rmcp_reads_first(&parts) {
            let unchecked = Unchecked {
                bytes: bytes.clone(),
                version,
            };
            let request = Request::from_parts(parts, Body::from(bytes.clone()));
            return Ok(Admitted {
                request,
                body: Some(bytes),
                unchecked: Some(unchecked),
            });
        }
        let message = checked(&bytes, &parts.headers).map_err(|refusal| *refusal)?;
        if let Some(refusal) = super::authorize::check(self, &mut parts, &message) {
            return Err(refusal);
        }
        if opens_session && let Some(id) = initialize_id(&message) {
            let open = self.sessions.count().await;
            if open >= self.max_sessions {
                let message = format!(
                    "this server holds its limit of {open} MCP sessions; retry later, or use the \
                     stateless 2026-07-28 revision, which needs none"
                );
                let mut response =
                    failure(StatusCode::TOO_MANY_REQUESTS, &id, code::BUSY, &message);
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                return Err(response);
            }
        }
        let request = Request::from_parts(parts, Body::from(bytes.clone()));
        Ok(Admitted {
            request,
            body: Some(bytes),
            unchecked: None,
        })
    }
}

/// Whether rmcp may read this request's body before the gate, and the protocol version it
/// names: a `tools/call` of protocol 2026-07-28 or later, which names its method in
/// `Mcp-Method` (rmcp refuses a body whose method disagrees before anything runs), on a server
/// without authentication. The gate would refuse nothing such a request carries that rmcp
/// runs: a malformed body fails rmcp's parse or becomes a custom request the handler refuses
/// (`misshapen`), and a refusal by rmcp is then answered with the gate's own error. The hot
/// call of the newest revision so has its body parsed once, not twice.
fn rmcp_reads_first(parts: &axum::http::request::Parts) -> Option<HeaderValue> {
    let extensions = &parts.extensions;
    if extensions.get::<Unauthenticated>().is_some() || extensions.get::<Caller>().is_some() {
        return None;
    }
    // rmcp checks `Mcp-Method` against the body from this version on.
    let version = parts.headers.get(&PROTOCOL_VERSION_HEADER)?;
    if version.to_str().ok()? < ProtocolVersion::STANDARD_HEADERS.as_str() {
        return None;
    }
    let mut methods = parts.headers.get_all(&METHOD_HEADER).iter();
    let only_a_call = methods.next()? == "tools/call" && methods.next().is_none();
    only_a_call.then(|| version.clone())
}

/// The whole body, at most `limit` bytes, refused (408) when it pauses or lasts longer than
/// `time` allows, as on every route. A small request's body usually comes with its head, so a
/// timer is only set for a frame that is not there yet.
async fn read_body(body: Body, limit: usize, time: BodyTime) -> Result<Bytes, Response> {
    let mut body = std::pin::pin!(TimedBody::new(body, time));
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut length = 0_usize;
    loop {
        let frame = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await;
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|error| match BodyTooSlow::of(&*error) {
            Some(slow) => body_failure(StatusCode::REQUEST_TIMEOUT, &slow.to_string()),
            None => {
                let message = format!("the request body could not be read: {error}");
                body_failure(StatusCode::BAD_REQUEST, &message)
            }
        })?;
        // Trailers carry nothing a JSON-RPC request needs.
        let Ok(data) = frame.into_data() else {
            continue;
        };
        length += data.len();
        if length > limit {
            let message = format!("request body exceeds the limit of {limit} bytes");
            return Err(body_failure(StatusCode::PAYLOAD_TOO_LARGE, &message));
        }
        chunks.push(data);
    }
    Ok(match chunks.len() {
        1 => chunks.swap_remove(0),
        _ => Bytes::from(chunks.concat()),
    })
}

/// A -32600 refusal of a body that could not be read whole.
pub fn body_failure(status: StatusCode, message: &str) -> Response {
    failure(status, &Value::Null, code::INVALID_REQUEST, message)
}

/// The members of a JSON-RPC message the gate reads, borrowed from the body (rmcp parses the
/// body itself afterwards, so the gate builds no tree of it).
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub params: Option<&'a RawValue>,
}

impl Envelope<'_> {
    /// The request's id, for an answer to it (`null` for a notification).
    pub fn id(&self) -> Value {
        self.id
            .and_then(|id| serde_json::from_str(id.get()).ok())
            .unwrap_or(Value::Null)
    }

    /// `jsonrpc: "2.0"`, a string or integer `id`, and `params` absent or an object.
    fn well_formed(&self) -> bool {
        let id = self.id.map(|id| id.get().as_bytes());
        let integer = |id: &[u8]| {
            let digits = id.strip_prefix(b"-").unwrap_or(id);
            !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
        };
        self.jsonrpc.as_deref() == Some("2.0")
            && id.is_some_and(|id| id.first() == Some(&b'"') || integer(id))
            && self
                .params
                .is_none_or(|p| p.get().starts_with('{') || p.get() == "null")
    }
}

/// The body's envelope, or why it is refused.
fn checked<'a>(
    bytes: &'a [u8],
    headers: &axum::http::HeaderMap,
) -> Result<Envelope<'a>, Box<Response>> {
    let envelope: Envelope<'a> = match serde_json::from_slice(bytes) {
        Ok(envelope) => envelope,
        Err(error) if error.is_data() => {
            // JSON, but not an object of a message's members.
            return Err(not_a_message(bytes, &Value::Null).unwrap_or_else(|| {
                let message = format!("not a JSON-RPC 2.0 message: {error}");
                Box::new(failure(
                    StatusCode::BAD_REQUEST,
                    &Value::Null,
                    code::INVALID_REQUEST,
                    &message,
                ))
            }));
        }
        Err(error) => {
            let message = format!("invalid JSON: {error}");
            return Err(Box::new(failure(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                code::PARSE_ERROR,
                &message,
            )));
        }
    };
    let method = envelope.method.as_deref();
    // Protocol 2026-07-28 has no handshake (SEP-2575): `initialize` is a method it does not
    // have, as any other unknown method.
    if method == Some("initialize") && modern(headers, envelope.params) {
        return Err(Box::new(failure(
            StatusCode::NOT_FOUND,
            &envelope.id(),
            code::METHOD_NOT_FOUND,
            "`initialize` is not part of protocol 2026-07-28, which needs no handshake; send \
             requests directly, or use MCP-Protocol-Version 2025-11-25 for a session",
        )));
    }
    let typed = TYPED_METHODS.iter().find(|(m, _)| Some(*m) == method);
    // The hot path (every `tools/call`): a standard method in a well-formed envelope goes on,
    // its params parsed once, by rmcp; the handler names a misshapen field. `initialize` opens
    // a session before any handler runs, and a malformed envelope is refused here, so both
    // have their params checked first.
    let hot = typed.is_some() && envelope.well_formed();
    if let Some((method, _)) = typed
        && (!hot || *method == "initialize")
        && envelope.id.is_some()
        && let Some(message) = misshapen(method, envelope.params.map_or("null", RawValue::get))
    {
        return Err(Box::new(failure(
            StatusCode::OK,
            &envelope.id(),
            code::INVALID_PARAMS,
            &message,
        )));
    }
    if hot {
        return Ok(envelope);
    }
    match not_a_message(bytes, &envelope.id()) {
        Some(refusal) => Err(refusal),
        None => Ok(envelope),
    }
}

/// The -32600 refusal of a body that is not a JSON-RPC message MCP knows, if it is not.
fn not_a_message(bytes: &[u8], id: &Value) -> Option<Box<Response>> {
    let error = serde_json::from_slice::<ClientJsonRpcMessage>(bytes).err()?;
    let message = format!("not a JSON-RPC 2.0 request, notification or response: {error}");
    Some(Box::new(failure(
        StatusCode::BAD_REQUEST,
        id,
        code::INVALID_REQUEST,
        &message,
    )))
}

/// Whether the request names protocol 2026-07-28 or later, in `MCP-Protocol-Version` or in
/// its `_meta` (a 2025 `initialize` names its version in `params.protocolVersion` instead).
fn modern(headers: &axum::http::HeaderMap, params: Option<&RawValue>) -> bool {
    let header = headers
        .get(&PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.to_str().ok());
    let params: Option<Value> = params.and_then(|p| serde_json::from_str(p.get()).ok());
    let meta = params
        .as_ref()
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
        .and_then(Value::as_str);
    header
        .or(meta)
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The header naming an MCP session (2025 revisions).
static SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");

/// The header naming the request's protocol revision.
static PROTOCOL_VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The header naming the request's method (protocol 2026-07-28, SEP-2243).
static METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");

/// The id of an `initialize` request (which opens a session), if the body is one.
fn initialize_id(message: &Envelope<'_>) -> Option<Value> {
    (message.method.as_deref() == Some("initialize")).then(|| message.id())
}

/// Methods protocol 2026-07-28 removed (SEP-2575, SEP-2577): a request of one in that revision
/// is method-not-found (HTTP 404), not a params error.
const REMOVED_IN_2026: [&str; 3] = [
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether protocol 2026-07-28 removed `method`.
pub fn removed_in_2026(method: &str) -> bool {
    REMOVED_IN_2026.contains(&method)
}

/// Why the params (JSON text) of a request of a standard method are not that method's params,
/// naming the field; `None` when they are, or when the method is not one this server serves.
pub fn misshapen(method: &str, params: &str) -> Option<String> {
    let (method, check) = TYPED_METHODS.iter().find(|(m, _)| *m == method)?;
    let error = check(params).err()?;
    Some(format!("invalid params for `{method}`: params.{error}"))
}

/// Logging is deprecated in the newest revision (SEP-2577) and served to those that have it
/// (`logging.rs`).
#[allow(deprecated)]
fn set_level_shape(params: &str) -> Result<(), String> {
    shape::<rmcp::model::SetLevelRequestParams>(params)
}

fn shape<T: DeserializeOwned>(params: &str) -> Result<(), String> {
    let mut json = serde_json::Deserializer::from_str(params);
    serde_path_to_error::deserialize::<_, T>(&mut json)
        .map(drop)
        .map_err(|error| match error.path().to_string().as_str() {
            "." => error.inner().to_string(),
            path => format!("{path}: {}", error.inner()),
        })
}

fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

pub fn failure(status: StatusCode, id: &Value, code: i64, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(body: &str) -> (StatusCode, Value) {
        let response = checked(&Bytes::from(body.to_owned()), &axum::http::HeaderMap::new())
            .expect_err("refused");
        let status = response.status();
        let body = futures::executor::block_on(axum::body::to_bytes(response.into_body(), 1 << 20))
            .expect("body");
        (status, serde_json::from_slice(&body).expect("JSON"))
    }

    #[test]
    fn invalid_json_is_a_parse_error() {
        let (status, body) = error_of("{\"jsonrpc\":");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32700);
    }

    #[test]
    fn misshapen_params_are_named_by_field() {
        let message = misshapen("tools/call", r#"{"name":"x","arguments":[1,2]}"#);
        let message = message.expect("refused");
        assert!(message.contains("params.arguments"), "{message}");
        let message = misshapen("tools/call", r#"{"arguments":{}}"#).expect("refused");
        assert!(message.contains("name"), "{message}");
        assert!(misshapen("tools/call", "[1]").is_some());
        assert!(misshapen("tools/call", r#"{"name":"x","arguments":{"a":1}}"#).is_none());
        assert!(misshapen("vendor/method", "[1]").is_none());
    }

    #[test]
    fn errors_echo_the_request_id_as_sent() {
        let (_, body) = error_of(
            r#"{"jsonrpc":"2.0","id":"init-7","method":"initialize","params":{"capabilities":{}}}"#,
        );
        assert_eq!(body["id"], "init-7");
        assert_eq!(body["error"]["code"], -32602);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("protocolVersion"), "{message}");
    }

    #[test]
    fn members_of_the_wrong_type_are_an_invalid_request() {
        let (status, body) = error_of(r#"{"jsonrpc":2,"id":1,"method":"ping"}"#);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32600);
        let (status, body) = error_of(r#"{"jsonrpc":"2.0","id":1,"method":7}"#);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32600);
    }

    #[test]
    fn params_that_are_not_an_object_are_checked_whole() {
        let (status, body) =
            error_of(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#);
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["error"]["code"], -32602);
    }

    #[test]
    fn a_well_formed_call_is_left_to_the_handler_to_check() {
        // rmcp reads it as a custom request, which the handler answers with `misshapen`.
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":[1]}}"#;
        assert!(checked(&Bytes::from(call), &axum::http::HeaderMap::new()).is_ok());
    }

    #[test]
    fn a_non_message_is_an_invalid_request() {
        let (status, body) = error_of("[1, 2]");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32600);
    }

    #[test]
    fn well_formed_requests_pass() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#;
        assert!(checked(&Bytes::from(ok), &axum::http::HeaderMap::new()).is_ok());
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(checked(&Bytes::from(ping), &axum::http::HeaderMap::new()).is_ok());
    }

    #[test]
    fn initialize_in_the_stateless_revision_is_an_unknown_method() {
        let init = r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let response =
            checked(&Bytes::from(init), &axum::http::HeaderMap::new()).expect_err("refused");
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let legacy = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert!(checked(&Bytes::from(legacy), &axum::http::HeaderMap::new()).is_ok());
    }
}
