//! The A2A scenario agent, built inside the test crate so `tests/a2a_scenarios.rs` can start it
//! (`CARGO_BIN_EXE_scenarios-server`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    a2a_scenarios::serve_from_command_line().await
}
