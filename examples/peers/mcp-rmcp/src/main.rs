//! A greeting tool on rmcp 3.11.0 written with its macros, as its README and counter examples
//! write one (`#[tool_router(server_handler)]`, a `#[tool]` method taking `Parameters` of a
//! schemars type), served by its `StreamableHttpService` with the local session manager on
//! `/mcp`, with TCP_NODELAY as every MCP server in the benchmark.
//! Usage: `peer-mcp-rmcp ADDRESS` (e.g. 127.0.0.1:18421).

use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// The tool's input.
#[derive(Debug, Deserialize, JsonSchema)]
struct GreetInput {
    /// Who to greet.
    name: String,
}

/// Serves one tool, `greet`.
#[derive(Clone)]
struct Greeter;

#[tool_router(server_handler)]
impl Greeter {
    #[tool(description = "Say hello.")]
    async fn greet(&self, Parameters(input): Parameters<GreetInput>) -> String {
        format!("Hello, {}!", input.name)
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18421".into());
    let service = StreamableHttpService::new(
        || Ok(Greeter),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
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
