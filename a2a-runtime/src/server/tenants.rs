//! A host's root: an endpoint per binding of `ROOT_CALLS` (JSON-RPC; gRPC in a build that
//! serves it) that hands each request to the agent its `tenant` names, and a not-found naming
//! the agents for any other first segment.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes, HttpBody as _};
use axum::extract::Request;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use tower::ServiceExt as _;

use super::agent_routes::BindingEndpoint;
use a2a_runtime_a2a::A2aError;
use a2a_runtime_a2a::bindings::RootCall;
use a2a_runtime_core::body::{BodyTime, BodyTooSlow, BoxError, TimedBody, declared_over};
use a2a_runtime_types::model::Binding;

/// One hosted agent's endpoints the root hands requests to, by binding, each behind the
/// agent's gate.
pub(crate) type AgentCalls = HashMap<Binding, BindingEndpoint>;

/// What the root endpoints select among: each agent's endpoints, by id.
pub(crate) struct TenantCalls {
    pub(crate) calls: HashMap<String, AgentCalls>,
    pub(crate) primary: String,
    /// The agents' ids, for errors.
    pub(crate) known: Arc<String>,
    pub(crate) max_body: usize,
    pub(crate) body_time: BodyTime,
}

/// A binding's root route (`POST /` for JSON-RPC): the request goes to the agent its `tenant`
/// names (the primary agent when it names none). A service of its own rather than a handler:
/// it reads the request itself.
pub(crate) fn tenant_endpoint(
    tenants: Arc<TenantCalls>,
    call: &'static RootCall,
) -> axum::routing::MethodRouter {
    axum::routing::post_service(tower::service_fn(move |request| {
        tenant_call(Arc::clone(&tenants), call, request)
    }))
}

/// Reads the body first, within the server's size and time limits (which agent's credentials
/// to check depends on it), then hands the request to the agent it names.
async fn tenant_call(
    tenants: Arc<TenantCalls>,
    call: &'static RootCall,
    request: Request,
) -> Result<Response, Infallible> {
    let refuse = |error: &A2aError| a2a_runtime_a2a::refusal(error, call.binding);
    if declared_over(request.headers(), tenants.max_body) {
        return Ok(refuse(&A2aError::PayloadTooLarge {
            limit: tenants.max_body,
        }));
    }
    let (mut parts, body) = request.into_parts();
    let body = match read(body, tenants.max_body, tenants.body_time).await {
        Ok(body) => body,
        Err(error) => return Ok(refuse(&unread(&*error, tenants.max_body))),
    };
    let tenant = match (call.tenant)(parts.uri.path(), &body) {
        Ok(tenant) => tenant,
        Err(response) => return Ok(*response),
    };
    let id = named(&mut parts, tenant, &tenants.primary);
    let Some(endpoint) = tenants
        .calls
        .get(&id)
        .and_then(|calls| calls.get(&call.binding))
    else {
        let error = A2aError::unknown_tenant(&id, tenants.known.to_string());
        return Ok((call.refuse)(&body, &error));
    };
    let request = Request::from_parts(parts, Body::from(body));
    endpoint.clone().oneshot(request).await
}

/// The agent a request is for: the tenant it names (kept for its span), else the primary.
fn named(parts: &mut axum::http::request::Parts, tenant: Option<String>, primary: &str) -> String {
    match tenant {
        Some(tenant) => {
            let named = a2a_runtime_core::quota::RequestTenant(Arc::from(tenant.as_str()));
            parts.extensions.insert(named);
            tenant
        }
        None => primary.to_owned(),
    }
}

/// The whole of `body`, at most `limit` bytes, within `time`. A request's body usually comes in
/// one frame, which is taken as it is; a longer one is gathered.
async fn read(body: Body, limit: usize, time: BodyTime) -> Result<Bytes, BoxError> {
    let body = Limited::new(TimedBody::new(body, time), limit);
    let mut body = std::pin::pin!(body);
    let first = match body.frame().await.transpose()? {
        Some(frame) => frame.into_data().unwrap_or_default(),
        None => return Ok(Bytes::new()),
    };
    if body.is_end_stream() {
        return Ok(first);
    }
    let rest = body.as_mut().collect().await?.to_bytes();
    let mut whole = Vec::with_capacity(first.len() + rest.len());
    whole.extend_from_slice(&first);
    whole.extend_from_slice(&rest);
    Ok(Bytes::from(whole))
}

/// Why a body could not be read: too large, too slow, or broken off.
fn unread(error: &(dyn std::error::Error + 'static), limit: usize) -> A2aError {
    if error.is::<LengthLimitError>() {
        return A2aError::PayloadTooLarge { limit };
    }
    match BodyTooSlow::of(error) {
        Some(slow) => A2aError::BodyTooSlow(slow.to_string()),
        None => A2aError::InvalidRequest(format!("the request body could not be read: {error}")),
    }
}

/// A path no route takes: when its first segment is not an agent, a not-found naming the
/// agents (HTTP+JSON's error body); any other path is a plain 404.
pub(crate) async fn unknown_agent(uri: Uri, ids: Arc<[String]>, known: Arc<String>) -> Response {
    let first = uri.path().trim_start_matches('/').split('/').next();
    match first.filter(|segment| !segment.is_empty()) {
        Some(segment) if !ids.iter().any(|id| id == segment) => {
            a2a_runtime_a2a::rest::error_response(&A2aError::unknown_tenant(
                segment,
                known.to_string(),
            ))
        }
        _ => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}
