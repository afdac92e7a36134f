//! A task whose skill is running: its authoritative copy, the fan-out of its events to
//! subscribers, and the skill reports that feed both.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::json;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::context::{Update, UpdateSink};
use crate::model::{
    JsonObject, Message, Task, TaskArtifactUpdate, TaskEvent, TaskState, TaskStatus,
    TaskStatusUpdate,
};

/// A running task. The store follows `task`; subscribers follow `events`.
pub(crate) struct LiveTask {
    /// The task's id and context, fixed for its life, so readers need no lock.
    pub(crate) id: String,
    pub(crate) context_id: String,
    inner: Mutex<Inner>,
    /// Fires when the task is canceled; the skill's context holds the same token.
    pub(crate) cancel: CancellationToken,
    /// The latest state, for callers that wait until a task is terminal or interrupted.
    pub(crate) state: watch::Sender<TaskState>,
    /// Serializes store writes so the last write is always the newest snapshot.
    pub(crate) persist: tokio::sync::Mutex<()>,
    /// Capacity of the event buffer shared by subscribers.
    buffer: usize,
}

struct Inner {
    task: Task,
    /// Created on first subscription and dropped once the task ends; a task nobody watches
    /// pays nothing for fan-out.
    events: Option<broadcast::Sender<Arc<TaskEvent>>>,
}

/// What a new subscriber starts from: the task as it is now and, unless it already ended, the
/// events that follow it, with nothing missed or repeated in between.
pub(crate) struct Subscribed {
    pub(crate) snapshot: Task,
    pub(crate) events: Option<broadcast::Receiver<Arc<TaskEvent>>>,
}

impl LiveTask {
    pub(crate) fn new(task: Task, buffer: usize) -> Self {
        let (state, _) = watch::channel(task.status.state);
        Self {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            inner: Mutex::new(Inner { task, events: None }),
            cancel: CancellationToken::new(),
            state,
            persist: tokio::sync::Mutex::new(()),
            buffer: buffer.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the task as it is now.
    pub(crate) fn snapshot(&self) -> Task {
        self.lock().task.clone()
    }

    /// The snapshot and the receiver are taken under one lock, so the subscriber sees every
    /// event after the snapshot exactly once.
    pub(crate) fn subscribe(&self) -> Subscribed {
        let mut inner = self.lock();
        let state = inner.task.status.state;
        let events = if state.is_terminal() {
            None
        } else {
            let buffer = self.buffer;
            Some(
                inner
                    .events
                    .get_or_insert_with(|| broadcast::channel(buffer).0)
                    .subscribe(),
            )
        };
        Subscribed {
            snapshot: inner.task.clone(),
            events,
        }
    }

    /// Applies `event` (plus `history`, a message to keep) unless the task already ended, and
    /// sends it to subscribers. Returns whether it was applied.
    pub(crate) fn record(
        &self,
        event: TaskEvent,
        history: Option<Message>,
        max_history: usize,
    ) -> bool {
        let mut inner = self.lock();
        if inner.task.status.state.is_terminal() {
            return false;
        }
        inner.task.apply(&event);
        if let Some(message) = history {
            inner.task.history.push(message);
            let excess = inner.task.history.len().saturating_sub(max_history);
            inner.task.history.drain(..excess);
        }
        let state = event.state();
        if let Some(events) = &inner.events {
            // No receivers is not an error: subscribers come and go.
            let _ = events.send(Arc::new(event));
        }
        if let Some(state) = state {
            if state.is_terminal() {
                // Receivers drain what was sent, then see the channel closed.
                inner.events = None;
            }
            drop(inner);
            self.state.send_replace(state);
        }
        true
    }

    /// A status update for this task.
    pub(crate) fn status_event(
        &self,
        state: TaskState,
        message: Option<Message>,
        metadata: Option<JsonObject>,
    ) -> TaskEvent {
        let message = message.map(|m| Message {
            context_id: Some(self.context_id.clone()),
            task_id: Some(self.id.clone()),
            ..m
        });
        TaskEvent::Status(TaskStatusUpdate {
            task_id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus::now(state, message),
            metadata,
        })
    }
}

/// Skill reports on a task become status (WORKING, with the progress as the message) and
/// artifact events.
impl UpdateSink for LiveTask {
    fn update(&self, update: &Update) {
        let event = match update {
            Update::Progress(progress) => {
                let metadata = progress.done.map(|done| {
                    let mut metadata = JsonObject::new();
                    metadata.insert("progress".into(), json!(done));
                    if let Some(total) = progress.total {
                        metadata.insert("total".into(), json!(total));
                    }
                    metadata
                });
                self.status_event(
                    TaskState::Working,
                    Some(Message::agent_text(progress.text())),
                    metadata,
                )
            }
            Update::Artifact {
                artifact,
                append,
                last_chunk,
            } => TaskEvent::Artifact(TaskArtifactUpdate {
                task_id: self.id.clone(),
                context_id: self.context_id.clone(),
                artifact: artifact.clone(),
                append: *append,
                last_chunk: *last_chunk,
            }),
        };
        // Progress is transient: it is the status message, not history.
        self.record(event, None, usize::MAX);
    }
}
