use a2a_runtime::prelude::*;

/// Demo agent.
#[agent]
struct Demo;

/// Resumes in a way the runtime does not know.
#[skill(agent = Demo, resume = "restart")]
async fn book() -> String {
    String::new()
}

fn main() {}
