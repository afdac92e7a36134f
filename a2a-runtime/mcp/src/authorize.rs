//! Authentication and scopes on `/mcp`, applied by the MCP gate once the body is read: what
//! hosted MCP connectors need. Discovery (`initialize`, `ping`, notifications) and a session's
//! standalone stream work before authentication (unless the gate requires a token for
//! everything), and a stale token on them is ignored rather than refused; every other request
//! without valid credentials is 401 with a `resource_metadata` challenge (RFC 9728), and a
//! `tools/call` of a tool whose scopes the caller lacks is 403 naming the scope, before any work.

use std::borrow::Cow;

use a2a_runtime_types::protocol::jsonrpc::code;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;

use super::request_check::{Envelope, McpGate, failure};
use a2a_runtime_core::auth::Caller;
use a2a_runtime_core::auth::security::{Security, Unauthenticated};
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::observe::{CallKind, CallOutcome, CallRecord};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_types::model::{Binding, Protocol};

/// Authenticates an MCP request: its [`Caller`], or the refusal, goes in its extensions for the
/// gate, which lets `initialize` and discovery through without credentials.
pub async fn authenticate(security: &Security, parts: &mut Parts) {
    if !security.is_enabled() {
        return;
    }
    match security.authenticate(parts).await {
        Ok(caller) => {
            parts.extensions.insert(caller);
        }
        Err(refusal) => {
            parts.extensions.insert(refusal);
        }
    }
}

/// The 401 answer: a JSON-RPC error and one `WWW-Authenticate` per scheme, Bearer ones naming
/// the protected resource metadata (RFC 9728) where MCP clients learn how to sign in.
fn unauthenticated(refusal: &Unauthenticated, resource_metadata: &str) -> Response {
    let mut response = failure(
        StatusCode::UNAUTHORIZED,
        &serde_json::Value::Null,
        code::UNAUTHENTICATED,
        &refusal.reason,
    );
    for challenge in refusal.challenge_headers(Some(resource_metadata)) {
        response
            .headers_mut()
            .append(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// Methods an MCP client calls before it authenticates.
const PUBLIC_METHODS: &[&str] = &["initialize", "ping", "server/discover"];

/// The refusal for this request, if it is refused.
pub fn check(gate: &McpGate, parts: &mut Parts, body: &Envelope<'_>) -> Option<Response> {
    let method = body.method.as_deref();
    if let Some(refusal) = parts.extensions.remove::<Unauthenticated>() {
        let public =
            method.is_some_and(|m| PUBLIC_METHODS.contains(&m) || m.starts_with("notifications/"));
        if !gate.token_required && (public || public_tool_request(gate, method, body)) {
            return None;
        }
        return Some(unauthenticated(&refusal, &gate.resource_metadata));
    }
    // Without authentication every caller is anonymous and no skill may declare scopes.
    if method != Some("tools/call") || parts.extensions.get::<Caller>().is_none() {
        return None;
    }
    let Named { name } = serde_json::from_str(body.params?.get()).ok()?;
    let (dispatcher, skill) = gate.tools.skill(&name)?;
    let caller = Caller::of(&parts.extensions);
    let missing = Dispatcher::authorize(&skill, &caller).err()?;
    let record = || {
        let id = skill.id();
        let trace = CallerId::of(parts, None).trace().cloned();
        CallRecord::begin(
            CallKind::Skill,
            id,
            Protocol::Mcp,
            Binding::StreamableHttp,
            caller,
        )
        .traced(trace)
    };
    dispatcher
        .meter()
        .refused(record, CallOutcome::Forbidden, || missing.to_string());
    let id = body.id();
    let message = super::error::tool_refusal(&missing);
    let mut response = failure(
        StatusCode::FORBIDDEN,
        &id,
        code::PERMISSION_DENIED,
        &message,
    );
    let challenge =
        a2a_runtime_core::auth::insufficient_scope(&missing.needed, Some(&gate.resource_metadata));
    if let Ok(challenge) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    Some(response)
}

/// Whether a request without credentials may go on because it is about public tools: on an
/// agent with any, listing the tools (each says in its metadata whether it needs credentials,
/// so a host signs in only for the others) and calling a public one. A call of any other tool
/// is refused with the challenge, which is what starts a host's sign-in.
fn public_tool_request(gate: &McpGate, method: Option<&str>, body: &Envelope<'_>) -> bool {
    if !gate.tools.has_public() {
        return false;
    }
    match method {
        Some("tools/list") => true,
        Some("tools/call") => body
            .params
            .and_then(|params| serde_json::from_str::<Named<'_>>(params.get()).ok())
            .is_some_and(|Named { name }| gate.tools.is_public(&name)),
        _ => false,
    }
}

/// The tool a `tools/call` names.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
}

/// The refusal of a non-POST request (a session's standalone SSE stream, closing a session), if
/// it is refused. Where `initialize` works without credentials these do too, and a stale token
/// on them is ignored: a session anyone may open is one anyone may listen to and close. A 401
/// here would start a sign-in beside the one the client's next call starts: the MCP TypeScript
/// SDK opens the stream as soon as it connects and signs in on its 401, so two sign-ins would
/// race, each registering a client and keeping its own code verifier, and the code of one would
/// be redeemed with the other's (refused, and the SDK's retry of it reads as a replay).
pub fn check_other(gate: &McpGate, parts: &mut Parts) -> Option<Response> {
    let refusal = parts.extensions.remove::<Unauthenticated>()?;
    if !gate.token_required {
        return None;
    }
    Some(unauthenticated(&refusal, &gate.resource_metadata))
}
