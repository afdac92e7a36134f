//! The layer that reads every A2A request body within time ([`TimedBody`]): no pause over the
//! body timeout, the whole body within the body deadline.

use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;

use a2a_runtime_core::body::{BodyTime, TimedBody};

/// A layer timing every request body with [`TimedBody`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyTimeLayer(pub(crate) BodyTime);

impl<S> tower::Layer<S> for BodyTimeLayer {
    type Service = BodyTimeService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BodyTimeService {
            inner,
            time: self.0,
        }
    }
}

/// See [`BodyTimeLayer`].
#[derive(Debug, Clone)]
pub(crate) struct BodyTimeService<S> {
    inner: S,
    time: BodyTime,
}

impl<S> tower::Service<Request> for BodyTimeService<S>
where
    S: tower::Service<Request>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let time = self.time;
        self.inner
            .call(request.map(|body| Body::new(TimedBody::new(body, time))))
    }
}
