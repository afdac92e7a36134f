//! Serves the scenario agent over every A2A binding (and MCP).
//!
//! Run: `cargo run -p a2a-scenarios`, then point an A2A test kit at `http://127.0.0.1:8080/`
//! (`-- --no-streaming` for the reduced card, `--test-bearer TOKEN --test-bearer-scopes S` for
//! a kit that authenticates; `--help` lists the rest).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    a2a_scenarios::serve_from_command_line().await
}
