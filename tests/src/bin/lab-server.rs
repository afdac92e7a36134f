//! The lab agent (skills that wait, ignore cancellation, block a thread, panic), served through
//! `serve()` so shutdown tests can signal a real process.

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    a2a_tests::lab::Lab.serve().await
}
