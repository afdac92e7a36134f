//! A skill that returns a `Message` answers with it alone: no task is created or stored (a
//! blocking send answers `message`, a stream is that one message), on 1.0 and 0.3. A skill that
//! showed a task first (progress) completes that task with the message's parts; the early draft,
//! which has no message results, gets a task; MCP gets the parts as the tool result.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::prelude::*;
use a2a_tests::start;
use serde_json::{Value, json};

/// Answers questions, directly when it can.
#[agent(name = "Oracle")]
#[derive(Debug, Default)]
pub struct Oracle;

/// Answer a question.
#[skill(agent = Oracle)]
pub async fn answer(
    /// The question.
    question: String,
    ctx: TaskContext,
) -> Message {
    if question.starts_with("think") {
        // The caller is shown a task before the answer is known.
        ctx.progress("Thinking");
    }
    Message::agent_text(format!("42 ({question})"))
}

fn text_message(text: &str) -> Value {
    json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}], "contextId": "ctx-7"})
}

#[tokio::test]
async fn a_message_reply_creates_no_task_and_keeps_the_context() {
    let server = start(Oracle.server()).await;
    let answered = server
        .rpc("SendMessage", json!({"message": text_message("why")}))
        .await;
    let message = &answered["result"]["message"];
    assert_eq!(message["role"], "ROLE_AGENT", "{answered}");
    assert_eq!(message["parts"][0]["text"], "42 (why)", "{answered}");
    assert_eq!(message["contextId"], "ctx-7", "{answered}");
    assert!(message.get("taskId").is_none(), "{answered}");
    assert!(answered["result"].get("task").is_none(), "{answered}");
    let listed = server.rpc("ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    // returnImmediately cannot return a task that does not exist: the reply it is.
    let immediate = server
        .rpc(
            "SendMessage",
            json!({"message": text_message("now"), "configuration": {"returnImmediately": true}}),
        )
        .await;
    assert_eq!(
        immediate["result"]["message"]["parts"][0]["text"], "42 (now)",
        "{immediate}"
    );
}

#[tokio::test]
async fn a_streamed_message_reply_is_the_whole_stream() {
    let server = start(Oracle.server()).await;
    let mut stream = server
        .stream(
            "SendStreamingMessage",
            json!({"message": text_message("stream")}),
        )
        .await
        .unwrap();
    let events = stream.rest().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["message"]["parts"][0]["text"], "42 (stream)");
}

#[tokio::test]
async fn a_skill_that_showed_a_task_completes_it_with_the_message_parts() {
    let server = start(Oracle.server()).await;
    let answered = server
        .rpc(
            "SendMessage",
            json!({"message": text_message("think hard")}),
        )
        .await;
    let task = &answered["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_COMPLETED",
        "{answered}"
    );
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"], "42 (think hard)",
        "{answered}"
    );
    let listed = server.rpc("ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["id"], task["id"], "{listed}");
}

#[tokio::test]
async fn a_0_3_client_gets_a_kind_message_result() {
    let server = start(Oracle.server()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m", "role": "user",
                    "parts": [{"kind": "text", "text": "why"}]}}});
    let (_, answered) = server.post_raw(body.to_string(), None).await;
    assert_eq!(answered["result"]["kind"], "message", "{answered}");
    assert_eq!(answered["result"]["role"], "agent", "{answered}");
    assert_eq!(answered["result"]["parts"][0]["text"], "42 (why)");
}

#[tokio::test]
async fn the_early_draft_gets_a_completed_task_holding_the_reply() {
    let server = start(Oracle.server()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/send", "params": {
        "id": "draft-1", "message": {"role": "user", "parts": [{"type": "text", "text": "why"}]}}});
    let (_, answered) = server.post_raw(body.to_string(), None).await;
    assert_eq!(answered["result"]["id"], "draft-1", "{answered}");
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
    assert_eq!(
        answered["result"]["artifacts"][0]["parts"][0]["text"], "42 (why)",
        "{answered}"
    );
}

#[tokio::test]
async fn an_mcp_tool_call_returns_the_reply_parts() {
    let server = start(Oracle.server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "answer", "arguments": {"question": "why"}}),
        )
        .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "42 (why)",
        "{called}"
    );
    assert_eq!(called["result"]["isError"], false, "{called}");
}
