//! The vault test agent (API keys and bearer JWTs, a scoped skill), served through `serve()` so
//! interop tests configure its credentials the way an operator would: flags and environment.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    a2a_tests::vault::Vault.serve().await
}
