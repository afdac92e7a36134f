use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(security(api_key))]
struct Demo;

/// Needs a scope an API key can never grant.
#[skill(agent = Demo, scopes = ["demo:write"])]
async fn write() -> String {
    String::new()
}

fn main() {}
