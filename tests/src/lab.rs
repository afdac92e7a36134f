//! A test agent whose skills cover the interesting behaviours: text, integers, waiting on
//! cancellation, panicking and failing.

use std::time::Duration;

use a2a_runtime::model::PartContent;
use a2a_runtime::prelude::*;

/// An agent for tests.
#[agent(name = "Lab")]
#[derive(Debug, Default)]
pub struct Lab;

/// Echo text back.
#[skill(agent = Lab)]
pub async fn echo(
    /// Text to echo.
    text: String,
) -> String {
    text
}

/// A sum.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Sum {
    /// a + b.
    pub sum: i64,
}

/// Add two integers.
#[skill(agent = Lab)]
pub async fn add(
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
) -> Sum {
    Sum { sum: a + b }
}

/// Wait until cancelled, or for `millis` milliseconds.
#[skill(agent = Lab)]
pub async fn wait(
    ctx: TaskContext,
    /// How long to wait at most.
    millis: u64,
) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(millis)) => "waited".into(),
        () = ctx.cancelled() => "cancelled".into(),
    }
}

/// Ignore cancellation and sleep for `millis` milliseconds.
#[skill(agent = Lab)]
pub async fn stubborn(
    /// How long to sleep.
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "done".into()
}

/// Block the thread it runs on for `millis` milliseconds (a skill doing blocking work wrongly).
#[skill(agent = Lab)]
pub async fn block(
    /// How long to block.
    millis: u64,
) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    "unblocked".into()
}

/// Panic.
#[skill(agent = Lab)]
pub async fn explode(
    /// Panic message.
    why: String,
) -> String {
    panic!("{why}")
}

/// Fail with a message.
#[skill(agent = Lab)]
pub async fn fail(
    /// The failure.
    reason: String,
) -> Result<String, SkillError> {
    Err(SkillError::new(reason))
}

/// Ask how long to nap, then nap. Run again from the start if a restart interrupts it.
#[skill(agent = Lab, resume = "rerun")]
pub async fn nap(ctx: TaskContext) -> Result<String, SkillError> {
    let millis = ctx
        .ask::<u64>("How long should I nap, in milliseconds?")
        .await?;
    tokio::time::sleep(Duration::from_millis(millis)).await;
    Ok(format!("napped {millis} ms"))
}

/// Ask for a word and say it back; a restart fails it even while it waits.
#[skill(agent = Lab, resume = "never")]
pub async fn fragile(ctx: TaskContext) -> Result<String, SkillError> {
    Ok(ctx.ask::<String>("Say a word").await?)
}

/// Call skill `skill` of the agent at `url` with `input` (as a data part), and answer the
/// text of the task's first artifact.
#[skill(agent = Lab)]
pub async fn relay(
    ctx: TaskContext,
    /// The agent to call.
    url: String,
    /// Its skill.
    skill: String,
    /// The skill's input.
    input: serde_json::Value,
) -> Result<String, SkillError> {
    use a2a_runtime::client::{A2aClient, SendResult};
    let failed = |e: a2a_runtime::client::ClientError| SkillError::new(e.to_string());
    let agent = A2aClient::connect(&url).await.map_err(failed)?;
    let mut message = Message::user(vec![Part::data(input)]);
    message.metadata = serde_json::json!({ "skill": skill }).as_object().cloned();
    let SendResult::Task(task) = ctx.call_agent(&agent, message).await.map_err(failed)? else {
        return Err(SkillError::new("expected a task"));
    };
    let text = task
        .artifacts
        .first()
        .and_then(|artifact| artifact.parts.first())
        .and_then(|part| match &part.content {
            PartContent::Text(text) => Some(text.clone()),
            _ => None,
        });
    text.ok_or_else(|| SkillError::new("the task answered no text"))
}

/// Call tool `tool` of the MCP endpoint at `url` with `input` (a typed client inside a
/// skill, as an agent that uses another over MCP does), and answer its output.
#[skill(agent = Lab)]
pub async fn relay_mcp(
    /// The MCP endpoint.
    url: String,
    /// Its tool.
    tool: String,
    /// The tool's input.
    input: serde_json::Map<String, serde_json::Value>,
) -> Result<serde_json::Value, SkillError> {
    use a2a_runtime::client::SkillClient;
    let failed = |e: a2a_runtime::client::ClientError| SkillError::new(e.to_string());
    let client = SkillClient::connect_mcp(url).await.map_err(failed)?;
    client.call(&tool, input).await.map_err(failed)
}

/// Report progress `times` times, publish an artifact, then answer.
#[skill(agent = Lab)]
pub async fn tick(
    ctx: TaskContext,
    /// How many progress reports.
    times: u64,
) -> String {
    for done in 1..=times {
        ctx.progress_of(done, times);
    }
    ctx.artifact(Artifact::new(vec![Part::text(format!(
        "ticked {times} times"
    ))]));
    "ticked".into()
}

/// Charge `amount` once per idempotency key: the charge is a file in `ledger` named by the
/// key the request carried (the task's id without one), and every charge actually made adds a
/// line to `ledger/charges`. On its first run for a key the skill holds (sleeps a minute)
/// `before` or `after` charging, with a `.held` file telling a test where to kill its process;
/// a run again after a restart goes straight through. Run again from the start if a restart
/// interrupts it.
#[skill(agent = Lab, resume = "rerun")]
pub async fn charge(
    ctx: TaskContext,
    /// Where charges are recorded.
    ledger: String,
    /// The amount.
    amount: u32,
    /// Where the first run holds: `before` or `after` charging (none without).
    hold: Option<String>,
) -> Result<String, SkillError> {
    use std::io::Write as _;
    let failed = |e: std::io::Error| SkillError::new(e.to_string());
    let key = ctx.idempotency_key().unwrap_or(ctx.task_id());
    let name: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let entry = std::path::Path::new(&ledger).join(name);
    let first_run = std::fs::create_dir(entry.with_extension("run")).is_ok();
    let hold_at = |at: &str| first_run && hold.as_deref() == Some(at);
    let held = async || {
        std::fs::write(entry.with_extension("held"), key).map_err(failed)?;
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok::<(), SkillError>(())
    };
    if hold_at("before") {
        held().await?;
    }
    let charged = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(entry.with_extension("charged"));
    if charged.is_ok() {
        let mut charges = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(std::path::Path::new(&ledger).join("charges"))
            .map_err(failed)?;
        writeln!(charges, "{key} {amount}").map_err(failed)?;
    }
    if hold_at("after") {
        held().await?;
    }
    Ok(format!("charged {amount}"))
}
