//! The task-event hook: the one place a task's events leave the task. Subscribers (SSE streams,
//! replicas following the task), push delivery and MCP progress notifications all observe the
//! same events, in the order they happened to the task.

use std::sync::Arc;

use crate::model::{Task, TaskEvent};

/// Follows task events as they happen. Called under the task's lock, in event order, with the
/// task as the event left it; an observer must not block (it queues and returns).
pub(crate) trait TaskObserver: Send + Sync {
    /// `event` just happened to `task`.
    fn observe(&self, task: &Task, event: &Arc<TaskEvent>);
}

/// The observers every task of one manager has (push delivery).
pub(crate) type Observers = Arc<[Arc<dyn TaskObserver>]>;
