//! The coordination hub example, served from its command line (or running one of its commands),
//! for the tests that start it as a process (stdio sessions, restarts, replicas, hooks).

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> std::process::ExitCode {
    coordination_hub::commands::run_from_command_line().await
}
