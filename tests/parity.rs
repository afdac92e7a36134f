//! The same skill input through A2A `SendMessage` and MCP `tools/call` yields the same value.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::start;
use currency::Currency;
use serde_json::{Value, json};

#[tokio::test]
async fn a2a_and_mcp_return_the_same_values_for_the_same_input() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let cases = [
        (
            "convert",
            json!({"money": {"amount": 10.0, "currency": "USD"}, "to": "EUR"}),
        ),
        (
            "convert",
            json!({"money": {"amount": 1234.5, "currency": "JPY"}, "to": "GBP", "whole": true}),
        ),
        ("rates", json!({"base": "CHF"})),
        ("rates", json!({})),
        ("is-supported", json!({"code": "chf"})),
    ];
    for (skill, input) in cases {
        let a2a = server
            .send(json!([{"data": input}]), json!({"skill": skill}), json!({}))
            .await;
        let part = &a2a["result"]["task"]["artifacts"][0]["parts"][0];
        let a2a_value = part
            .get("data")
            .cloned()
            .unwrap_or_else(|| part["text"].clone());
        let called = mcp
            .request("tools/call", json!({"name": skill, "arguments": input}))
            .await;
        let result = &called["result"];
        let mcp_value = match &result["structuredContent"] {
            Value::Null => result["content"][0]["text"].clone(),
            Value::Object(o)
                if o.len() == 1 && o.contains_key("result") && !a2a_value.is_object() =>
            {
                o["result"].clone()
            }
            other => other.clone(),
        };
        assert_eq!(a2a_value, mcp_value, "{skill} {input}");
        assert!(!a2a_value.is_null(), "{skill}: {a2a}");
    }
}

#[tokio::test]
async fn skill_errors_read_the_same_through_both_protocols() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let input = json!({"money": {"amount": -1.0, "currency": "USD"}, "to": "EUR"});
    let a2a = server
        .send(
            json!([{"data": input}]),
            json!({"skill": "convert"}),
            json!({}),
        )
        .await;
    let status = &a2a["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED");
    let called = mcp
        .request("tools/call", json!({"name": "convert", "arguments": input}))
        .await;
    assert_eq!(called["result"]["isError"], true);
    assert_eq!(
        status["message"]["parts"][0]["text"],
        called["result"]["content"][0]["text"]
    );
}
