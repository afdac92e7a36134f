use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo<T> {
    value: T,
}

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}
fn main() {}
