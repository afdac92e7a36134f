//! What the hub keeps and answers: agents, todos, messages, reservations, file changes and
//! interfaces, with the field names of the A2AMCP reference where it has them.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A registered agent, as `list_active_agents` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AgentInfo {
    /// The agent's task.
    pub task_id: String,
    /// Its git branch.
    pub branch: String,
    /// What it is doing.
    pub description: String,
    /// Always `active` while it is registered.
    pub status: String,
    /// When it registered.
    pub started_at: DateTime<Utc>,
    /// When it is reaped unless it calls `heartbeat` again.
    pub expires_at: DateTime<Utc>,
}

/// A todo's state.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Waiting on something else.
    Blocked,
}

/// One item of an agent's task breakdown.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Todo {
    /// Its id (`todo-…`).
    pub id: String,
    /// What is to be done.
    pub text: String,
    /// Its state.
    pub status: TodoStatus,
    /// 1 high, 2 medium, 3 low.
    pub priority: u8,
    /// When it was added.
    pub created_at: DateTime<Utc>,
    /// When it was completed, if it is.
    pub completed_at: Option<DateTime<Utc>>,
}

/// What kind of message an inbox holds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A question from another agent (`query_agent`), which may want an answer.
    Query,
    /// The answer to a question this agent asked (`respond_to_query`).
    Response,
    /// A message to every agent of the project (`broadcast_message`).
    Broadcast,
}

/// One message in an agent's inbox.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InboxMessage {
    /// Its id (`msg-…`): what `respond_to_query` names.
    pub id: String,
    /// The sender's session name.
    pub from: String,
    /// What kind of message it is.
    #[serde(rename = "type")]
    pub kind: MessageKind,
    /// A query's type (`interface`, `help`, `status`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_type: Option<String>,
    /// A broadcast's type (`info`, `warning`, `help_needed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_type: Option<String>,
    /// The text.
    pub content: String,
    /// When it was sent.
    pub timestamp: DateTime<Utc>,
    /// Whether the sender waits for (or wants) an answer.
    pub requires_response: bool,
    /// The query a response answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
    /// Whether `check_messages` returned it already.
    pub read: bool,
}

impl InboxMessage {
    /// A broadcast of `message_type` from `from`, new and unread.
    pub(crate) fn broadcast(from: &str, message_type: &str, content: &str) -> Self {
        Self {
            id: crate::new_id("msg"),
            from: from.to_owned(),
            kind: MessageKind::Broadcast,
            query_type: None,
            message_type: Some(message_type.to_owned()),
            content: content.to_owned(),
            timestamp: crate::now(),
            requires_response: false,
            in_reply_to: None,
            read: false,
        }
    }
}

/// The answer to a query, kept for the asker who waits for it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Answer {
    /// Who answered.
    pub from: String,
    /// The answer.
    pub response: String,
    /// When.
    pub timestamp: DateTime<Utc>,
}

/// How a file is reserved.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReservationMode {
    /// Nobody else may reserve a matching path (the default).
    #[default]
    Exclusive,
    /// Others may reserve it shared too, but not exclusively.
    Shared,
}

/// A reservation of a path or glob (`src/models/user.ts`, `src/api/**`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Reservation {
    /// The path or glob reserved.
    pub file_path: String,
    /// The agent holding it.
    pub session: String,
    /// Exclusive or shared.
    pub mode: ReservationMode,
    /// The change planned (`create`, `modify`, `delete`, `refactor`).
    pub change_type: String,
    /// What the agent is doing to it.
    pub description: String,
    /// When it was first reserved.
    pub locked_at: DateTime<Utc>,
    /// When it lapses unless announced again.
    pub expires_at: DateTime<Utc>,
}

/// A change an agent announced, as `get_recent_changes` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FileChange {
    /// The agent.
    pub session: String,
    /// The path or glob.
    pub file_path: String,
    /// `create`, `modify`, `delete` or `refactor`.
    pub change_type: String,
    /// What it did.
    pub description: String,
    /// When it announced it.
    pub timestamp: DateTime<Utc>,
}

/// A shared interface or type definition.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Interface {
    /// The definition's text.
    pub definition: String,
    /// The agent that registered it.
    pub registered_by: String,
    /// Where it is defined, if said.
    pub file_path: Option<String>,
    /// When it was registered.
    pub timestamp: DateTime<Utc>,
}
