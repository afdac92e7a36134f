//! Outputs keep their published schema: a structured result that does not serialize to what its
//! output schema promises (here a non-finite float, `1e308 USD` in yen) fails the call naming the
//! field, over A2A and over MCP, instead of completing with `null`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::Agent;
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
