//! The handle on a task the manager holds live: how a front-end waits for it, subscribes to it,
//! and learns whether a skill that may answer directly made it a task.

use std::sync::Arc;
use std::time::Duration;

use futures::Stream;

use super::error::TaskError;
use super::live::{LiveTask, Shape, Subscribed};
use super::store::TaskStore;
use super::subscription::{self, StreamItem, TaskSource, Until};
use a2a_runtime_types::model::{Message, Task, TaskState};

/// A task's events, for a subscriber: a snapshot first, then updates in order.
pub type TaskEvents = std::pin::Pin<Box<dyn Stream<Item = StreamItem> + Send>>;

/// A task the manager holds live: just created (its skill starts with the manager's `run`)
/// or resumed by an answer. Callers watch it through this handle.
pub struct TaskHandle {
    pub(super) live: Arc<LiveTask>,
    /// For a task an answer resumed: the subscription taken as the answer was handed over.
    pub(super) resumed: Option<Subscribed>,
    /// For a mirror of a task another replica runs: the shared store, which holds the task's
    /// full history (a mirror follows its events, not every message).
    pub(super) store: Option<Arc<dyn TaskStore>>,
}

impl TaskHandle {
    /// A handle on `live`, created or resumed here.
    pub(super) fn here(live: Arc<LiveTask>, resumed: Option<Subscribed>) -> Self {
        Self {
            live,
            resumed,
            store: None,
        }
    }

    /// A handle on the mirror of a task another replica runs, subscribed from now on.
    pub(super) fn mirrored(mirror: Arc<LiveTask>, store: Arc<dyn TaskStore>) -> Self {
        let resumed = Some(mirror.subscribe());
        Self {
            live: mirror,
            resumed,
            store: Some(store),
        }
    }

    /// `task`, settled and durable, as the caller is told it: for a mirror, the stored copy
    /// (with every message of its history) once it holds at least this state.
    pub async fn told(&self, task: Arc<Task>) -> Arc<Task> {
        let Some(store) = &self.store else {
            return task;
        };
        match store.get(&task.id, None).await {
            Ok(Some(stored)) if stored.task.status.timestamp >= task.status.timestamp => {
                stored.task
            }
            _ => task,
        }
    }

    /// The skill may answer with a message alone: the task stays undecided (unstored, untold)
    /// until it shows otherwise. Called before the skill runs.
    pub fn expect_reply(&self) {
        self.live.expect_reply();
    }

    /// Waits until the skill replied directly (`Some`) or showed a task (`None`; at once for
    /// a task that never expected a reply).
    pub async fn reply(&self) -> Option<Arc<Message>> {
        self.replies()?.await
    }

    /// For an undecided task, the same wait as [`reply`](Self::reply), owned (ready at once
    /// when the skill already replied, as a skill done on its first poll has); `None` for a
    /// task that is one already.
    pub fn replies(&self) -> Option<impl Future<Output = Option<Arc<Message>>> + Send + 'static> {
        if self.live.is_task() {
            return None;
        }
        let live = Arc::clone(&self.live);
        Some(async move {
            match live.decided().await {
                Shape::Reply(message) => Some(message),
                Shape::Task | Shape::Undecided => None,
            }
        })
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.live.id
    }

    /// The task as it is now.
    pub fn snapshot(&self) -> Task {
        self.live.snapshot()
    }

    /// The task as it is now with at most `history` messages: only what the view holds is
    /// copied.
    pub fn view(&self, history: Option<usize>) -> Task {
        self.live.view(history)
    }

    /// The task as it is now, shared with the live task rather than copied.
    pub fn shared(&self) -> Arc<Task> {
        self.live.shared()
    }

    /// Waits until the task is terminal or interrupted (a2a-spec.md §11.8) and returns it then.
    pub async fn settled(&self) -> Task {
        self.settle().await;
        self.live.snapshot()
    }

    /// Waits until the task is terminal or interrupted (at once if it is).
    pub async fn settle(&self) {
        let settled = |s: &TaskState| s.is_terminal() || s.is_interrupted();
        if settled(&self.live.state.borrow()) {
            return;
        }
        self.live.state.wait_for(settled).await;
    }

    /// Waits until the store holds the task as it is now (so a crash from here on does not
    /// undo what a caller is about to be told), at most `limit`. A state the store refused,
    /// or did not confirm in time, is [`TaskError::NotStored`]: never reported as done.
    pub async fn durable(&self, limit: Duration) -> Result<(), TaskError> {
        self.live.durable(limit).await
    }

    /// Like [`settled`](Self::settled), waiting at most `limit`.
    pub async fn wait(&self, limit: Duration) -> Task {
        tokio::time::timeout(limit, self.settled())
            .await
            .unwrap_or_else(|_| self.live.snapshot())
    }

    /// The task's events from now on: a snapshot, then updates until it is terminal or
    /// interrupted, as `manager` (the task manager) keeps them. Taken before the manager's
    /// `run`, it holds every event of the run.
    pub fn events<M: TaskSource>(&mut self, manager: &Arc<M>) -> TaskEvents {
        let first = self.resumed.take().unwrap_or_else(|| self.live.subscribe());
        Box::pin(subscription::stream(
            Arc::clone(manager),
            self.live.id.clone(),
            self.live.caller.owner().to_owned(),
            first,
            Until::Interrupted,
        ))
    }
}
