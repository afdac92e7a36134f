//! The authentication middleware on every A2A route: it puts the request's
//! [`Caller`](a2a_runtime_core::auth::Caller) in its extensions, or refuses it with 401, the binding's error body
//! and one challenge per scheme.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::A2aError;
use a2a_runtime_core::auth::Security;

/// Authenticates every request (see the module docs).
pub async fn authenticate(
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
            let mut response =
                super::refusal(&A2aError::Unauthenticated(refusal.reason.clone()), jsonrpc);
            *response.status_mut() = StatusCode::UNAUTHORIZED;
            for challenge in refusal.challenge_headers(None) {
                response
                    .headers_mut()
                    .append(header::WWW_AUTHENTICATE, challenge);
            }
            return response;
        }
    }
    next.run(Request::from_parts(parts, body)).await
}
