//! Task event streams as Server-Sent Events: one `data:` line per JSON-RPC response envelope,
//! keep-alive comments while idle, and the stream closed after a terminal or interrupted state.

use std::convert::Infallible;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::protocol::a2a::v1;
use crate::protocol::jsonrpc;
use crate::task::{StreamItem, TaskEvents};

/// The SSE response for a JSON-RPC streaming call with request id `id`. The stream also ends
/// when `shutdown` fires, so a graceful shutdown does not wait for long tasks; clients see a
/// stream that ended without a final state and resubscribe.
pub(crate) fn jsonrpc_stream(
    id: Value,
    events: TaskEvents,
    keep_alive: Duration,
    shutdown: CancellationToken,
) -> Response {
    let frames = events
        .take_until(shutdown.cancelled_owned())
        .map(move |item| {
            let body = match &item {
                StreamItem::Snapshot(task) => {
                    jsonrpc::success(&id, v1::StreamResponse::Task(task.as_ref().into()))
                }
                StreamItem::Event(event) => {
                    jsonrpc::success(&id, v1::StreamResponse::from(event.as_ref()))
                }
            };
            // Compact JSON has no raw newlines, so each envelope is exactly one `data:` line.
            Ok::<_, Infallible>(Event::default().data(String::from_utf8_lossy(&body)))
        });
    let sse = Sse::new(frames).keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"));
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
