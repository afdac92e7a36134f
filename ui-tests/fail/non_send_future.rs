use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    let counter = std::rc::Rc::new(1);
    std::future::ready(()).await;
    format!("{name}{counter}")
}
fn main() {}
