//! The one place a task's events leave it: an event applied to the live task (history kept
//! within its budget, artifacts within theirs), handed to its subscribers and observers under
//! the task's lock, in order; and the skill's reports (`UpdateSink`) made into events.

use std::borrow::Cow;

use super::*;

impl LiveTask {
    /// Applies `event` (plus `history`, a message to keep) unless the task already ended, and
    /// sends it to subscribers. Returns whether it was applied.
    pub fn record(&self, event: TaskEvent, history: Option<Message>, max_history: usize) -> bool {
        let mut inner = self.lock();
        let applied = self.apply(&mut inner, event, history, max_history);
        drop(inner);
        self.publish(applied)
    }

    /// Applies an event under the lock; the new state, if any, is published after unlocking.
    /// An artifact over the task's budget fails the task instead and stops its skill.
    pub(super) fn apply(
        &self,
        inner: &mut Inner,
        mut event: TaskEvent,
        mut history: Option<Message>,
        max_history: usize,
    ) -> Option<Option<TaskState>> {
        if inner.task.status.state.is_terminal() {
            return None;
        }
        // Anything but the bare WORKING a run starts with shows the caller a task.
        let starting = matches!(&event, TaskEvent::Status(update)
            if update.status.state == TaskState::Working && update.status.message.is_none());
        if !starting {
            self.shape.modify(|shape| {
                let undecided = matches!(shape, Shape::Undecided);
                if undecided {
                    *shape = Shape::Task;
                }
                undecided
            });
        }
        if let TaskEvent::Artifact(update) = &event {
            let added = update.artifact.byte_size();
            if inner.artifact_bytes + added > self.budget.artifact_bytes {
                let reason = Message::agent_text(format!(
                    "The skill's artifacts exceed this server's limit of {} bytes per task; the \
                     task was stopped.",
                    self.budget.artifact_bytes
                ));
                event = self.status_event(TaskState::Failed, Some(reason), None);
                history = event.status_message();
                self.cancel.cancel();
            } else {
                inner.artifact_bytes += added;
            }
        }
        let from = inner.task.status.state;
        inner.task.apply(&event);
        inner.revision += 1;
        if let Some(message) = history {
            inner.task.history.push(message);
            let excess = inner.task.history.len().saturating_sub(max_history);
            inner.task.history.drain(..excess);
            trim_to_bytes(&mut inner.task.history, self.budget.history_bytes);
        }
        let state = event.state();
        if let Some(state) = state {
            self.metered(inner, from, state);
        }
        let event = Arc::new(event);
        if let Some(events) = &inner.events {
            // No receivers is not an error: subscribers come and go.
            let _ = events.send(Arc::clone(&event));
        }
        for observer in self.observers.iter().chain(&inner.observers) {
            let observed = ObservedTask {
                task: &inner.task,
                owner: self.caller.owner(),
                push_configs: &inner.push_configs,
            };
            observer.observe(observed, &event);
        }
        if state.is_some_and(TaskState::is_terminal) {
            // Receivers drain what was sent, then see the channel closed; a waiting skill
            // learns that no answer will come.
            inner.events = None;
            inner.observers.clear();
            inner.waiting = None;
            // A finished task is never resumed.
            inner.checkpoint = None;
            inner.deferred = None;
        }
        Some(state)
    }

    /// Reports a move from `from` to `state`, and ends the call's turn when the task settles
    /// or waits for an answer.
    fn metered(&self, inner: &mut Inner, from: TaskState, state: TaskState) {
        if state != from {
            self.meter.task_change(|| TaskChange {
                agent: Cow::Borrowed(self.meter.agent()),
                skill: Cow::Borrowed(self.skill),
                task_id: Cow::Borrowed(&self.id),
                context_id: Cow::Borrowed(&self.context_id),
                owner: Cow::Borrowed(self.caller.owner()),
                from,
                state,
                at: std::time::SystemTime::now(),
            });
        }
        if state.is_terminal() || state.is_interrupted() {
            let output = inner.artifact_bytes;
            let outcome = CallOutcome::of_state(state);
            inner
                .turn
                .end_turn(outcome, output, None, state.is_terminal());
        }
    }

    pub(super) fn publish(&self, applied: Option<Option<TaskState>>) -> bool {
        match applied {
            None => false,
            Some(state) => {
                if let Some(state) = state {
                    self.state.replace(state);
                }
                true
            }
        }
    }

    /// A status update for this task.
    pub fn status_event(
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

/// Drops the oldest messages until `history` fits in `budget` bytes; the newest is kept whatever
/// its size (it was accepted within the request limits).
fn trim_to_bytes(history: &mut Vec<Message>, budget: usize) {
    let mut total: usize = history.iter().map(ByteSize::byte_size).sum();
    let mut drop_count = 0;
    while total > budget && drop_count + 1 < history.len() {
        total -= history[drop_count].byte_size();
        drop_count += 1;
    }
    history.drain(..drop_count);
}

/// Skill reports on a task become status (WORKING, with the progress as the message) and
/// artifact events.
impl UpdateSink for LiveTask {
    fn update(&self, update: &Update) {
        if self.replaying.load(Ordering::Acquire) {
            return;
        }
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
