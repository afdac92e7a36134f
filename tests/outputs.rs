//! Outputs keep their published schema: a structured result that does not serialize to what its
//! output schema promises (here a non-finite float, `1e308 USD` in yen) fails the call naming the
//! field, over A2A and over MCP, instead of completing with `null`. A return type is output by
//! what it implements, not by its name.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::start;
use currency::Currency;
use serde_json::json;

fn overflow() -> serde_json::Value {
    json!({"money": {"amount": 1e308, "currency": "EUR"}, "to": "JPY"})
}

#[tokio::test]
async fn a_non_finite_output_fails_the_a2a_task_naming_the_field() {
    let server = start(Currency::with_reference_rates().server()).await;
    let answered = server
        .send(
            json!([{"data": overflow()}]),
            json!({"skill": "convert"}),
            json!({}),
        )
        .await;
    let status = &answered["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{answered}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(
        reason.contains("/amount") && reason.contains("not finite"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_non_finite_output_is_an_mcp_tool_error_naming_the_field() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "convert", "arguments": overflow()}),
        )
        .await;
    assert_eq!(called["result"]["isError"], true, "{called}");
    let text = called["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/amount"), "{text}");
    assert!(called["result"]["structuredContent"].is_null(), "{called}");
}

/// Text under another name.
type Text = String;

/// An agent whose skill returns text through an alias.
#[a2a_runtime::agent(name = "Aliases")]
#[derive(Debug, Default)]
pub struct Aliases;

/// Shout a word.
#[a2a_runtime::skill(agent = Aliases)]
pub async fn shout(
    /// The word.
    word: String,
) -> Text {
    word.to_uppercase()
}

#[tokio::test]
async fn an_alias_of_string_is_text_output_not_structured() {
    let server = start(Aliases.server()).await;
    let card = server.card().await;
    assert_eq!(
        card["skills"][0]["outputModes"],
        json!(["text/plain"]),
        "{card}"
    );
    let answered = server
        .send(json!([{"text": "hey"}]), json!({}), json!({}))
        .await;
    let artifact = &answered["result"]["task"]["artifacts"][0];
    assert_eq!(
        artifact["parts"],
        json!([{"text": "HEY", "mediaType": "text/plain"}]),
        "{answered}"
    );
    let mut mcp = server.mcp_session().await;
    let tools = mcp.request("tools/list", json!({})).await;
    let tool = &tools["result"]["tools"][0];
    assert!(tool.get("outputSchema").is_none(), "{tool}");
}
