//! Serves the coordination hub: over MCP stdio for a coding agent's MCP host (`--stdio`; the
//! processes several agents start share the records under the data directory), or over HTTP
//! (MCP at `/mcp`, and A2A) for many agents at once.
//!
//! Run: `cargo run -p coordination-hub -- --stdio`.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    coordination_hub::serve_from_command_line().await
}
