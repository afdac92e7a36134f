use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

struct Opaque;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> Opaque {
    let _ = name;
    Opaque
}
fn main() {}
