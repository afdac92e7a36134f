use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet<T: Send>(name: String) -> String {
    name
}
fn main() {}
