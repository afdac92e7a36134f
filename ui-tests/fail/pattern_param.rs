use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Adds.
#[skill(agent = Demo)]
async fn add((a, b): (u32, u32)) -> u32 {
    a + b
}
fn main() {}
