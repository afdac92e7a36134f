//! A webhook receiver for A2A push notifications, the other end of `--push` deliveries: it
//! checks each delivery's `X-A2A-Notification-Token` (and, if asked, its `Authorization`),
//! answers 2xx, and prints one JSON line per delivery on stdout. It reads every wire version
//! the agent delivers in (A2A 1.0 `StreamResponse`s, 0.3 objects, the early draft's events).
//!
//! Receivers must answer quickly and deduplicate (a delivery may come twice); this one only
//! prints. `--fail-first` and `--stall` make it misbehave on purpose, to watch the agent retry
//! and carry on.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use serde_json::{Value, json};

/// How the receiver behaves.
#[derive(Debug, Clone, clap::Parser)]
#[command(about = "Receives A2A push notifications and prints them, one JSON line each")]
pub struct Options {
    /// Address to listen on (:0 picks a free port)
    #[arg(long, default_value = "127.0.0.1:9000")]
    pub bind: SocketAddr,
    /// The token deliveries must carry in X-A2A-Notification-Token (others get 401)
    #[arg(long)]
    pub token: Option<String>,
    /// The Authorization header deliveries must carry, e.g. "Bearer s3cret" (others get 401)
    #[arg(long)]
    pub authorization: Option<String>,
    /// Answer 500 to the first N deliveries (to watch the agent retry)
    #[arg(long, default_value_t = 0)]
    pub fail_first: usize,
    /// Never answer (to see that a receiver that hangs delays nobody)
    #[arg(long)]
    pub stall: bool,
}

struct Receiver {
    options: Options,
    /// Deliveries seen so far.
    seen: AtomicUsize,
}

/// Reads the options from the command line and serves (what the binary does).
pub async fn main() -> std::io::Result<()> {
    run(<Options as clap::Parser>::parse()).await
}

/// Serves `options.bind` until Ctrl-C; prints `listening on http://ADDR/` on stderr first.
pub async fn run(options: Options) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(options.bind).await?;
    eprintln!("listening on http://{}/", listener.local_addr()?);
    let receiver = Arc::new(Receiver {
        options,
        seen: AtomicUsize::new(0),
    });
    let app = Router::new()
        .route("/", post(deliver))
        .route("/{*path}", post(deliver))
        .with_state(receiver);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}

async fn deliver(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let number = receiver.seen.fetch_add(1, Ordering::SeqCst) + 1;
    if receiver.options.stall {
        std::future::pending::<()>().await;
    }
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let token = text("x-a2a-notification-token");
    let authorization = text(header::AUTHORIZATION.as_str());
    let status = if receiver
        .options
        .token
        .as_ref()
        .is_some_and(|expected| token.as_ref() != Some(expected))
        || receiver
            .options
            .authorization
            .as_ref()
            .is_some_and(|expected| authorization.as_ref() != Some(expected))
    {
        StatusCode::UNAUTHORIZED
    } else if number <= receiver.options.fail_first {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::OK
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (kind, task_id, state) = describe(&body);
    // Written field by field so the summary comes first and the body last.
    let fields = [
        ("delivery", json!(number)),
        ("answered", json!(status.as_u16())),
        ("kind", json!(kind)),
        ("taskId", json!(task_id)),
        ("state", json!(state)),
        ("contentType", json!(text(header::CONTENT_TYPE.as_str()))),
        ("token", json!(token)),
        ("authorization", json!(authorization)),
        ("body", body),
    ];
    let line: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("\"{name}\":{value}"))
        .collect();
    println!("{{{}}}", line.join(","));
    status
}

/// What a delivery is about: its kind, the task it names, and the state it reports (if any),
/// in whichever wire version it came.
fn describe(body: &Value) -> (String, Option<String>, Option<String>) {
    let str_at =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    // A2A 1.0: a StreamResponse with one member.
    for kind in ["statusUpdate", "artifactUpdate", "task", "message"] {
        if let Some(inner) = body.get(kind) {
            let task = str_at(inner, "taskId").or_else(|| str_at(inner, "id"));
            let state = inner.get("status").and_then(|s| str_at(s, "state"));
            return (kind.to_owned(), task, state);
        }
    }
    // A2A 0.3: the bare object, tagged by `kind`.
    if let Some(kind) = str_at(body, "kind") {
        let task = str_at(body, "taskId").or_else(|| str_at(body, "id"));
        let state = body.get("status").and_then(|s| str_at(s, "state"));
        return (kind, task, state);
    }
    // The early draft: `{id, status, final}` or `{id, artifact}`.
    let kind = if body.get("artifact").is_some() {
        "artifact"
    } else {
        "status"
    };
    let state = body.get("status").and_then(|s| str_at(s, "state"));
    (kind.to_owned(), str_at(body, "id"), state)
}
