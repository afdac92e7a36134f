//! The webhook receiver example, built inside the test crate so push tests can start it
//! (`CARGO_BIN_EXE_receiver-under-test`).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> std::io::Result<()> {
    webhook_receiver::main().await
}
