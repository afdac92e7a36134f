//! Serves the booking agent over A2A and MCP, plus its stand-in sign-in page.
//!
//! Run: `cargo run -p booking` (flags: `--bind`, `--public-url`, `--stdio`).

/// Freed memory goes back to the system (glibc's malloc keeps it in per-thread arenas: a burst
/// of large requests would leave the server at its peak for good).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    booking::server().serve().await
}
