//! Serves the currency agent over A2A and MCP.
//!
//! Run: `cargo run -p currency` (flags: `--bind`, `--public-url`, `--stdio`).

use a2a_runtime::Agent;
use currency::Currency;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Currency::with_reference_rates().serve().await
}
