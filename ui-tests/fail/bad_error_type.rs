use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

struct NotAnError;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> Result<String, NotAnError> {
    Ok(name)
}
fn main() {}
