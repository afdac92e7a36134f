use a2a_runtime::prelude::*;

/// An agent whose extensions are all wrong, each reported at once.
#[agent(extensions(
    extension(uri = "signed receipts"),
    extension(uri = "urn:example:a,b"),
    extension(uri = "urn:example:twice"),
    extension(uri = "urn:example:twice"),
    extension(uri = "urn:example:list", params = "[1, 2]"),
    extension(uri = "urn:example:broken", params = "{\"open\": "),
))]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}
fn main() {}
