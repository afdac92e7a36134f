//! The booking example agent, built inside the test crate so interop tests can start it
//! (`CARGO_BIN_EXE_interop-booking`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    booking::server().serve().await
}
