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
    /// gRPC's own port: every other request is refused.
    #[cfg(feature = "grpc")]
    grpc_only: bool,
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
            #[cfg(feature = "grpc")]
            grpc_only: false,
        }
    }

    /// This front as gRPC's own port serves it: gRPC requests only, others answered 415 as
    /// the gRPC specification says a server answers what is not gRPC.
    #[cfg(feature = "grpc")]
    pub(crate) fn grpc_only(self) -> Self {
        Self {
            grpc_only: true,
            ..self
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
        #[cfg(feature = "grpc")]
        if self.grpc_only && !is_grpc(&request) {
            return Either::Left(Either::Left(ready(Ok(not_grpc()))));
        }
        match self.direct(request.uri().path()) {
            Some((guard, endpoint)) => Either::Left(match guard.refusal(&request) {
                Some(refusal) => Either::Left(ready(Ok(refusal))),
                None => Either::Right(endpoint.handle(request)),
            }),
            None => Either::Right(self.router.call(request)),
        }
    }
}

/// Whether `request` is a gRPC call (`application/grpc`, `application/grpc+proto` …).
#[cfg(feature = "grpc")]
fn is_grpc(request: &Request) -> bool {
    request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc"))
}

/// What gRPC's own port answers to anything else.
#[cfg(feature = "grpc")]
fn not_grpc() -> Response {
    use axum::response::IntoResponse as _;
    (
        axum::http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "this port serves gRPC only (lf.a2a.v1.A2AService); the agent's card names where its \
         other bindings are\n",
    )
        .into_response()
}
