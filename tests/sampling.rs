//! `ctx.sample` and `ctx.roots`: only an MCP client that declared sampling (roots) can answer,
//! which the official Python client does here (and the suite's `tools-call-sampling` scenario
//! with the TypeScript one); every other caller gets an error naming what was asked and why.

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

/// The roots the caller shares, one per line.
#[skill(agent = Poet)]
pub async fn workspace(ctx: TaskContext) -> Result<String, SkillError> {
    let roots = ctx.roots().await?;
    Ok(roots
        .iter()
        .map(|root| format!("{}: {}", root.name.as_deref().unwrap_or("-"), root.uri))
        .collect::<Vec<_>>()
        .join("\n"))
}

#[tokio::test]
async fn the_official_mcp_client_answers_sampling_and_roots_requests() {
    let Ok(python) = std::env::var("A2A_TEST_PYTHON") else {
        assert!(
            std::env::var("CI").is_err(),
            "A2A_TEST_PYTHON must be set under CI (scripts/test installs the client)"
        );
        eprintln!("skipped: A2A_TEST_PYTHON is not set (scripts/test sets it)");
        return;
    };
    let server = start(Poet.server()).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/mcp_sampling.py");
    let run = tokio::process::Command::new(python)
        .args([script, &format!("{}mcp", server.base)])
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .unwrap()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn an_a2a_caller_has_no_roots_and_the_task_fails_saying_so() {
    let server = start(Poet.server()).await;
    let answered = server
        .send(
            json!([{"text": "x"}]),
            json!({"skill": "workspace"}),
            json!({}),
        )
        .await;
    let status = &answered["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{answered}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(reason.contains("A2A has no roots"), "{reason}");
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
