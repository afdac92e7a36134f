use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo, id = "a", id = "b")]
async fn greet(name: String) -> String {
    name
}
fn main() {}
