//! The storage interface for tasks.

use chrono::{DateTime, Utc};

use crate::model::{Task, TaskState};
use crate::util::BoxFuture;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store holds its maximum number of tasks and none can be evicted.
    #[error("the task store is full ({0} tasks held, none finished); retry later")]
    Full(usize),
    /// A page token this store did not issue.
    #[error("pageToken is not a token this server issued")]
    InvalidPageToken,
    /// A backend failure.
    #[error("task store failure: {0}")]
    Backend(String),
}

/// Filters and paging for [`TaskStore::list`].
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only tasks of this owner (see [`Task::owner`](crate::Task::owner)); `None` lists every
    /// owner's (for administration; the A2A and MCP front-ends always set it).
    pub owner: Option<String>,
    /// Only tasks of this context.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status changed after this instant.
    pub status_after: Option<DateTime<Utc>>,
    /// Page size, 1 to 100.
    pub page_size: usize,
    /// Continue after the page that returned this token.
    pub page_token: Option<String>,
    /// Return at most this many of each task's most recent messages (`None`: all).
    pub history_length: Option<usize>,
    /// Return tasks without their artifacts.
    pub without_artifacts: bool,
    /// Stop a page before its tasks (as returned) exceed this many bytes, estimated; a page
    /// always holds at least one task. `next_page_token` continues after the last one.
    pub max_bytes: Option<usize>,
}

/// One page of tasks, newest status first.
#[derive(Debug, Clone)]
pub struct TaskPage {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Token for the next page; `None` on the last page.
    pub next_page_token: Option<String>,
    /// How many tasks match the filters in all.
    pub total_size: usize,
}

/// Where tasks are kept. The task manager serializes writes to one task, so a store only needs
/// whole-task reads and writes. A store keeps each task's [`owner`](crate::Task::owner) and
/// filters lists by it.
pub trait TaskStore: Send + Sync + 'static {
    /// Inserts or replaces a task.
    fn put(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>>;
    /// The task with this id.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>>;
    /// Tasks matching `query`, sorted by status timestamp, newest first, trimmed as `query`
    /// asks (history length, artifacts) and within its byte bound.
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<TaskPage, StoreError>>;
    /// How long a finished task stays readable, if the store forgets tasks (reported to MCP
    /// clients as a task's `ttlMs`). `None`: kept until deleted.
    fn retention(&self) -> Option<std::time::Duration> {
        None
    }
}
