use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(security(bearer))]
struct Demo;

/// Public, yet needing a scope and listed only to authenticated callers.
#[skill(agent = Demo, public, extended_only, scopes = ["demo:read"])]
async fn read() -> String {
    String::new()
}

fn main() {}
