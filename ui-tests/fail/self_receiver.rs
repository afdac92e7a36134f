use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

impl Demo {
    /// Greets.
    #[skill(agent = Demo)]
    async fn greet(&self, name: String) -> String {
        name
    }
}
fn main() {}
