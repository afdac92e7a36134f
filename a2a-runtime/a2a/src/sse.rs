//! Server-Sent Events framing shared by every A2A binding and version: one `data:` line per
//! item, keep-alive comments while idle, the stream closed after a terminal or interrupted state
//! (the task event stream ends there) or when the server shuts down.

use std::convert::Infallible;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::task::{StreamItem, TaskEvents};

/// Renders one stream item as the JSON documents a binding sends for it (usually one).
pub type Frames = Box<dyn FnMut(&StreamItem) -> Vec<Vec<u8>> + Send>;

/// The SSE response for `events`, each item rendered by `frames`. The stream also ends when
/// `shutdown` fires, so a graceful shutdown does not wait for long tasks; clients see a stream
/// that ended without a final state and resubscribe.
pub fn respond(
    events: TaskEvents,
    mut frames: Frames,
    keep_alive: Duration,
    shutdown: CancellationToken,
) -> Response {
    let events = events
        .take_until(shutdown.cancelled_owned())
        .flat_map(move |item| {
            // Compact JSON has no raw newlines, so each document is exactly one `data:` line.
            let events: Vec<_> = frames(&item)
                .into_iter()
                .map(|json| {
                    Ok::<_, Infallible>(Event::default().data(String::from_utf8_lossy(&json)))
                })
                .collect();
            futures::stream::iter(events)
        });
    let sse = Sse::new(events).keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"));
    (
        // Reverse proxies such as nginx would otherwise buffer the stream.
        [(
            HeaderName::from_static("x-accel-buffering"),
            HeaderValue::from_static("no"),
        )],
        sse,
    )
        .into_response()
}
