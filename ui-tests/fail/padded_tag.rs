use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo, tags = [" finance"])]
async fn greet(name: String) -> String {
    name
}
fn main() {}
