use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

/// Not async.
#[resource(agent = Demo, uri = "demo://a")]
fn not_async() -> String {
    String::new()
}

#[resource(agent = Demo, uri = "demo://b")]
async fn undocumented() -> String {
    String::new()
}

/// A parameter the static URI has no variable for.
#[resource(agent = Demo, uri = "demo://c")]
async fn stray_param(id: String) -> String {
    id
}

/// A variable without a parameter.
#[resource(agent = Demo, uri = "demo://d/{id}")]
async fn missing_param() -> String {
    String::new()
}

/// An optional variable.
#[resource(agent = Demo, uri = "demo://e/{id}")]
async fn optional_variable(id: Option<String>) -> String {
    id.unwrap_or_default()
}

/// Not a URI.
#[resource(agent = Demo, uri = "just words", mime_type = "text")]
async fn not_a_uri() -> String {
    String::new()
}

fn main() {}
