//! No web page can drive a local agent: every route checks `Host` (DNS rebinding) and `Origin`
//! (cross-site requests), JSON-RPC and HTTP+JSON require a JSON content type, and CORS is opt-in,
//! while the agent card stays readable from any origin. The console pages a server offers
//! browsers live under the same rules (`browser/console.rs`).

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

/// The browser console: its routes and headers, and real runs in Chromium.
#[path = "browser/console.rs"]
mod console;

use a2a_runtime::server::ServeConfig;
use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

fn send_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message":
        {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"text": "hi"}}],
         "metadata": {"skill": "echo"}}}})
    .to_string()
}

async fn post_root(server: &TestServer, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = server.http.post(&server.base).body(send_body());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn jsonrpc_refuses_bodies_not_declared_json() {
    let server = start(Lab.server()).await;
    let (status, body) = post_root(&server, &[("content-type", "text/plain")]).await;
    assert_eq!(status, 415, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("text/plain")
    );
    let (status, _) = post_root(&server, &[]).await;
    assert_eq!(status, 415, "a missing Content-Type is refused too");
    let (status, body) = post_root(&server, &[("content-type", "application/json")]).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn foreign_host_is_refused_on_every_route() {
    let server = start(Lab.server()).await;
    let json = ("content-type", "application/json");
    let (status, _) = post_root(&server, &[json, ("host", "evil.example")]).await;
    assert_eq!(status, 403);
    for path in ["tasks", "tasks/x", "healthz", ".well-known/agent-card.json"] {
        let response = server
            .http
            .get(format!("{}{path}", server.base))
            .header("host", "rebound.evil.example:8080")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 403, "{path}");
    }
    let (status, _) = post_root(&server, &[json, ("host", "localhost:1234")]).await;
    assert_eq!(status, 200, "loopback names are this agent's");
}

#[tokio::test]
async fn foreign_origin_is_refused_and_local_pages_are_served() {
    let server = start(Lab.server()).await;
    let json = ("content-type", "application/json");
    let (status, body) = post_root(&server, &[json, ("origin", "https://evil.example")]).await;
    assert_eq!(status, 403, "{body}");
    let listed = server
        .http
        .get(format!("{}tasks", server.base))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status().as_u16(), 403, "REST routes are guarded too");
    let (status, _) = post_root(&server, &[json, ("origin", "http://localhost:5173")]).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_card_is_readable_cross_origin_and_cors_is_opt_in() {
    let server = start(Lab.server()).await;
    let card = server
        .http
        .get(format!("{}.well-known/agent-card.json", server.base))
        .header("origin", "https://any.example")
        .send()
        .await
        .unwrap();
    assert_eq!(card.status().as_u16(), 200);
    assert_eq!(card.headers()["access-control-allow-origin"], "*");

    let mut config = ServeConfig::default();
    config.cors_origins = vec!["https://app.example".into()];
    let server = start(Lab.server().config(config)).await;
    let preflight = server
        .http
        .request(reqwest::Method::OPTIONS, &server.base)
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type,a2a-version")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 200);
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    let (status, _) = post_root(
        &server,
        &[
            ("content-type", "application/json"),
            ("origin", "https://app.example"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = post_root(
        &server,
        &[
            ("content-type", "application/json"),
            ("origin", "https://other.example"),
        ],
    )
    .await;
    assert_eq!(status, 403);
}

/// The HTTP status of a 2026-07-28 `tools/list` on `/mcp` with `headers`.
async fn mcp_status(server: &TestServer, headers: &[(&str, &str)]) -> u16 {
    let (status, _) = server
        .mcp_modern_with("tools/list", json!({}), json!({}), headers)
        .await;
    status
}

#[tokio::test]
async fn mcp_is_guarded_with_and_without_cors() {
    // Without CORS `/mcp` is answered before the router; with it, through the router.
    let mut with_cors = ServeConfig::default();
    with_cors.cors_origins = vec!["https://app.example".into()];
    for server in [
        start(Lab.server()).await,
        start(Lab.server().config(with_cors)).await,
    ] {
        assert_eq!(mcp_status(&server, &[]).await, 200);
        assert_eq!(mcp_status(&server, &[("host", "evil.example")]).await, 403);
        let foreign = ("origin", "https://evil.example");
        assert_eq!(mcp_status(&server, &[foreign]).await, 403);
        let local = ("origin", "http://localhost:5173");
        assert_eq!(mcp_status(&server, &[local]).await, 200);
    }
    let mut config = ServeConfig::default();
    config.cors_origins = vec!["https://app.example".into()];
    let server = start(Lab.server().config(config)).await;
    let allowed = ("origin", "https://app.example");
    assert_eq!(mcp_status(&server, &[allowed]).await, 200);
    let preflight = server
        .http
        .request(reqwest::Method::OPTIONS, format!("{}mcp", server.base))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type,mcp-protocol-version",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "https://app.example"
    );
}
