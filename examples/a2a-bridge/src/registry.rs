//! What the bridge remembers, in the SDK's [`Records`]: the agents it resolved (collection
//! `agents`, by agent id), the tasks it started or followed (`tasks`, by task id) and the
//! webhooks configured per agent (`push`, by config id). A SQLite file by default, so an MCP host
//! that starts the bridge per session finds its agents again.

use a2a_runtime::records::Records;
use a2a_runtime::serde_json::Value;
use a2a_runtime::{SkillError, Task};
use serde::{Deserialize, Serialize};

const AGENTS: &str = "agents";
const TASKS: &str = "tasks";
const PUSH: &str = "push";

/// A registered remote agent.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentRecord {
    /// The bridge's id for it.
    pub agent_id: String,
    /// Its name, from its card.
    pub name: String,
    /// The base URL it was resolved from.
    pub base_url: String,
    /// `connected` once its card was read.
    pub status: String,
    /// Its card, as served.
    pub card: Value,
    /// The security scheme its card asks for first, if any.
    pub auth_mode: Option<String>,
    /// When its card was last read (RFC 3339).
    pub last_seen_at: String,
    /// When it was first resolved (RFC 3339).
    pub created_at: String,
}

/// One agent in a listing.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentSummary {
    /// The bridge's id for it.
    pub agent_id: String,
    /// Its name.
    pub name: String,
    /// Its base URL.
    pub base_url: String,
    /// `connected`.
    pub status: String,
}

impl From<AgentRecord> for AgentSummary {
    fn from(record: AgentRecord) -> Self {
        Self {
            agent_id: record.agent_id,
            name: record.name,
            base_url: record.base_url,
            status: record.status,
        }
    }
}

/// A task the bridge started or followed, as the remote agent last showed it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The agent it runs on.
    pub agent_id: String,
    /// The task.
    pub task: Task,
}

/// A webhook configured for an agent's tasks.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PushRecord {
    /// The bridge's id for it.
    pub config_id: String,
    /// The agent whose tasks it follows.
    pub agent_id: String,
    /// Where updates are POSTed.
    pub webhook_url: String,
    /// The event types asked for (`status_update`, `artifact_update`).
    pub events: Vec<String>,
    /// Whether the agent delivers push notifications (its card says so).
    pub active: bool,
}

fn failed(error: impl std::fmt::Display) -> SkillError {
    SkillError::new(format!("The bridge's registry failed: {error}"))
}

/// The bridge's registry over `Records`.
#[derive(Debug, Clone)]
pub struct Registry {
    records: Records,
}

impl Registry {
    /// The registry in `records`.
    pub fn new(records: Records) -> Self {
        Self { records }
    }

    /// The agent registered from `base_url`, if one is.
    pub async fn agent_at(&self, base_url: &str) -> Result<Option<AgentRecord>, SkillError> {
        let agents = self.agents().await?;
        Ok(agents.into_iter().find(|a| a.base_url == base_url))
    }

    /// The agent `agent_id`, or the seed's error.
    pub async fn agent(&self, agent_id: &str) -> Result<AgentRecord, SkillError> {
        self.records
            .get(AGENTS, agent_id)
            .await
            .map_err(failed)?
            .ok_or_else(|| {
                SkillError::invalid_input(format!(
                    "Agent not found: {agent_id} (call resolve_agent_card first)"
                ))
            })
    }

    /// Every agent, the most recently resolved first.
    pub async fn agents(&self) -> Result<Vec<AgentRecord>, SkillError> {
        self.records.list(AGENTS, None).await.map_err(failed)
    }

    /// Stores `agent`.
    pub async fn put_agent(&self, agent: &AgentRecord) -> Result<(), SkillError> {
        self.records
            .put(AGENTS, &agent.agent_id, agent)
            .await
            .map(drop)
            .map_err(failed)
    }

    /// The task `task_id`, or an error naming it.
    pub async fn task(&self, task_id: &str) -> Result<TaskRecord, SkillError> {
        self.records
            .get(TASKS, task_id)
            .await
            .map_err(failed)?
            .ok_or_else(|| {
                SkillError::invalid_input(format!(
                    "Task not found: {task_id} (only tasks sent through this bridge are known)"
                ))
            })
    }

    /// The tasks, the most recently updated first, at most `limit`.
    pub async fn tasks(&self, limit: Option<usize>) -> Result<Vec<TaskRecord>, SkillError> {
        self.records.list(TASKS, limit).await.map_err(failed)
    }

    /// Stores `task` as agent `agent_id`'s.
    pub async fn put_task(&self, agent_id: &str, task: &Task) -> Result<(), SkillError> {
        let record = TaskRecord {
            agent_id: agent_id.to_owned(),
            task: task.clone(),
        };
        self.records
            .put(TASKS, &task.id, &record)
            .await
            .map(drop)
            .map_err(failed)
    }

    /// Stores `push`.
    pub async fn put_push(&self, push: &PushRecord) -> Result<(), SkillError> {
        self.records
            .put(PUSH, &push.config_id, push)
            .await
            .map(drop)
            .map_err(failed)
    }

    /// The webhooks configured for agent `agent_id`.
    pub async fn pushes_of(&self, agent_id: &str) -> Result<Vec<PushRecord>, SkillError> {
        let all: Vec<PushRecord> = self.records.list(PUSH, None).await.map_err(failed)?;
        Ok(all.into_iter().filter(|p| p.agent_id == agent_id).collect())
    }
}
