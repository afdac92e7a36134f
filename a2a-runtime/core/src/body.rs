//! Request bodies read within time: no pause longer than the body timeout, and the whole body
//! within the body deadline of the request's arrival. A pause limit alone lets a client send one
//! byte every few seconds and hold a connection for as long as its `Content-Length` lasts; the
//! deadline bounds that. The timer is armed only when a frame is not there yet, so a body that
//! arrives with its head (most JSON requests) sets none.

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::HeaderMap;
use http::header::CONTENT_LENGTH;
use http_body::{Body as HttpBody, Frame, SizeHint};
use pin_project_lite::pin_project;
use tokio::time::{Instant, Sleep};

/// The error of a timed body: whatever its inner body failed with, or [`BodyTooSlow`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How long a request body may take.
#[derive(Debug, Clone, Copy)]
pub struct BodyTime {
    /// The longest pause between two pieces of the body.
    pub pause: Duration,
    /// The longest the whole body may take, from the request's arrival.
    pub deadline: Duration,
}

/// A body that took too long: which limit it broke.
#[derive(Debug, thiserror::Error)]
pub enum BodyTooSlow {
    #[error("the request body paused for longer than {}", humantime::format_duration(*.0))]
    Paused(Duration),
    #[error(
        "the request body took longer than {} to arrive in all",
        humantime::format_duration(*.0)
    )]
    Overdue(Duration),
}

impl BodyTooSlow {
    /// The slowness behind a body's read error, if that was the cause.
    pub fn of<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Self> {
        let mut cause = Some(error);
        while let Some(error) = cause {
            if let Some(slow) = error.downcast_ref::<Self>() {
                return Some(slow);
            }
            cause = error.source();
        }
        None
    }
}

pin_project! {
    /// `inner`, failing with [`BodyTooSlow`] when it pauses or lasts too long.
    pub struct TimedBody<B> {
        #[pin]
        inner: B,
        time: BodyTime,
        started: Instant,
        // Armed while a frame is awaited; `paused_until` tells which limit it stands for.
        #[pin]
        timer: Option<Sleep>,
        paused_until: Option<Instant>,
    }
}

impl<B> TimedBody<B> {
    /// `inner`, timed from now.
    pub fn new(inner: B, time: BodyTime) -> Self {
        Self {
            inner,
            time,
            started: Instant::now(),
            timer: None,
            paused_until: None,
        }
    }
}

impl<B> HttpBody for TimedBody<B>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let mut this = self.project();
        if let Poll::Ready(frame) = this.inner.poll_frame(cx) {
            // A frame came: the next pause is timed from here.
            this.timer.set(None);
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        if this.timer.is_none() {
            let overdue = *this.started + this.time.deadline;
            let paused = Instant::now() + this.time.pause;
            let until = overdue.min(paused);
            *this.paused_until = (paused <= overdue).then_some(until);
            this.timer.set(Some(tokio::time::sleep_until(until)));
        }
        if let Some(timer) = this.timer.as_mut().as_pin_mut() {
            ready!(timer.poll(cx));
            let slow = match this.paused_until {
                Some(_) => BodyTooSlow::Paused(this.time.pause),
                None => BodyTooSlow::Overdue(this.time.deadline),
            };
            return Poll::Ready(Some(Err(slow.into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether the request declares a `Content-Length` over `limit`.
pub fn declared_over(headers: &HeaderMap, limit: usize) -> bool {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|length| length > limit as u64)
}

#[cfg(test)]
mod tests {
    use futures::StreamExt as _;

    use super::*;

    const TIME: BodyTime = BodyTime {
        pause: Duration::from_millis(100),
        deadline: Duration::from_millis(250),
    };

    /// One byte after each gap (ms), read through a [`TimedBody`].
    async fn read_trickle(gaps: &'static [u64]) -> Result<Bytes, BoxError> {
        use http_body_util::BodyExt as _;
        let frames = futures::stream::iter(gaps).then(|gap| async move {
            tokio::time::sleep(Duration::from_millis(*gap)).await;
            Ok::<_, std::io::Error>(Frame::data(Bytes::from_static(b"x")))
        });
        let body = TimedBody::new(http_body_util::StreamBody::new(frames), TIME);
        Ok(body.collect().await?.to_bytes())
    }

    fn slowness(error: &BoxError) -> Option<&BodyTooSlow> {
        BodyTooSlow::of(error.as_ref())
    }

    #[tokio::test(start_paused = true)]
    async fn short_pauses_within_the_deadline_read_whole() {
        assert_eq!(read_trickle(&[50, 50, 50]).await.unwrap().len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_long_pause_is_refused_naming_it() {
        let error = read_trickle(&[50, 150]).await.unwrap_err();
        assert!(
            matches!(slowness(&error), Some(BodyTooSlow::Paused(_))),
            "{error}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn short_pauses_past_the_deadline_are_refused_naming_it() {
        let error = read_trickle(&[90, 90, 90, 90]).await.unwrap_err();
        assert!(
            matches!(slowness(&error), Some(BodyTooSlow::Overdue(_))),
            "{error}"
        );
    }
}
