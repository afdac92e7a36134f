use a2a_runtime::prelude::*;

/// An agent with a required extension and an optional one.
#[agent(extensions(
    extension(
        uri = "https://example.com/ext/signed/v1",
        description = "Signed receipts.",
        required = true,
        params = r#"{"algorithms": ["ed25519"]}"#
    ),
    extension(uri = "urn:example:trace:v2"),
))]
struct Demo;

/// Greets.
#[skill(agent = Demo)]
async fn greet(name: String) -> String {
    name
}

fn main() {
    let declared = <Demo as a2a_runtime::Agent>::descriptor().extensions();
    assert_eq!(declared.len(), 2);
    assert!(declared[0].required && !declared[1].required);
    assert_eq!(declared[1].params, None);
}
