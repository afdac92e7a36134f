//! Serves the A2A bridge: over MCP stdio for desktop hosts (`--stdio`), or over HTTP (MCP at
//! `/mcp`, and A2A).
//!
//! Run: `cargo run -p a2a-bridge -- --stdio`.

use a2a_bridge::Bridge;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Bridge::open().await?.serve().await?;
    Ok(())
}
