//! Closing HTTP/2 connections that carry no stream, as HTTP/1.1 keep-alive connections are
//! closed by their header timeout: an idle connection otherwise holds a connection slot for
//! as long as its client answers pings, and a few such clients fill the server. Pings are not
//! activity; a stream is, from its request until its response body ends (a long subscription
//! keeps its connection).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use futures::task::AtomicWaker;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::rt::{Read, ReadBufCursor, Write};
use tokio::time::{Instant, Sleep};

/// One connection's open streams and when the last one ended.
#[derive(Clone, Default)]
pub(crate) struct Activity(Arc<Shared>);

#[derive(Default)]
struct Shared {
    open: AtomicUsize,
    last: Mutex<Option<Instant>>,
    /// The connection's reader, woken when its last stream ends so the idle timer starts.
    reader: AtomicWaker,
}

impl Activity {
    fn begin(&self) -> Stream {
        self.0.open.fetch_add(1, Ordering::AcqRel);
        Stream(self.clone())
    }

    /// When the connection became idle, or `None` while a stream is open.
    fn idle_since(&self) -> Option<Instant> {
        if self.0.open.load(Ordering::Acquire) > 0 {
            return None;
        }
        let last = *self.0.last.lock().unwrap_or_else(PoisonError::into_inner);
        Some(last.unwrap_or_else(Instant::now))
    }
}

/// A stream in progress; dropping it (its response body ended or was dropped) ends it.
struct Stream(Activity);

impl Drop for Stream {
    fn drop(&mut self) {
        let shared = &self.0.0;
        *shared.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        shared.open.fetch_sub(1, Ordering::AcqRel);
        shared.reader.wake();
    }
}

/// A connection's reads, ending (as the client closing would) once it has been idle for
/// `idle`: hyper then ends the connection, and its slot is free.
pub(crate) struct IdleIo<I> {
    io: I,
    activity: Activity,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
}

impl<I> IdleIo<I> {
    pub(crate) fn new(io: I, activity: Activity, idle: Duration) -> Self {
        Self {
            io,
            activity,
            idle,
            timer: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

impl<I: Read + Unpin> Read for IdleIo<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        this.activity.0.reader.register(cx.waker());
        if let Some(since) = this.activity.idle_since() {
            let deadline = since + this.idle;
            if this.timer.deadline() != deadline {
                this.timer.as_mut().reset(deadline);
            }
            if this.timer.as_mut().poll(cx).is_ready() {
                // Nothing read: the end of the connection's input.
                return Poll::Ready(Ok(()));
            }
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<I: Write + Unpin> Write for IdleIo<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }
}

/// A connection's service, each request a stream of its activity until its response body
/// ends.
#[derive(Clone)]
pub(crate) struct Counted<S> {
    pub(crate) inner: S,
    pub(crate) activity: Activity,
}

impl<S> hyper::service::Service<http::Request<Incoming>> for Counted<S>
where
    S: hyper::service::HttpService<Incoming, ResBody = Body> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let stream = self.activity.begin();
        let mut inner = self.inner.clone();
        Box::pin(async move {
            let response = inner.call(request).await?;
            Ok(response.map(|body| {
                Body::new(Tracked {
                    body,
                    _stream: stream,
                })
            }))
        })
    }
}

/// A response body that keeps its stream open until it ends or is dropped.
struct Tracked {
    body: Body,
    _stream: Stream,
}

impl axum::body::HttpBody for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
