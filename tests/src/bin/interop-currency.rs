//! The currency example agent, built inside the test crate so interop tests can start it
//! (`CARGO_BIN_EXE_interop-currency`), over HTTP or `--stdio`.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    currency::Currency::with_reference_rates().serve().await
}
