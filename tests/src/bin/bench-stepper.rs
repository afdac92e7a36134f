//! The stepper test agent served for `scripts/bench-stream`, with an event buffer large enough
//! that a benchmark stream measures delivery, not resynchronization.

use a2a_tests::stepper::Stepper;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Stepper::default()
        .server()
        .stream_buffer(1 << 18)
        .serve()
        .await
}
