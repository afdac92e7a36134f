//! The A2A bridge example, built inside the test crate so interop tests can start it
//! (`CARGO_BIN_EXE_interop-bridge`), over `--stdio` or HTTP.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    a2a_bridge::Bridge::open().await?.serve().await?;
    Ok(())
}
