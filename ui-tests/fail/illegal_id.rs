use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo, id = "say hello")]
async fn greet(name: String) -> String {
    name
}
fn main() {}
