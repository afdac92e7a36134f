use a2a_runtime::prelude::*;

/// The agent this skill belongs to.
#[agent]
struct Mine;

/// Another agent.
#[agent]
struct Theirs;

/// Reads the wrong agent's state.
#[skill(agent = Mine)]
async fn peek(state: State<Theirs>) -> String {
    let _ = state;
    String::new()
}

fn main() {}
