//! The agent-host example (currency, booking and hello on one server), built inside the test
//! crate so interop tests can start it (`CARGO_BIN_EXE_interop-host`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    agent_host::host().serve().await
}
