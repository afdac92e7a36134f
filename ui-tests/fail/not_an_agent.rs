use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

struct Plain;

/// Greets.
#[skill(agent = Plain)]
async fn greet(name: String) -> String {
    name
}
fn main() {}
