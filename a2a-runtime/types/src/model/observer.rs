//! The contract of whatever follows task events as they happen: push delivery, resource
//! updates, an MCP call's progress notifications (and, one day, metrics or an audit log).

use std::sync::Arc;

use super::{PushConfig, Task, TaskEvent};

/// A task as an event left it, as its observers see it.
#[derive(Debug, Clone, Copy)]
pub struct ObservedTask<'a> {
    /// The task.
    pub task: &'a Task,
    /// Who owns it (the key of the caller that created it).
    pub owner: &'a str,
    /// The webhooks registered for its updates.
    pub push_configs: &'a [PushConfig],
}

/// Follows task events as they happen. Called under the task's lock, in event order, with the
/// task as the event left it; an observer must not block (it queues and returns).
pub trait TaskObserver: Send + Sync {
    /// `event` just happened to `task`.
    fn observe(&self, task: ObservedTask<'_>, event: &Arc<TaskEvent>);

    /// Whether the next event of `task` would interest this observer (checked before it is
    /// shared: an event no observer or subscriber wants is applied to the task without a copy).
    /// `true` unless an observer knows better; [`observe`](Self::observe) is called only when
    /// some observer or subscriber wants the event, and may still find nothing to do.
    fn wants(&self, task: ObservedTask<'_>) -> bool {
        let _ = task;
        true
    }
}
