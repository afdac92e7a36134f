use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(#[inject] name: String) -> String {
    name
}
fn main() {}
