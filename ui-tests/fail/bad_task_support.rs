use a2a_runtime::prelude::*;

/// Demo agent.
#[agent]
struct Demo;

/// Asks for a task mode the runtime does not know.
#[skill(agent = Demo, task_support = "sometimes")]
async fn book() -> String {
    String::new()
}

fn main() {}
