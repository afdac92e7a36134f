//! A subscriber's view of one task: a snapshot, then every event in order, ending when the task
//! is terminal or interrupted. A subscriber that falls behind the shared buffer is
//! resynchronized with a fresh snapshot instead of holding the task back.

use std::sync::Arc;

use futures::Stream;
use tokio::sync::broadcast::{self, error::RecvError};

use super::error::TaskError;
use super::live::Subscribed;
use a2a_runtime_types::model::{Message, Task, TaskEvent, TaskState};

/// What a subscription asks of the tasks it follows (the task manager, narrowed to it): to see
/// a final state stored before showing it, a fresh start for a subscriber that fell behind, and
/// the stored task when the runner vanished.
pub trait TaskSource: Send + Sync + 'static {
    /// Waits until task `id`'s state is stored (an error: the store refused it).
    fn durable(&self, id: &str, owner: &str) -> impl Future<Output = Result<(), TaskError>> + Send;
    /// A new subscription to task `id`.
    fn resubscribe(
        &self,
        id: &str,
        owner: &str,
    ) -> impl Future<Output = Result<Subscribed, TaskError>> + Send;
    /// Task `id` as it stands.
    fn current(
        &self,
        id: &str,
        owner: &str,
    ) -> impl Future<Output = Result<Task, TaskError>> + Send;
}

/// One item of a task's event stream.
#[derive(Debug, Clone)]
pub enum StreamItem {
    /// The whole task: always first, and again after a resynchronization.
    Snapshot(Box<Task>),
    /// A change after the last item.
    Event(Arc<TaskEvent>),
    /// A skill's direct reply: the whole of a stream that created no task.
    Message(Arc<Message>),
}

/// Whether a stream ends after showing this state: terminal, or waiting on the client.
pub fn ends_stream(state: TaskState) -> bool {
    state.is_terminal() || state.is_interrupted()
}

/// Where a stream of task events ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// At a terminal state or an interruption (input or authorization required): the stream of
    /// a streaming send, whose caller is the one to answer.
    Interrupted,
    /// At a terminal state only: a subscription, whose watcher sees the task through its
    /// questions to its end (A2A: "until the task reaches a terminal state").
    Terminal,
}

impl Until {
    fn ends_at(self, state: TaskState) -> bool {
        match self {
            Self::Interrupted => ends_stream(state),
            Self::Terminal => state.is_terminal(),
        }
    }
}

enum Phase {
    Snapshot(Box<Subscribed>),
    Live(broadcast::Receiver<Arc<TaskEvent>>),
    Done,
}

/// The stream of one subscription.
pub fn stream<M: TaskSource>(
    manager: Arc<M>,
    task_id: String,
    owner: String,
    first: Subscribed,
    until: Until,
) -> impl Stream<Item = StreamItem> + Send + 'static {
    futures::stream::unfold(Phase::Snapshot(Box::new(first)), move |phase| {
        let manager = Arc::clone(&manager);
        let task_id = task_id.clone();
        let owner = owner.clone();
        async move {
            let mut events = match phase {
                Phase::Done => return None,
                Phase::Snapshot(subscribed) => return Some(snapshot(*subscribed, until)),
                Phase::Live(events) => events,
            };
            match events.recv().await {
                Ok(event) => {
                    let state = event.state();
                    if state.is_some_and(|s| s.is_terminal() || s.is_interrupted()) {
                        // A final state, or a question a restart keeps, is shown once it is
                        // stored, so a crash right after does not undo what the subscriber saw.
                        // One the store refused is not
                        // shown: the stream ends without it, as at a shutdown, and a client
                        // that reads the task again is told it is not stored.
                        if let Err(error) = manager.durable(&task_id, &owner).await {
                            tracing::error!(task = %task_id, %error, "final state not shown");
                            return None;
                        }
                    }
                    let next = if state.is_some_and(|state| until.ends_at(state)) {
                        Phase::Done
                    } else {
                        Phase::Live(events)
                    };
                    Some((StreamItem::Event(event), next))
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(
                        task = %task_id,
                        missed,
                        "subscriber fell behind; resending a snapshot"
                    );
                    drop(events);
                    let subscribed = manager.resubscribe(&task_id, &owner).await.ok()?;
                    Some(snapshot(subscribed, until))
                }
                // The sender is dropped only after the terminal event, which ends the stream
                // first; if the runner vanished anyway, finish with the stored state.
                Err(RecvError::Closed) => {
                    let task = manager.current(&task_id, &owner).await.ok()?;
                    Some((StreamItem::Snapshot(Box::new(task)), Phase::Done))
                }
            }
        }
    })
}

/// A snapshot item, followed by the events unless the snapshot already ends the stream.
fn snapshot(subscribed: Subscribed, until: Until) -> (StreamItem, Phase) {
    let Subscribed { snapshot, events } = subscribed;
    let next = match events {
        Some(events) if !until.ends_at(snapshot.status.state) => Phase::Live(events),
        _ => Phase::Done,
    };
    (StreamItem::Snapshot(Box::new(snapshot)), next)
}
