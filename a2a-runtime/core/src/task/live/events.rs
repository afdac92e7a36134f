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
        let state = event.state();
        // An event nobody follows moves into the task; one that is followed is shared.
        // The task is copied here only if a store still holds the version last written.
        let followed = self.followed(inner);
        let task = Arc::make_mut(&mut inner.task);
        let shared = if followed {
            task.apply(&event);
            Some(Arc::new(self.addressed(event)))
        } else {
            task.apply_owned(event);
            None
        };
        if let Some(message) = history {
            self.push_history(&mut task.history, message, max_history);
        }
        inner.revision += 1;
        if let Some(state) = state {
            self.metered(inner, from, state);
        }
        if let Some(event) = shared {
            if let Some(events) = &inner.events {
                // No receivers is not an error: subscribers come and go.
                let _ = events.send(Arc::clone(&event));
            }
            let observed = self.observed(inner);
            for observer in self.observers.iter().chain(&inner.observers) {
                observer.observe(observed, &event);
            }
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

    /// `history` with `message` added, then its oldest messages dropped beyond `max_history`
    /// of them and beyond the task's budget of history bytes.
    fn push_history(&self, history: &mut Vec<Message>, message: Message, max_history: usize) {
        history.push(message);
        let excess = history.len().saturating_sub(max_history);
        history.drain(..excess);
        trim_to_bytes(history, self.budget.history_bytes);
    }

    /// Whether anything follows the task's next event: a subscriber (the channel exists only
    /// while one might listen) or an observer that wants it.
    fn followed(&self, inner: &Inner) -> bool {
        if inner.events.is_some() {
            return true;
        }
        let observed = self.observed(inner);
        self.observers
            .iter()
            .chain(&inner.observers)
            .any(|observer| observer.wants(observed))
    }

    /// The task as its observers see it.
    fn observed<'a>(&'a self, inner: &'a Inner) -> ObservedTask<'a> {
        ObservedTask {
            task: &inner.task,
            owner: self.caller.owner(),
            push_configs: &inner.push_configs,
        }
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

    /// A status update for this task, to [`record`](Self::record). Its task and context ids
    /// are left empty: they are written in when the event is shared (a subscriber or an
    /// observer follows the task), and an event nobody follows never copies them.
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
            task_id: String::new(),
            context_id: String::new(),
            status: TaskStatus::now(state, message),
            metadata,
        })
    }

    /// An artifact (or a chunk of one) for this task, to [`record`](Self::record); its ids are
    /// left empty as [`status_event`](Self::status_event)'s are.
    pub fn artifact_event(
        &self,
        artifact: a2a_runtime_types::model::Artifact,
        append: bool,
        last_chunk: bool,
    ) -> TaskEvent {
        TaskEvent::Artifact(TaskArtifactUpdate {
            task_id: String::new(),
            context_id: String::new(),
            artifact,
            append,
            last_chunk,
        })
    }

    /// `event` with this task's ids where they were left empty, to be shared.
    fn addressed(&self, mut event: TaskEvent) -> TaskEvent {
        let (task_id, context_id) = match &mut event {
            TaskEvent::Status(update) => (&mut update.task_id, &mut update.context_id),
            TaskEvent::Artifact(update) => (&mut update.task_id, &mut update.context_id),
        };
        if task_id.is_empty() {
            task_id.clone_from(&self.id);
        }
        if context_id.is_empty() {
            context_id.clone_from(&self.context_id);
        }
        event
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
            } => self.artifact_event(artifact.clone(), *append, *last_chunk),
        };
        // Progress is transient: it is the status message, not history.
        self.record(event, None, usize::MAX);
    }
}
