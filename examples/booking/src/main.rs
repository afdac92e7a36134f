//! Serves the booking agent over A2A and MCP, plus its stand-in sign-in page.
//!
//! Run: `cargo run -p booking` (flags: `--bind`, `--public-url`, `--stdio`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    booking::server().serve().await
}
