//! Tasks and their lifecycle states.

use std::sync::Arc;

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
        Task {
            id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: self.status.clone(),
            artifacts: if include_artifacts {
                self.artifacts.clone()
            } else {
                Vec::new()
            },
            history: recent(&self.history, history_length).to_vec(),
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

/// The `length` most recent messages of `history` (all of them for `None`).
fn recent(history: &[Message], length: Option<usize>) -> &[Message] {
    match length {
        Some(n) => &history[history.len().saturating_sub(n)..],
        None => history,
    }
}

/// A task as an answer shows it: shared with whoever holds it (a live task, a store), with at
/// most `history_length` of its most recent messages. Nothing is copied to make one: an answer
/// written straight from it (A2A v1) reads the task where it is, and
/// [`into_task`](Self::into_task) copies only for the writers that need a task of their own.
#[derive(Debug, Clone)]
pub struct TaskView {
    task: Arc<Task>,
    history_length: Option<usize>,
}

impl TaskView {
    /// `task` with at most `history_length` messages (`None` shows them all).
    pub fn new(task: Arc<Task>, history_length: Option<usize>) -> Self {
        Self {
            task,
            history_length,
        }
    }

    /// The whole task, its history untrimmed: read [`history`](Self::history) for the messages
    /// the view shows.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// The messages the view shows, oldest first.
    pub fn history(&self) -> &[Message] {
        recent(&self.task.history, self.history_length)
    }

    /// The task as the view shows it, copied.
    pub fn to_task(&self) -> Task {
        self.task.view(self.history_length, true)
    }

    /// The task as the view shows it, as a task of its own: copied unless this view held the
    /// only reference.
    pub fn into_task(self) -> Task {
        match Arc::try_unwrap(self.task) {
            Ok(task) => task.into_view(self.history_length, true),
            Err(shared) => shared.view(self.history_length, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task_of(messages: usize) -> Task {
        Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Utc::now(),
            },
            artifacts: Vec::new(),
            history: (0..messages)
                .map(|i| Message::user_text(format!("m{i}")))
                .collect(),
            metadata: None,
            created_at: Utc::now(),
        }
    }

    #[test]
    fn a_view_shows_the_most_recent_messages_and_copies_them_alike() {
        let shared = Arc::new(task_of(3));
        for (length, shown) in [(None, 3), (Some(0), 0), (Some(2), 2), (Some(5), 3)] {
            let view = TaskView::new(Arc::clone(&shared), length);
            let texts: Vec<_> = view.history().iter().filter_map(Message::text).collect();
            assert_eq!(texts.len(), shown);
            assert_eq!(
                texts.last().map(String::as_str),
                (shown > 0).then_some("m2")
            );
            let copied = view.into_task();
            let copied: Vec<_> = copied.history.iter().filter_map(Message::text).collect();
            assert_eq!(copied, texts);
            assert_eq!(shared.history.len(), 3, "the shared task is left whole");
        }
        let alone = TaskView::new(Arc::new(task_of(3)), Some(1)).into_task();
        assert_eq!(alone.history.len(), 1);
    }
}
