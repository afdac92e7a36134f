//! The authentication middleware the server installs on every A2A route and `/mcp`: it puts
//! the request's [`Caller`] in its extensions or refuses it with 401 and the schemes'
//! challenges. `/mcp` authenticates with [`authenticate_mcp`] instead: its gate decides what
//! a refusal means, since discovery works before authentication.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::Caller;
use super::security::{Security, Unauthenticated};
use crate::a2a::A2aError;

/// Authenticates every request (see the module docs).
pub(crate) async fn authenticate(
    State(security): State<Arc<Security>>,
    request: Request,
    next: Next,
) -> Response {
    // Without a scheme every caller is the anonymous one, which is also what a request without
    // a `Caller` extension means: nothing to do.
    if !security.is_enabled() {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    match security.authenticate(&parts).await {
        Ok(caller) => {
            parts.extensions.insert(caller);
        }
        Err(refusal) => {
            let jsonrpc = parts.uri.path() == "/";
            return unauthenticated(&refusal, jsonrpc, None);
        }
    }
    next.run(Request::from_parts(parts, body)).await
}

/// Authenticates an MCP request: its [`Caller`], or the refusal, goes in its extensions for
/// the MCP gate, which lets `initialize` and discovery through without credentials.
pub(crate) async fn authenticate_mcp(security: &Security, parts: &mut Parts) {
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

/// The caller a request was authenticated as (anonymous without authentication).
pub(crate) fn caller_of(extensions: &axum::http::Extensions) -> Caller {
    extensions.get::<Caller>().cloned().unwrap_or_default()
}

/// The 401 answer: the binding's error body and one `WWW-Authenticate` per scheme; a
/// `resource_metadata` parameter is added to Bearer challenges for MCP clients (RFC 9728).
pub(crate) fn unauthenticated(
    refusal: &Unauthenticated,
    jsonrpc: bool,
    resource_metadata: Option<&str>,
) -> Response {
    let error = A2aError::Unauthenticated(refusal.reason.clone());
    let mut response = crate::a2a::refusal(&error, jsonrpc);
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    for challenge in &refusal.challenges {
        let challenge = match resource_metadata {
            Some(url) if challenge.starts_with("Bearer") => format!(
                "{challenge}, resource_metadata={}",
                super::authenticator::quoted(url)
            ),
            _ => challenge.clone(),
        };
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .append(header::WWW_AUTHENTICATE, value);
        }
    }
    response
}
