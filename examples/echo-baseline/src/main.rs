//! A bare axum JSON echo: parses the request body as JSON and writes it back. It is the baseline
//! `scripts/bench-load` compares the agent runtime against, so it is built the same way (axum,
//! multi-threaded tokio, TCP_NODELAY).
//!
//! Run: `cargo run --release -p echo-baseline -- 127.0.0.1:8090`

use axum::Json;
use axum::Router;
use axum::routing::post;
use axum::serve::ListenerExt;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8090".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("echo on http://{}/", listener.local_addr()?);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new().route(
        "/",
        post(|Json(body): Json<serde_json::Value>| async move { Json(body) }),
    );
    axum::serve(listener, app).await
}
