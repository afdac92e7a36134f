//! A request answered where it arrived, as a stream: what its handler sends the client
//! meanwhile (routed to it by whoever carries it), then its answer.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use futures::future::BoxFuture;
use rmcp::model::ServerJsonRpcMessage;
use tokio::sync::mpsc;

/// A directly answered call's response: what the call sends its client (progress, log messages)
/// goes in at once, so it precedes the answer (a queue through a serve loop could deliver it
/// after).
#[derive(Debug, Clone)]
pub struct CallOutbox(pub mpsc::Sender<ServerJsonRpcMessage>);

/// What becomes of a call whose stream is dropped before its answer (its client went away). It
/// runs on to its end on a task of its own, its answer dropped, as in rmcp's serve loop: the
/// handler is what passes a cancellation on to what it started.
#[derive(Debug, Clone)]
pub(crate) enum WhenLeft {
    /// It finishes: a session's call.
    Finish,
    /// It is cancelled through this token first: a stateless call, whose client closing the
    /// stream cancels it.
    Cancel(tokio_util::sync::CancellationToken),
}

/// One call's messages: what was routed to it, then its answer; `guard` is held until the
/// answer is taken (or the call is over).
pub(crate) struct CallStream<G: Send + Unpin + 'static> {
    answer: Option<BoxFuture<'static, ServerJsonRpcMessage>>,
    answered: Option<ServerJsonRpcMessage>,
    routed: mpsc::Receiver<ServerJsonRpcMessage>,
    guard: Option<G>,
    left: WhenLeft,
}

impl<G: Send + Unpin + 'static> CallStream<G> {
    pub(crate) fn new(
        answer: BoxFuture<'static, ServerJsonRpcMessage>,
        routed: mpsc::Receiver<ServerJsonRpcMessage>,
        guard: G,
        left: WhenLeft,
    ) -> Self {
        Self {
            answer: Some(answer),
            answered: None,
            routed,
            guard: Some(guard),
            left,
        }
    }
}

impl<G: Send + Unpin + 'static> Stream for CallStream<G> {
    type Item = ServerJsonRpcMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Every field is `Unpin`: the answer is boxed.
        let call = self.get_mut();
        if let Poll::Ready(Some(message)) = call.routed.poll_recv(cx) {
            return Poll::Ready(Some(message));
        }
        if let Some(answer) = &mut call.answer {
            let Poll::Ready(message) = answer.as_mut().poll(cx) else {
                return Poll::Pending;
            };
            call.answer = None;
            call.answered = Some(message);
        }
        // What the handler sent before it answered goes first: it waited for each to be taken.
        if let Ok(message) = call.routed.try_recv() {
            return Poll::Ready(Some(message));
        }
        call.guard = None;
        Poll::Ready(call.answered.take())
    }
}

impl<G: Send + Unpin + 'static> Drop for CallStream<G> {
    fn drop(&mut self) {
        let Some(answer) = self.answer.take() else {
            return;
        };
        if let WhenLeft::Cancel(cancel) = &self.left {
            cancel.cancel();
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let guard = self.guard.take();
            runtime.spawn(async move {
                let _guard = guard;
                answer.await;
            });
        }
    }
}
