use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(security(bearer))]
struct Demo;

/// Needs two scopes, written as one string.
#[skill(agent = Demo, scopes = ["demo:read demo:write"])]
async fn read() -> String {
    String::new()
}

fn main() {}
