//! The smallest agent: one text skill, served over A2A and MCP.

use a2a_runtime::prelude::*;

/// Greets people by name.
#[agent(provider(organization = "a2a-runtime examples", url = "https://example.com"))]
#[derive(Debug, Clone, Copy, Default)]
pub struct Hello;

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
