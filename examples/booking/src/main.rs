//! Serves the booking agent over A2A and MCP, plus its stand-in sign-in page.
//!
//! Run: `cargo run -p booking` (flags: `--bind`, `--public-url`, `--stdio`).

/// With `--features mimalloc`: mimalloc instead of the system's allocator (the server guide, "Memory").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    booking::server().serve().await
}
