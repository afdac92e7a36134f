//! Serves three example agents behind one server.
//!
//! Run: `cargo run -p agent-host` (flags: `--bind`, `--public-url`, `--store`, `--api-keys`,
//! `--jwt-secret`, …; `--help` lists them). With an authorization server for hosted
//! assistants: `cargo run -p agent-host --features oauth-server -- --oauth-dev-user alice`
//! (loopback), or `--oauth-proxy ISSUER --oauth-proxy-client-id ID` behind a public URL.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    agent_host::host().serve().await
}
