use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Empty.
#[skill(agent = Demo, id = "")]
async fn empty(name: String) -> String {
    name
}

/// Long.
#[skill(
    agent = Demo,
    id = "a-very-long-skill-id-that-goes-on-and-on-well-past-what-any-protocol-allows-for-a-tool-name-because-tool-names-stop-at-128-characters"
)]
async fn long(name: String) -> String {
    name
}
fn main() {}
