use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

struct Opaque;

/// Returns something that is no content.
#[resource(agent = Demo, uri = "demo://number")]
async fn number() -> u32 {
    7
}

/// Takes a variable no text reads into.
#[resource(agent = Demo, uri = "demo://{id}")]
async fn opaque(id: Opaque) -> String {
    let _ = id;
    String::new()
}

fn main() {}
