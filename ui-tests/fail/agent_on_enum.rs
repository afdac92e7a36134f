use a2a_runtime::prelude::*;

/// An agent.
#[agent]
enum Demo {
    A,
}

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

/// A function.
#[agent]
fn not_an_agent_either() {}

fn main() {}
