//! What the listener serves: MCP endpoints answered straight behind the browser guard (the hot
//! path of every MCP call, which each router level would box and clone once more), everything
//! else through the router, which guards its own routes.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::future::{BoxFuture, Either, Ready, ready};
use tower::Service;

use super::guard::BrowserGuard;
use super::in_flight::Tracking;
use a2a_runtime_mcp::McpEndpoint;

/// See the module docs.
#[derive(Clone)]
pub(crate) struct Front {
    router: Router,
    /// `None` when every request goes through the router (MCP behind CORS).
    direct: Option<Direct>,
}

/// The MCP endpoints answered directly, by path, and the guard in front of them.
#[derive(Clone)]
struct Direct {
    guard: Arc<BrowserGuard>,
    endpoints: Arc<[(String, McpEndpoint)]>,
}

/// The service the listener serves.
pub(crate) type Served = Tracking<Front>;

impl Front {
    /// `router`, with `endpoints` (paths ending in `/mcp`) answered behind `guard` before it.
    pub(crate) fn new(
        router: Router,
        guard: Arc<BrowserGuard>,
        endpoints: Vec<(String, McpEndpoint)>,
    ) -> Self {
        Self {
            router,
            direct: (!endpoints.is_empty()).then(|| Direct {
                guard,
                endpoints: endpoints.into(),
            }),
        }
    }

    /// The endpoint answering `path` directly, if any.
    fn direct(&self, path: &str) -> Option<(&BrowserGuard, &McpEndpoint)> {
        let direct = self.direct.as_ref()?;
        if !path.ends_with(super::paths::MCP) {
            return None;
        }
        direct
            .endpoints
            .iter()
            .find(|(at, _)| at == path)
            .map(|(_, endpoint)| (&*direct.guard, endpoint))
    }
}

impl Service<Request> for Front {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<
        Either<
            Ready<Result<Response, Infallible>>,
            BoxFuture<'static, Result<Response, Infallible>>,
        >,
        RouteFuture<Infallible>,
    >;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match self.direct(request.uri().path()) {
            Some((guard, endpoint)) => Either::Left(match guard.refusal(&request) {
                Some(refusal) => Either::Left(ready(Ok(refusal))),
                None => Either::Right(endpoint.handle(request)),
            }),
            None => Either::Right(self.router.call(request)),
        }
    }
}
