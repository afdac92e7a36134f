//! A greeting tool on tower-mcp 0.25.0, built as its README builds one (`ToolBuilder` with a typed
//! input, an `McpRouter`), served over its streamable HTTP transport (`HttpTransport`, sessions
//! for 2025-11-25 clients, the stateless path for 2026-07-28 ones) on `/mcp`, with TCP_NODELAY
//! as every MCP server in the benchmark.
//! Usage: `peer-mcp-tower ADDRESS` (e.g. 127.0.0.1:18422).

use axum::serve::ListenerExt;
use schemars::JsonSchema;
use serde::Deserialize;
use tower_mcp::transport::http::HttpTransport;
use tower_mcp::{CallToolResult, McpRouter, ToolBuilder};

/// The tool's input.
#[derive(Debug, Deserialize, JsonSchema)]
struct GreetInput {
    /// Who to greet.
    name: String,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18422".into());
    let greet = ToolBuilder::new("greet")
        .description("Say hello.")
        .read_only()
        .handler(|input: GreetInput| async move {
            Ok(CallToolResult::text(format!("Hello, {}!", input.name)))
        })
        .build();
    let router = McpRouter::new().server_info("greeter", "1.0.0").tool(greet);
    let app = axum::Router::new().nest_service("/mcp", HttpTransport::new(router).into_router());
    let listener = tokio::net::TcpListener::bind(&address)
        .await?
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            tokio::signal::ctrl_c().await.ok();
        })
        .await
}
