use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

struct Opaque;

/// Greets.
#[skill(agent = Demo)]
async fn greet(who: Opaque) -> String {
    let _ = who;
    String::new()
}
fn main() {}
