use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}
fn main() {}
