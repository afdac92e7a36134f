//! The coordination hub example, served from its command line, for the tests that start it as
//! a process (stdio sessions, restarts, replicas).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    coordination_hub::serve_from_command_line().await
}
