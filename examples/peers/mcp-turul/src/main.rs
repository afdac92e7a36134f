//! A greeting tool on turul-mcp-server 0.4.5, built as its README's "Level 1" builds one (a
//! `#[mcp_tool]` function on `McpServer::builder()`), served by the framework's own HTTP
//! transport on `/mcp`. Default features: the 2026-07-28 stateless core.
//! Usage: `peer-mcp-turul ADDRESS` (e.g. 127.0.0.1:18423).

use turul_mcp_derive::mcp_tool;
use turul_mcp_server::prelude::*;

#[mcp_tool(name = "greet", description = "Say hello.")]
async fn greet(#[param(description = "Who to greet.")] name: String) -> McpResult<String> {
    Ok(format!("Hello, {name}!"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address: std::net::SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18423".into())
        .parse()?;
    let server = McpServer::builder()
        .name("greeter")
        .version("1.0.0")
        .tool_fn(greet)
        .bind_address(address)
        .build()?;
    server.run().await?;
    Ok(())
}
