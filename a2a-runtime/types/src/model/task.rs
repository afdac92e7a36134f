//! Tasks and their lifecycle states.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Artifact, JsonObject, Message};

/// The lifecycle state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskState {
    /// Accepted, not started.
    Submitted,
    /// Running.
    Working,
    /// Paused until the client sends more input.
    InputRequired,
    /// Paused until the client provides credentials.
    AuthRequired,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
    /// Stopped on request.
    Canceled,
    /// Refused by the agent.
    Rejected,
}

impl TaskState {
    /// Every state, in lifecycle order.
    pub const ALL: [Self; 8] = [
        Self::Submitted,
        Self::Working,
        Self::InputRequired,
        Self::AuthRequired,
        Self::Completed,
        Self::Failed,
        Self::Canceled,
        Self::Rejected,
    ];

    /// Completed, failed, canceled or rejected: the task will never change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Canceled | Self::Rejected
        )
    }

    /// Waiting on the client (input or credentials).
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// The state as labels and records name it: `submitted`, `working`, `input_required`,
    /// `auth_required`, `completed`, `failed`, `canceled`, `rejected`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::AuthRequired => "auth_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
            Self::Rejected => "rejected",
        }
    }
}

/// A task's current state, with the message that explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// An agent message describing the state (for example the error of a failed task).
    pub message: Option<Message>,
    /// When the task entered this state.
    pub timestamp: DateTime<Utc>,
}

impl TaskStatus {
    /// A status entered now.
    pub fn now(state: TaskState, message: Option<Message>) -> Self {
        Self {
            state,
            message,
            timestamp: Utc::now(),
        }
    }
}

/// A unit of work the agent performs for a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Server-generated identifier.
    pub id: String,
    /// The conversation the task belongs to.
    pub context_id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Outputs produced so far.
    pub artifacts: Vec<Artifact>,
    /// Messages exchanged, oldest first.
    pub history: Vec<Message>,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// When the task was created. Not part of the A2A wire format (MCP tasks report it).
    pub created_at: DateTime<Utc>,
}

impl Task {
    /// A copy with at most the `history_length` most recent messages (`None` keeps all) and,
    /// unless `include_artifacts`, no artifacts.
    pub fn view(&self, history_length: Option<usize>, include_artifacts: bool) -> Task {
        let history = match history_length {
            Some(n) => self.history[self.history.len().saturating_sub(n)..].to_vec(),
            None => self.history.clone(),
        };
        Task {
            id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: self.status.clone(),
            artifacts: if include_artifacts {
                self.artifacts.clone()
            } else {
                Vec::new()
            },
            history,
            metadata: self.metadata.clone(),
            created_at: self.created_at,
        }
    }

    /// [`view`](Self::view) of a task that is not needed afterwards: nothing is copied.
    pub fn into_view(mut self, history_length: Option<usize>, include_artifacts: bool) -> Task {
        if let Some(n) = history_length {
            let excess = self.history.len().saturating_sub(n);
            self.history.drain(..excess);
        }
        if !include_artifacts {
            self.artifacts = Vec::new();
        }
        self
    }
}
