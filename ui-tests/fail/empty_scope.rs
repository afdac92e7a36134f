use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(security(bearer))]
struct Demo;

/// Needs a scope with no name.
#[skill(agent = Demo, scopes = [""])]
async fn read() -> String {
    String::new()
}

fn main() {}
