//! Serves the coordination hub: over MCP stdio for a coding agent's MCP host (`--stdio`; the
//! processes several agents start share the records under the data directory), or over HTTP
//! (MCP at `/mcp`, and A2A) for many agents at once; or runs one of its commands (`init`,
//! `hook`, `status`).
//!
//! Install: `cargo install --locked --path examples/coordination-hub` (`--features postgres`
//! for replicas on Postgres), then `coordination-hub init` in
//! a repository.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> std::process::ExitCode {
    coordination_hub::commands::run_from_command_line().await
}
