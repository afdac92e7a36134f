//! Serves the hello agent over A2A and MCP.
//!
//! Run: `cargo run -p hello` (add `-- --stdio` for MCP over stdio).

use hello::Hello;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Hello.serve().await
}
