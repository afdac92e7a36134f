//! What replicas say to each other, as JSON in a replica's mailbox.

use serde::{Deserialize, Serialize};

use crate::ask::{Answer, QuestionKind};
use crate::auth::Caller;
use crate::dispatch::MissingScope;
use crate::quota::{Busy, BusyKind};
use crate::registry::Registry;
use crate::task::error::TaskError;
use crate::task::push_edit::PushEdit;
use crate::task::store_error::StoreError;
use a2a_runtime_types::model::{Message, Task, TaskEvent, TaskState};

/// One message between replicas.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Envelope {
    /// A request for the replica running a task of agent `agent` (its key: empty on a server
    /// of one agent); `from` gets the reply.
    Request {
        id: String,
        from: String,
        #[serde(default)]
        agent: String,
        request: Request,
    },
    /// The outcome of request `id`.
    Reply {
        id: String,
        outcome: Result<Outcome, RemoteError>,
    },
    /// An event of a watched task, which took it to `revision` on its replica.
    Event {
        task: String,
        revision: u64,
        event: Box<TaskEvent>,
    },
    /// The running replica stored a watched task at `revision`.
    Stored { task: String, revision: u64 },
    /// The running replica stopped forwarding a task's events (it finished and is stored).
    WatchEnded { task: String },
}

/// What one replica asks the replica running a task to do.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Request {
    /// Forward the task's events from now on (the reply carries its snapshot).
    Watch { task: String, owner: String },
    /// Cancel the task.
    Cancel { task: String, owner: String },
    /// Hand the task's waiting question its answer.
    Answer(Box<Answering>),
    /// Change the task's push configs.
    Push {
        task: String,
        owner: String,
        edit: PushEdit,
    },
}

/// An answer for the replica running a task.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answering {
    pub task: String,
    pub owner: String,
    pub kind: QuestionKind,
    pub question: Option<String>,
    pub answer: Answer,
    pub history: Option<Message>,
    /// Who answers; `None`: the application (an authorization).
    pub caller: Option<Caller>,
}

/// A request done.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    /// Watching: the task as it is at `revision`; its events follow.
    Watching { task: Box<Task>, revision: u64 },
    /// Canceled: the task now.
    Canceled { task: Box<Task> },
    /// The answer was delivered; the task reached `revision` taking it.
    Answered { revision: u64 },
    /// The push configs were changed (and stored).
    Pushed,
}

/// Why a request was refused: the task errors a front-end maps, carried between replicas.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "camelCase")]
pub enum RemoteError {
    /// The task is not live on that replica (it finished, or moved).
    NotHere,
    Terminal {
        state: TaskState,
    },
    NotCancelable {
        state: TaskState,
    },
    Busy,
    AwaitingAuth,
    NotAwaitingAuth {
        state: TaskState,
    },
    NoSuchQuestion {
        question: String,
    },
    Forbidden {
        skill: String,
        missing: Vec<String>,
    },
    Quota {
        /// Absent from replicas of earlier versions.
        #[serde(default)]
        kind: BusyKind,
        reason: String,
        retry_after_ms: u64,
    },
    PushConfigLimit {
        limit: usize,
    },
    /// Anything else, as text.
    Failed {
        message: String,
    },
}

impl RemoteError {
    /// The task error `error` on the replica that refused, carried over.
    pub fn of(error: TaskError) -> Self {
        match error {
            TaskError::NotFound(_) | TaskError::NotRunning(_) => Self::NotHere,
            TaskError::Terminal { state, .. } | TaskError::Ended { state, .. } => {
                Self::Terminal { state }
            }
            TaskError::NotCancelable { state, .. } => Self::NotCancelable { state },
            TaskError::Busy(_) => Self::Busy,
            TaskError::AwaitingAuth(_) => Self::AwaitingAuth,
            TaskError::NotAwaitingAuth { state, .. } => Self::NotAwaitingAuth { state },
            TaskError::NoSuchQuestion { question, .. } => Self::NoSuchQuestion { question },
            TaskError::Forbidden(missing) => Self::Forbidden {
                skill: missing.skill.to_owned(),
                missing: missing.missing.iter().map(|s| (*s).to_owned()).collect(),
            },
            TaskError::Quota(busy) => Self::Quota {
                kind: busy.kind,
                reason: busy.reason,
                retry_after_ms: u64::try_from(busy.retry_after.as_millis()).unwrap_or(u64::MAX),
            },
            TaskError::PushConfigLimit { limit, .. } => Self::PushConfigLimit { limit },
            other => Self::Failed {
                message: other.to_string(),
            },
        }
    }

    /// The task error for task `id` here; `None` for [`NotHere`](Self::NotHere), which the
    /// caller handles (the task is then served from the store). Replicas run the same agent,
    /// so a missing scope is one of a skill in `registry`.
    pub fn into_task_error(self, id: &str, registry: &Registry) -> Option<TaskError> {
        let id = id.to_owned();
        Some(match self {
            Self::NotHere => return None,
            Self::Terminal { state } => TaskError::Terminal { id, state },
            Self::NotCancelable { state } => TaskError::NotCancelable { id, state },
            Self::Busy => TaskError::Busy(id),
            Self::AwaitingAuth => TaskError::AwaitingAuth(id),
            Self::NotAwaitingAuth { state } => TaskError::NotAwaitingAuth { id, state },
            Self::NoSuchQuestion { question } => TaskError::NoSuchQuestion { id, question },
            Self::Forbidden { skill, missing } => {
                let known = registry.get(&skill).map(|entry| {
                    let needed = entry.scopes();
                    MissingScope {
                        skill: entry.id(),
                        needed: std::sync::Arc::clone(needed),
                        missing: needed
                            .iter()
                            .copied()
                            .filter(|s| missing.iter().any(|m| m == s))
                            .collect(),
                    }
                });
                match known {
                    Some(known) if !known.missing.is_empty() => TaskError::Forbidden(known),
                    _ => TaskError::Store(StoreError::backend(format!(
                        "skill `{skill}` needs scopes {missing:?}"
                    ))),
                }
            }
            Self::Quota {
                kind,
                reason,
                retry_after_ms,
            } => TaskError::Quota(Busy::new(
                kind,
                reason,
                std::time::Duration::from_millis(retry_after_ms),
            )),
            Self::PushConfigLimit { limit } => TaskError::PushConfigLimit { id, limit },
            Self::Failed { message } => TaskError::Store(StoreError::backend(message)),
        })
    }
}
