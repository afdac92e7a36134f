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

/// A name with a space.
#[prompt(agent = Demo, name = "two words")]
async fn spaced() -> String {
    String::new()
}

/// Two arguments under one name.
#[prompt(agent = Demo)]
async fn clash(first: String, #[arg(name = "first")] second: String) -> String {
    first + &second
}

/// No agent.
#[prompt]
async fn orphan() -> String {
    String::new()
}

fn main() {}
