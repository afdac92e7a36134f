//! A skill can read the message that started it (`IncomingMessage`): over A2A the request message
//! as sent (id, metadata, extensions, parts), over MCP the one the server synthesizes from the
//! tool call.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::prelude::*;
use a2a_tests::start;
use serde_json::{Value, json};

/// An agent that describes what it was sent.
#[agent(name = "Mirror")]
#[derive(Debug, Default)]
pub struct Mirror;

/// Describe the incoming message.
#[skill(agent = Mirror)]
pub async fn reflect(
    message: IncomingMessage,
    ctx: TaskContext,
    /// Anything.
    note: Option<String>,
) -> Json<Value> {
    Json(json!({
        "protocol": format!("{:?}", ctx.protocol()),
        "messageId": message.message_id,
        "metadata": message.metadata,
        "extensions": message.extensions,
        "parts": message.parts.len(),
        "note": note,
    }))
}

#[tokio::test]
async fn an_a2a_skill_reads_its_request_message() {
    let server = start(Mirror.server()).await;
    let message = json!({
        "messageId": "msg-42", "role": "ROLE_USER",
        "parts": [{"data": {"note": "hi"}}],
        "metadata": {"trace": "abc"},
        "extensions": ["https://example.com/ext/v1"],
    });
    let answered = server.rpc("SendMessage", json!({"message": message})).await;
    let artifact = &answered["result"]["task"]["artifacts"][0]["parts"][0]["data"];
    assert_eq!(artifact["messageId"], "msg-42", "{answered}");
    assert_eq!(artifact["metadata"]["trace"], "abc", "{answered}");
    assert_eq!(
        artifact["extensions"],
        json!(["https://example.com/ext/v1"]),
        "{answered}"
    );
    assert_eq!(artifact["parts"], 1, "{answered}");
    assert_eq!(artifact["note"], "hi", "{answered}");
    assert_eq!(artifact["protocol"], "A2a(V1_0)", "{answered}");
    // The same skill over 0.3 knows it.
    let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m03", "role": "user",
                    "parts": [{"kind": "data", "data": {"note": "hi"}}]}}});
    let (_, answered) = server.post_raw(legacy.to_string(), None).await;
    let artifact = &answered["result"]["artifacts"][0]["parts"][0]["data"];
    assert_eq!(artifact["protocol"], "A2a(V0_3)", "{answered}");
}

#[tokio::test]
async fn an_mcp_call_gets_a_synthesized_message_naming_the_tool() {
    let server = start(Mirror.server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "reflect", "arguments": {"note": "hey"}}),
        )
        .await;
    // `Value` has no object schema, so MCP wraps it under `result`.
    let reflected = &called["result"]["structuredContent"]["result"];
    assert!(
        reflected["messageId"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{called}"
    );
    assert_eq!(reflected["metadata"]["skill"], "reflect", "{called}");
    assert_eq!(reflected["note"], "hey", "{called}");
    assert_eq!(reflected["protocol"], "Mcp", "{called}");
}
