use a2a_runtime::prelude::*;

/// An agent with an extension that names no URI.
#[agent(extensions(extension(description = "no uri", required = true)))]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}
fn main() {}
