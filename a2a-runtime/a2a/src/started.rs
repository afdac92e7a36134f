//! A send's task between its start and its answer: the task started here (and the skill's
//! run a blocking send drives), or, for a repeat under an idempotency key, the task the key
//! names, wherever it runs.

use std::sync::Arc;

use super::service::Sent;
use a2a_runtime_core::task::{DURABLE_WAIT, Driven, TaskError, TaskHandle, TaskManager};
use a2a_runtime_types::model::{Task, TaskView};

/// A task started by a message, before its result is awaited.
pub struct Started {
    pub(super) run: Run,
    pub(super) history: Option<usize>,
    pub(super) return_immediately: bool,
}

/// The task a send started, or the one an earlier request under its key did.
// The large variant is every send's; boxing it would cost each an allocation for the sake of
// the rare repeat.
#[allow(clippy::large_enum_variant)]
pub(super) enum Run {
    Here {
        task: TaskHandle,
        /// The skill's run, for a blocking send to drive until the task settles.
        run: Option<Driven>,
    },
    /// A repeat: the task the key names, wherever it runs (or ran).
    Repeat {
        id: String,
        owner: String,
        manager: Arc<TaskManager>,
    },
}

impl Started {
    /// The task's id.
    pub fn id(&self) -> &str {
        match &self.run {
            Run::Here { task, .. } => task.id(),
            Run::Repeat { id, .. } => id,
        }
    }

    /// The skill's direct reply, if it gave one before showing a task; else as
    /// [`task_result`](Self::task_result).
    pub async fn result(mut self) -> Result<Sent, TaskError> {
        if let Run::Here { task, run } = &mut self.run {
            drive(task, run).await;
            if let Some(message) = task.reply().await {
                return Ok(Sent::Message(message));
            }
        }
        Ok(Sent::Task(self.task_view().await?))
    }

    /// The task right away with `returnImmediately`, else once it is terminal or interrupted
    /// and stored in that state (a blocking send's answer survives a crash that follows it;
    /// a state the store did not take is an error, never an answer). A repeat answers the
    /// task its key names the same way.
    pub async fn task_result(self) -> Result<Task, TaskError> {
        Ok(self.task_view().await?.into_task())
    }

    /// [`task_result`](Self::task_result) as a view of the task where it is held, not a copy.
    pub async fn task_view(self) -> Result<TaskView, TaskError> {
        let (mut task, mut run) = match self.run {
            Run::Here { task, run } => (task, run),
            Run::Repeat { id, owner, manager } => {
                let task = match self.return_immediately {
                    true => manager.get(&id, &owner, self.history).await,
                    false => manager.settled(&id, &owner, self.history).await,
                }?;
                return Ok(TaskView::new(Arc::new(task), None));
            }
        };
        drive(&mut task, &mut run).await;
        let shared = if self.return_immediately {
            task.shared()
        } else {
            task.settle().await;
            let shared = task.shared();
            task.durable(DURABLE_WAIT).await?;
            task.told(shared).await
        };
        // The view trims the history, a mirror's stored copy (see `told`) included.
        Ok(TaskView::new(shared, self.history))
    }
}

/// Drives the skill's run (a blocking send's) until the task settles; the rest of it, if any,
/// goes on by itself.
async fn drive(task: &mut TaskHandle, run: &mut Option<Driven>) {
    if let Some(run) = run.take() {
        run.until_settled(task).await;
    }
}
