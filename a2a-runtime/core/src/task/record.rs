//! A task as a store keeps it: the protocol's [`Task`] and what only the server reads about it
//! (who owns it, what a restart needs to resume it, the webhooks registered for it), with the
//! version of its last write.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::checkpoint::Checkpoint;
use super::store_error::StoreError;
use a2a_runtime_types::model::{Artifact, JsonObject, Message, PushConfig, Task, TaskStatus};

/// A task as stored: the task clients see, the server's own record of it, and the version its
/// last write gave it (1 when created, one more with every update; 0 for a task not stored
/// yet).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    /// The task, as clients see it: shared, not copied, between the live task that wrote it
    /// and the store that keeps it (the live task copies it only when it changes it again, see
    /// [`Arc::make_mut`]); change it with [`task_mut`](Self::task_mut).
    pub task: Arc<Task>,
    /// Who the task belongs to: the key of the caller that created it (`scheme:principal`, or
    /// `anonymous`). Only its owner sees the task; lists filter by it.
    pub owner: String,
    /// The agent the task belongs to, in a server hosting several: its id there. Empty for a
    /// server of one agent. Reads and lists are scoped by it, so no agent sees another's tasks.
    pub agent: String,
    /// While the task is unfinished: what a restart needs to run its skill again (see
    /// [`Resume`](crate::descriptor::Resume)). Kept through [`to_json`](Self::to_json), cleared when the
    /// task finishes; only the runtime reads it.
    pub checkpoint: Option<Checkpoint>,
    /// Webhooks the owner registered for the task's updates.
    pub push_configs: Vec<PushConfig>,
    /// The idempotency key of the request that created the task, if it had one: its skill
    /// reads it (`TaskContext::idempotency_key`), after a restart too.
    pub idempotency_key: Option<String>,
    /// The version of the write this was read from, or that a write replaces.
    pub version: u64,
}

impl StoredTask {
    /// A task not stored yet (version 0), owned by `owner`.
    pub fn new(task: Task, owner: impl Into<String>) -> Self {
        Self {
            task: Arc::new(task),
            owner: owner.into(),
            agent: String::new(),
            checkpoint: None,
            push_configs: Vec::new(),
            idempotency_key: None,
            version: 0,
        }
    }

    /// The task, to change: this record's own (copied first if it is shared).
    pub fn task_mut(&mut self) -> &mut Task {
        Arc::make_mut(&mut self.task)
    }

    /// The task, taken out of the record (copied if it is shared).
    pub fn into_task(self) -> Task {
        Arc::unwrap_or_clone(self.task)
    }

    /// The JSON a store keeps for this task: everything but the version, which a store keeps
    /// beside it. Reading it back needs [`from_json`](Self::from_json); a [`Task`] alone reads
    /// from it too (the server's fields are skipped).
    pub fn to_json(&self) -> Result<String, StoreError> {
        let task = &self.task;
        serde_json::to_string(&Body {
            id: &task.id,
            context_id: &task.context_id,
            status: &task.status,
            artifacts: &task.artifacts,
            history: &task.history,
            metadata: &task.metadata,
            created_at: task.created_at,
            owner: &self.owner,
            agent: &self.agent,
            checkpoint: &self.checkpoint,
            push_configs: &self.push_configs,
            idempotency_key: self.idempotency_key.as_deref(),
        })
        .map_err(StoreError::backend)
    }

    /// The task stored as `json` ([`to_json`](Self::to_json)'s form) at `version`.
    pub fn from_json(json: &str, version: u64) -> Result<Self, StoreError> {
        let body: OwnedBody = serde_json::from_str(json).map_err(StoreError::backend)?;
        Ok(Self {
            task: Arc::new(Task {
                id: body.id,
                context_id: body.context_id,
                status: body.status,
                artifacts: body.artifacts,
                history: body.history,
                metadata: body.metadata,
                created_at: body.created_at,
            }),
            owner: body.owner,
            agent: body.agent,
            checkpoint: body.checkpoint,
            push_configs: body.push_configs,
            idempotency_key: body.idempotency_key,
            version,
        })
    }

    /// The same record with at most the `history_length` most recent messages of its task
    /// (`None` keeps all).
    pub fn with_history(mut self, history_length: Option<usize>) -> Self {
        if let Some(n) = history_length {
            let excess = self.task.history.len().saturating_sub(n);
            if excess > 0 {
                self.task_mut().history.drain(..excess);
            }
        }
        self
    }

    /// A copy with at most the `history_length` most recent messages of its task (`None`
    /// keeps all); only the messages kept are copied.
    pub fn view(&self, history_length: Option<usize>) -> Self {
        Self {
            task: match history_length {
                Some(n) if n < self.task.history.len() => Arc::new(self.task.view(Some(n), true)),
                _ => Arc::clone(&self.task),
            },
            owner: self.owner.clone(),
            agent: self.agent.clone(),
            checkpoint: self.checkpoint.clone(),
            push_configs: self.push_configs.clone(),
            idempotency_key: self.idempotency_key.clone(),
            version: self.version,
        }
    }
}

/// The stored form, written without copying the task. Field names and order are those the
/// stores have always kept (the task's own, then the server's).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    id: &'a str,
    context_id: &'a str,
    status: &'a TaskStatus,
    artifacts: &'a [Artifact],
    history: &'a [Message],
    metadata: &'a Option<JsonObject>,
    created_at: chrono::DateTime<chrono::Utc>,
    owner: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    agent: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoint: &'a Option<Checkpoint>,
    #[serde(skip_serializing_if = "<[PushConfig]>::is_empty")]
    push_configs: &'a [PushConfig],
    #[serde(skip_serializing_if = "Option::is_none")]
    idempotency_key: Option<&'a str>,
}

/// The stored form, read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OwnedBody {
    id: String,
    context_id: String,
    status: TaskStatus,
    artifacts: Vec<Artifact>,
    history: Vec<Message>,
    metadata: Option<JsonObject>,
    created_at: chrono::DateTime<chrono::Utc>,
    owner: String,
    #[serde(default)]
    agent: String,
    #[serde(default)]
    checkpoint: Option<Checkpoint>,
    #[serde(default)]
    push_configs: Vec<PushConfig>,
    #[serde(default)]
    idempotency_key: Option<String>,
}
