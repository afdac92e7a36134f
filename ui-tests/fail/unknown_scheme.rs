use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(security(bearer, basic))]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet() -> String {
    String::new()
}

fn main() {}
