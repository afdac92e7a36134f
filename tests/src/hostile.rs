//! A hostile A2A agent on loopback, for the calling side: its cards and answers are larger than
//! any client should read (1 GiB, made as they are sent, so the test costs no memory unless the
//! client buffers them), and its streams send their headers and then nothing.

use a2a_runtime::axum::body::{Body, Bytes};
use a2a_runtime::axum::http::{HeaderValue, header};
use a2a_runtime::axum::response::{IntoResponse, Response};
use a2a_runtime::axum::{self, Json, Router, routing};
use futures::StreamExt as _;
use serde_json::{Value, json};

/// What the hostile agent sends: 1 GiB in 64 KiB chunks.
const HUGE_CHUNKS: usize = 16 * 1024;
const CHUNK: usize = 64 * 1024;

/// The agent's base URL; its card is well-formed and names JSON-RPC 1.0 at the base.
/// `/huge` serves a 1 GiB card without a length, `/declared` one whose `Content-Length` says
/// 1 GiB.
pub async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let card = json!({
        "name": "Hostile",
        "supportedInterfaces": [
            {"url": format!("{base}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]
    });
    let app = Router::new()
        .route(
            "/.well-known/agent-card.json",
            routing::get(move || {
                let card = card.clone();
                async move { Json(card) }
            }),
        )
        .route(
            "/huge/.well-known/agent-card.json",
            routing::get(|| async { huge_json(false) }),
        )
        .route(
            "/declared/.well-known/agent-card.json",
            routing::get(|| async { huge_json(true) }),
        )
        .route("/", routing::post(answer));
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// 1 GiB of a JSON string, made as it is sent; with `declared`, its length is announced.
fn huge_json(declared: bool) -> Response {
    let chunks = futures::stream::iter(0..HUGE_CHUNKS).map(|n| {
        let chunk = match n {
            0 => Bytes::from(format!("{{\"name\":\"{}", "x".repeat(CHUNK - 9))),
            _ => Bytes::from(vec![b'x'; CHUNK]),
        };
        Ok::<_, std::io::Error>(chunk)
    });
    let mut response = Body::from_stream(chunks).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if declared {
        headers.insert(
            header::CONTENT_LENGTH,
            HeaderValue::from(HUGE_CHUNKS * CHUNK),
        );
    }
    response
}

/// A streaming method gets SSE headers and then silence; any other a 1 GiB answer.
async fn answer(Json(request): Json<Value>) -> Response {
    if request["method"] == "SendStreamingMessage" || request["method"] == "SubscribeToTask" {
        let silence = futures::stream::pending::<Result<Bytes, std::io::Error>>();
        let mut response = Body::from_stream(silence).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        return response;
    }
    huge_json(false)
}
