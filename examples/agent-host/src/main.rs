//! Serves three example agents behind one server.
//!
//! Run: `cargo run -p agent-host` (flags: `--bind`, `--public-url`, `--store`, `--api-keys`,
//! `--jwt-secret`, …; `--help` lists them).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    agent_host::host().serve().await
}
