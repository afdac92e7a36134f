//! A skill can decline a task with `SkillError::rejected`: A2A callers see the task end
//! REJECTED (not FAILED) with the reason, in 1.0 and 0.3; MCP callers get a tool error naming it.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::prelude::*;
use a2a_tests::start;
use serde_json::json;

/// An agent that refuses some requests.
#[agent(name = "Gatekeeper")]
#[derive(Debug, Default)]
pub struct Gatekeeper;

/// Open a door, unless it is the vault's.
#[skill(agent = Gatekeeper)]
pub async fn open(
    /// Which door.
    door: String,
) -> Result<String, SkillError> {
    if door == "vault" {
        return Err(SkillError::rejected("the vault stays closed"));
    }
    Ok(format!("{door} is open"))
}

#[tokio::test]
async fn a_rejected_task_ends_rejected_with_its_reason_over_a2a_1_0() {
    let server = start(Gatekeeper.server()).await;
    let answered = server
        .send(json!([{"data": {"door": "vault"}}]), json!({}), json!({}))
        .await;
    let status = &answered["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_REJECTED", "{answered}");
    assert_eq!(
        status["message"]["parts"][0]["text"], "the vault stays closed",
        "{answered}"
    );
    let opened = server
        .send(json!([{"data": {"door": "front"}}]), json!({}), json!({}))
        .await;
    assert_eq!(
        opened["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{opened}"
    );
}

#[tokio::test]
async fn a_rejected_task_is_rejected_in_0_3_too() {
    let server = start(Gatekeeper.server()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m", "role": "user",
                    "parts": [{"kind": "data", "data": {"door": "vault"}}]}}});
    let (_, answered) = server.post_raw(body.to_string(), None).await;
    assert_eq!(
        answered["result"]["status"]["state"], "rejected",
        "{answered}"
    );
}

#[tokio::test]
async fn a_rejected_mcp_call_is_a_tool_error_with_the_reason() {
    let server = start(Gatekeeper.server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "open", "arguments": {"door": "vault"}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], true, "{called}");
    assert_eq!(
        called["result"]["content"][0]["text"], "the vault stays closed",
        "{called}"
    );
}
