//! A test agent for multi-turn calls: skills that ask typed questions, wait for authorization,
//! and read their conversation. It logs what its questions returned, so tests can check what a
//! skill saw when a question expired or was canceled.

use std::sync::{Arc, Mutex};

use a2a_runtime::prelude::*;

/// An agent for conversation tests. Clones share the log.
#[agent(name = "Talker")]
#[derive(Debug, Clone, Default)]
pub struct Talker {
    log: Arc<Mutex<Vec<String>>>,
}

impl Talker {
    /// What the skills recorded, oldest first.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("talker lock").clone()
    }

    fn record(&self, entry: String) {
        self.log.lock().expect("talker lock").push(entry);
    }

    /// Waits (at most 10 s, a hang guard) until an entry starting with `prefix` is logged.
    pub async fn logged(&self, prefix: &str) -> Option<String> {
        for _ in 0..1000 {
            if let Some(entry) = self.log().into_iter().find(|e| e.starts_with(prefix)) {
                return Some(entry);
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        None
    }
}

/// Asks how many, and doubles the answer.
#[skill(agent = Talker)]
async fn double(state: State<Talker>, ctx: TaskContext) -> Result<u32, SkillError> {
    match ctx.ask::<u32>("How many?").await {
        Ok(n) => Ok(n * 2),
        Err(error) => {
            state.record(format!("ask failed: {error:?}"));
            Err(error.into())
        }
    }
}

/// Greets the caller by the name it gives when asked.
#[skill(agent = Talker)]
async fn greet(ctx: TaskContext) -> Result<String, SkillError> {
    let name: String = ctx.ask("What is your name?").await?;
    Ok(format!("Hello, {name}!"))
}

/// The conversation so far, one `role: text` line per earlier message.
#[skill(agent = Talker)]
async fn recall(
    /// Anything; recorded in the conversation.
    note: String,
    ctx: TaskContext,
) -> Vec<String> {
    let _ = note;
    ctx.history()
        .await
        .iter()
        .map(|m| {
            let role = match m.role {
                a2a_runtime::model::Role::User => "user",
                a2a_runtime::model::Role::Agent => "agent",
            };
            format!("{role}: {}", m.text().unwrap_or_default())
        })
        .collect()
}

/// The tasks the request referred to.
#[skill(agent = Talker)]
async fn references(ctx: TaskContext) -> Vec<String> {
    ctx.reference_task_ids().to_vec()
}

/// Waits for authorization, then says who it was granted to.
#[skill(agent = Talker)]
async fn whoami(ctx: TaskContext) -> Result<String, SkillError> {
    let credential = ctx
        .require_auth(format!("Sign in for task {}.", ctx.task_id()))
        .await?;
    Ok(format!("signed in as {}", credential["user"]))
}
