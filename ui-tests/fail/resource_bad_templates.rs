use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

/// Unclosed.
#[resource(agent = Demo, uri = "demo://{id")]
async fn unclosed(id: String) -> String {
    id
}

/// An RFC 6570 operator.
#[resource(agent = Demo, uri = "demo://search{?q}")]
async fn operator(q: String) -> String {
    q
}

/// Two variables in a row.
#[resource(agent = Demo, uri = "demo://{a}{b}")]
async fn adjacent(a: String, b: String) -> String {
    a + &b
}

/// One variable twice.
#[resource(agent = Demo, uri = "demo://{id}/{id}")]
async fn twice(id: String) -> String {
    id
}

fn main() {}
