//! Serves the currency agent over A2A and MCP.
//!
//! Run: `cargo run -p currency` (flags: `--bind`, `--public-url`, `--stdio`).

use a2a_runtime::Agent;
use currency::Currency;

/// Freed memory goes back to the system (glibc's malloc keeps it in per-thread arenas: a burst
/// of large requests would leave the server at its peak for good).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Currency::with_reference_rates().serve().await
}
