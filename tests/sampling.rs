//! `ctx.sample`: only an MCP client that declared sampling has a model to ask (the suite's
//! `tools-call-sampling` scenario drives that path with the official TypeScript client, see
//! `mcp_conformance.rs`); every other caller gets an error naming the request and the reason.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::prelude::*;
use a2a_runtime::{Agent, Sampling};
use a2a_tests::start;
use serde_json::json;

/// Writes poems with the caller's model.
#[agent(name = "Poet")]
#[derive(Debug, Default)]
pub struct Poet;

/// Write a poem about a subject.
#[skill(agent = Poet)]
pub async fn poem(
    /// What the poem is about.
    subject: String,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    let sampled = ctx
        .sample(Sampling::new(format!("A haiku about {subject}")).max_tokens(60))
        .await?;
    Ok(sampled.text)
}

#[tokio::test]
async fn an_a2a_caller_has_no_model_and_the_task_fails_saying_so() {
    let server = start(Poet.server()).await;
    let answered = server
        .send(json!([{"data": {"subject": "rain"}}]), json!({}), json!({}))
        .await;
    let status = &answered["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{answered}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(
        reason.contains("A haiku about rain") && reason.contains("A2A has no sampling"),
        "{reason}"
    );
}

#[tokio::test]
async fn an_mcp_client_without_sampling_gets_a_tool_error_naming_it() {
    let server = start(Poet.server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "poem", "arguments": {"subject": "rain"}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], true, "{called}");
    let text = called["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("did not declare the sampling capability"),
        "{text}"
    );
}
