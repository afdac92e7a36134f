//! Counting the requests in flight, so a shutdown waits for their responses (streams included)
//! to be written before it ends the tasks behind them.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::response::Response;
use futures::future::Either;
use hyper::body::{Frame, SizeHint};
use tower::{Layer, Service};

/// Requests whose responses are still being written (streams included), except those the
/// server names untracked (MCP's standalone `GET` stream, which carries no call of its own).
#[derive(Debug, Default)]
pub(crate) struct InFlight(AtomicUsize);

impl InFlight {
    /// How many requests are in flight.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// Counts each request of a router as in flight until its response body is finished or
/// dropped (a tower layer: nothing boxed or cloned per request but the counted body).
#[derive(Clone)]
pub(crate) struct TrackLayer {
    pub(crate) in_flight: Arc<InFlight>,
    /// Requests not counted.
    pub(crate) untracked: fn(&Request) -> bool,
}

impl<S> Layer<S> for TrackLayer {
    type Service = Tracking<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Tracking {
            in_flight: Arc::clone(&self.in_flight),
            untracked: self.untracked,
            inner,
        }
    }
}

/// A service whose requests are counted.
#[derive(Clone)]
pub(crate) struct Tracking<S> {
    in_flight: Arc<InFlight>,
    untracked: fn(&Request) -> bool,
    inner: S,
}

impl<S> Service<Request> for Tracking<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, Counted<S::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if (self.untracked)(&request) {
            return Either::Left(self.inner.call(request));
        }
        self.in_flight.0.fetch_add(1, Ordering::AcqRel);
        let done = Done(Arc::clone(&self.in_flight));
        Either::Right(Counted {
            response: self.inner.call(request),
            done: Some(done),
        })
    }
}

pin_project_lite::pin_project! {
    /// A response on its way, counted until its body is written.
    pub(crate) struct Counted<F> {
        #[pin]
        response: F,
        done: Option<Done>,
    }
}

impl<F> Future for Counted<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Ok(response) = ready!(this.response.poll(cx));
        Poll::Ready(Ok(match this.done.take() {
            Some(done) => response.map(|body| Body::new(Tracked { body, _done: done })),
            None => response,
        }))
    }
}

/// A response body that counts as in flight until it is dropped. Its length and end are the
/// inner body's, so a response with a known length keeps its `Content-Length` (instead of
/// turning chunked, an extra write per response).
struct Tracked {
    body: Body,
    _done: Done,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// One request in flight; dropping it ends the count.
pub(crate) struct Done(Arc<InFlight>);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::AcqRel);
    }
}
