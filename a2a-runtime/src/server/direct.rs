//! The endpoints a server's front answers without its router (`transport/front.rs`): every MCP
//! endpoint, and every agent's JSON-RPC endpoint that no CORS layer wraps. Each is the same
//! service the router would reach, gate and all, called without the router's levels, which box
//! and clone the route once more each per request.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use futures::future::BoxFuture;
use tower::{Service, ServiceExt};

use super::transport::Direct;
use a2a_runtime_mcp::McpEndpoint;

/// A service's answer to one request.
pub(crate) type Answer =
    Arc<dyn Fn(Request) -> BoxFuture<'static, Result<Response, Infallible>> + Send + Sync>;

/// An endpoint answered without the router.
#[derive(Clone)]
pub(crate) enum Directed {
    /// An MCP endpoint: every method at its path.
    Mcp(McpEndpoint),
    /// An agent's JSON-RPC endpoint behind its gate: its `POST`s (the router answers the rest
    /// at that path: the console's page, or 405).
    JsonRpc(Answer),
}

impl Direct for Directed {
    fn answers(&self, method: &Method) -> bool {
        match self {
            Self::Mcp(_) => true,
            Self::JsonRpc(_) => method == Method::POST,
        }
    }

    fn answer(&self, request: Request) -> BoxFuture<'static, Result<Response, Infallible>> {
        match self {
            Self::Mcp(endpoint) => endpoint.handle(request),
            Self::JsonRpc(answer) => answer(request),
        }
    }
}

/// `service` as an [`Answer`]: a clone of it takes each request (the gate's services are a few
/// shared pointers).
pub(crate) fn answer<S>(service: S) -> Answer
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + Sync + 'static,
    S::Future: Send + 'static,
{
    Arc::new(move |request| Box::pin(service.clone().oneshot(request)))
}
