use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Another agent.
#[agent]
struct Other;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

/// Greets other.
#[skill(agent = Other)]
async fn greet_other(name: String) -> String {
    name
}

/// Returns a number.
#[prompt(agent = Demo)]
async fn number() -> u32 {
    7
}

/// Takes a list.
#[prompt(agent = Demo)]
async fn listed(names: Vec<String>) -> String {
    names.join(", ")
}

/// Reads another agent's state.
#[prompt(agent = Demo)]
async fn foreign(other: State<Other>) -> String {
    let _ = other;
    String::new()
}

fn main() {}
