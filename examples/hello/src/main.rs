//! The smallest agent: one text skill, served over A2A and MCP.
//!
//! Run: `cargo run -p hello` (add `-- --stdio` for MCP over stdio).

use a2a_runtime::prelude::*;

/// Greets people by name.
#[agent(provider(organization = "a2a-runtime examples", url = "https://example.com"))]
struct Hello;

/// Say hello.
///
/// Answers with a friendly greeting for the given name.
#[skill(agent = Hello, tags = ["greeting"], examples = ["Ada"], read_only = true)]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Hello.serve().await
}
