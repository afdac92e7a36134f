//! Serves the scenario agent over every A2A binding (and MCP).
//!
//! Run: `cargo run -p a2a-scenarios`, then point an A2A test kit at `http://127.0.0.1:8080/`.

use a2a_scenarios::Scenarios;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Scenarios.serve().await
}
