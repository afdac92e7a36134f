//! What a listener serves: a few paths answered straight by services of their own behind the
//! browser guard (the hot paths, every MCP call and an agent's JSON-RPC calls, which each
//! router level would box and clone once more), everything else through the router, which
//! guards its own routes; and, for an address that serves one kind of request alone, a refusal
//! of every other kind first.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::future::{BoxFuture, Either, Ready, ready};
use tower::Service;

use super::guard::BrowserGuard;

/// A service answering the requests of one path directly, without the router.
pub(crate) trait Direct: Send + Sync + 'static {
    /// Whether it answers `method` at its path (the router answers the others).
    fn answers(&self, method: &Method) -> bool;

    /// The response to `request`, whose path is this service's.
    fn answer(&self, request: Request) -> BoxFuture<'static, Result<Response, Infallible>>;
}

/// The answer to a request an address does not serve, `None` for one it does.
pub(crate) type Refuse = fn(&Request) -> Option<Response>;

/// See the module docs.
pub(crate) struct Front<D> {
    router: Router,
    /// `None` when every request goes through the router.
    direct: Option<Arc<Directs<D>>>,
    refuse: Option<Refuse>,
}

impl<D> Clone for Front<D> {
    fn clone(&self) -> Self {
        Self {
            router: self.router.clone(),
            direct: self.direct.clone(),
            refuse: self.refuse,
        }
    }
}

/// The paths answered directly (a few: two an agent), and the guard in front of them.
struct Directs<D> {
    guard: Arc<BrowserGuard>,
    endpoints: Box<[(String, D)]>,
}

impl<D: Direct> Front<D> {
    /// `router`, with `endpoints` (each a path and its service) answered behind `guard`
    /// before it.
    pub(crate) fn new(
        router: Router,
        guard: Arc<BrowserGuard>,
        endpoints: Vec<(String, D)>,
    ) -> Self {
        Self {
            router,
            direct: (!endpoints.is_empty()).then(|| {
                Arc::new(Directs {
                    guard,
                    endpoints: endpoints.into(),
                })
            }),
            refuse: None,
        }
    }

    /// This front where `refuse` answers first: an address that serves one kind of request.
    pub(crate) fn refusing(self, refuse: Refuse) -> Self {
        Self {
            refuse: Some(refuse),
            ..self
        }
    }

    /// The service answering `request` directly, if any.
    fn direct(&self, request: &Request) -> Option<(&BrowserGuard, &D)> {
        let direct = self.direct.as_deref()?;
        let path = request.uri().path();
        direct
            .endpoints
            .iter()
            .find(|(at, endpoint)| at == path && endpoint.answers(request.method()))
            .map(|(_, endpoint)| (&*direct.guard, endpoint))
    }
}

impl<D: Direct> Service<Request> for Front<D> {
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
        if let Some(refusal) = self.refuse.and_then(|refuse| refuse(&request)) {
            return Either::Left(Either::Left(ready(Ok(refusal))));
        }
        match self.direct(&request) {
            Some((guard, endpoint)) => Either::Left(match guard.refusal(&request) {
                Some(refusal) => Either::Left(ready(Ok(refusal))),
                None => Either::Right(endpoint.answer(request)),
            }),
            None => Either::Right(self.router.call(request)),
        }
    }
}
