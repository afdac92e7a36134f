//! The MCP conformance fixture agent, built inside the test crate so `tests/mcp_conformance.rs`
//! can start it (`CARGO_BIN_EXE_conformance-server`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    mcp_conformance::Conformance.serve().await
}
