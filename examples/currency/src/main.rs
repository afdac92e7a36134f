//! Serves the currency agent over A2A and MCP.
//!
//! Run: `cargo run -p currency` (flags: `--bind`, `--public-url`, `--stdio`).

use currency::Currency;

/// With `--features mimalloc`: mimalloc instead of the system's allocator (the server guide, "Memory").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Currency::with_reference_rates().serve().await
}
