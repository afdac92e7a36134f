//! Serves the conformance fixture agent over A2A and MCP.
//!
//! Run: `cargo run -p mcp-conformance`, then point the official suite at it:
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8080/mcp`.

use mcp_conformance::Conformance;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Conformance.serve().await
}
