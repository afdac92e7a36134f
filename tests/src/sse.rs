//! Reading Server-Sent Events from a response, as an A2A client does: `data:` lines hold one
//! JSON-RPC envelope each, comment lines (`:`) are keep-alives, and events may be split across
//! network chunks.

use std::time::Duration;

use serde_json::Value;

/// How long to wait for the next item, and for a whole stream, before failing the test: hang
/// guards, not timing assertions. (Keep-alive comments would otherwise keep a stream that never
/// ends alive forever.)
const HANG_GUARD: Duration = Duration::from_secs(20);
const STREAM_GUARD: Duration = Duration::from_secs(90);

/// One item of an SSE stream.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    /// A comment line (keep-alive), without the leading `:`.
    Comment(String),
    /// An event's data, parsed as JSON.
    Data(Value),
}

/// An SSE response being read.
#[derive(Debug)]
pub struct SseStream {
    response: reqwest::Response,
    buffer: String,
    ended: bool,
    deadline: tokio::time::Instant,
}

impl SseStream {
    /// Wraps a `text/event-stream` response.
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            response,
            buffer: String::new(),
            ended: false,
            deadline: tokio::time::Instant::now() + STREAM_GUARD,
        }
    }

    /// The next comment or event; `None` once the server closed the stream.
    pub async fn next_item(&mut self) -> Option<SseItem> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(item) = parse_block(&block) {
                    return Some(item);
                }
                continue;
            }
            if self.ended {
                return None;
            }
            let deadline = self.deadline.min(tokio::time::Instant::now() + HANG_GUARD);
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .expect("the stream stayed silent for 20 s, or ran for more than 90 s")
                .expect("stream read");
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None => self.ended = true,
            }
        }
    }

    /// The next event's JSON-RPC envelope, skipping comments; `None` at the end of the stream.
    pub async fn next_event(&mut self) -> Option<Value> {
        loop {
            match self.next_item().await? {
                SseItem::Comment(_) => {}
                SseItem::Data(value) => return Some(value),
            }
        }
    }

    /// The `result` of the next event (a `StreamResponse`), panicking on an error envelope.
    pub async fn next_result(&mut self) -> Option<Value> {
        let event = self.next_event().await?;
        assert_eq!(event["jsonrpc"], "2.0", "{event}");
        assert!(event.get("error").is_none(), "error event: {event}");
        Some(event["result"].clone())
    }

    /// Every remaining `result` until the server closes the stream.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut results = Vec::new();
        while let Some(result) = self.next_result().await {
            results.push(result);
        }
        results
    }
}

fn parse_block(block: &str) -> Option<SseItem> {
    let mut data: Vec<&str> = Vec::new();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix(':') {
            if data.is_empty() {
                return Some(SseItem::Comment(comment.trim().to_owned()));
            }
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if data.is_empty() {
        return None;
    }
    let json = data.join("\n");
    Some(SseItem::Data(serde_json::from_str(&json).unwrap_or_else(
        |e| panic!("event data is not JSON ({e}): {json:?}"),
    )))
}

/// The task state named in a `StreamResponse` (`task` or `statusUpdate`).
pub fn state_of(result: &Value) -> Option<&str> {
    result
        .get("task")
        .or_else(|| result.get("statusUpdate"))
        .and_then(|v| v["status"]["state"].as_str())
}

/// The task id in a `StreamResponse`.
pub fn task_id_of(result: &Value) -> &str {
    result
        .get("task")
        .map(|t| &t["id"])
        .or_else(|| result.get("statusUpdate").map(|s| &s["taskId"]))
        .or_else(|| result.get("artifactUpdate").map(|a| &a["taskId"]))
        .and_then(Value::as_str)
        .expect("a task id")
}
