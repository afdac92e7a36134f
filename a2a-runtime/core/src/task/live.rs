//! A task whose skill is running: its authoritative copy, the fan-out of its events to
//! subscribers, and the skill reports that feed both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::json;
use tokio::sync::{broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::checkpoint::{Checkpoint, PendingCheckpoint};
use super::durability::Durability;
use super::error::{Refusal, TaskError};
use super::hook::Observers;
use super::record::StoredTask;
use super::watched::Watched;
use crate::ask::{Answer, Question, QuestionKind};
use crate::auth::Caller;
use crate::context::{Update, UpdateSink};
use crate::observe::{CallOutcome, Meter, Metered, TaskChange};
use crate::quota::{Busy, TaskSlot};
use a2a_runtime_types::model::{
    ByteSize, JsonObject, Message, ObservedTask, PushConfig, Task, TaskArtifactUpdate, TaskEvent,
    TaskObserver, TaskState, TaskStatus, TaskStatusUpdate,
};

mod events;
mod questions;

/// What the store holds of a live task: the version of the last write (1: as created; 0: not
/// stored yet, the first write creates it), which the next write is conditional on, and the
/// revision and edits it wrote (a write of an unchanged task is skipped).
#[derive(Debug, Clone, Copy)]
pub struct Persisted {
    pub version: u64,
    pub revision: u64,
    pub edits: u64,
}

/// A running task. The store follows `task`; subscribers follow `events`.
pub struct LiveTask {
    /// The task's id and context, fixed for its life, so readers need no lock.
    pub id: String,
    pub context_id: String,
    /// The skill the task runs.
    pub skill: &'static str,
    /// The agent the task belongs to (see [`StoredTask::agent`]).
    pub agent: String,
    /// The idempotency key of the request that created the task (see
    /// [`StoredTask::idempotency_key`]).
    pub idempotency_key: Option<String>,
    /// The caller that created the task: its owner, and who the skill runs for.
    pub caller: Caller,
    inner: Mutex<Inner>,
    /// Fires when the task is canceled; the skill's context holds the same token.
    pub cancel: CancellationToken,
    /// The latest state, for callers that wait until a task is terminal or interrupted.
    pub state: Watched<TaskState>,
    /// Serializes store writes so the last write is always the newest snapshot; holds what the
    /// store has of this task.
    pub persist: tokio::sync::Mutex<Persisted>,
    /// The revision the store holds, for callers that answer only once a state is durable.
    pub durability: Durability,
    /// Capacity of the event buffer shared by subscribers.
    buffer: usize,
    /// The task's place in its caller's quota, given back when the skill ends.
    quota: Mutex<Option<TaskSlot>>,
    /// Bytes of history and artifacts the task may hold.
    budget: Budget,
    /// While a resumed skill is handed the answers it was given before a restart: its reports
    /// are not recorded again (the task holds them already).
    replaying: AtomicBool,
    /// For a mirror (a task another replica runs, followed here): the revision applied so far.
    applied: Option<watch::Sender<u64>>,
    /// Observers every task of the manager has (push delivery); see `hook.rs`.
    observers: Observers,
    /// Whether this is a task yet, for a skill that may answer with a message alone.
    shape: Watched<Shape>,
    /// Where the task's state changes are reported (its agent's meter).
    meter: Meter,
}

/// What a request's answer turns out to be. A skill whose return type may be a direct reply
/// starts `Undecided`: nobody has been told of the task, and none is stored. Its first report
/// (progress, an artifact, a question, its end) makes it a `Task`; returning a message first
/// makes it a `Reply`, and the task is forgotten.
#[derive(Debug, Clone)]
pub enum Shape {
    Task,
    Undecided,
    Reply(Arc<Message>),
}

/// Bytes one task may hold: history beyond its budget is dropped oldest first; artifacts beyond
/// theirs fail the task.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub history_bytes: usize,
    pub artifact_bytes: usize,
}

struct Inner {
    /// Shared with the store's copy of the version last written (see [`StoredTask::task`]).
    task: Arc<Task>,
    /// Created on first subscription and dropped once the task ends; a task nobody watches
    /// pays nothing for fan-out.
    events: Option<broadcast::Sender<Arc<TaskEvent>>>,
    /// The question the skill waits on, while the task is interrupted.
    waiting: Option<Waiter>,
    /// Bytes of artifacts recorded so far.
    artifact_bytes: usize,
    /// Events since the task was created (replicas count them: one revision is one event).
    revision: u64,
    /// Changes that are not events (push configs registered or deleted), for the store.
    edits: u64,
    /// Observers of this task alone (an MCP call's progress notifications).
    observers: Vec<Arc<dyn TaskObserver>>,
    /// What a restart needs to resume the task, stored with it (see [`StoredTask::checkpoint`]).
    checkpoint: Option<Checkpoint>,
    /// The checkpoint of a task that has not needed one yet: it becomes the stored one when
    /// the skill first asks a question, the first point a restart could resume from (a skill
    /// that re-runs stores its checkpoint from the start).
    deferred: Option<PendingCheckpoint>,
    /// The webhooks registered for the task's updates.
    push_configs: Vec<PushConfig>,
    /// The call the task runs, reported per turn (off unless something observes calls).
    turn: Metered,
}

/// A posed question and where its answer goes. Dropping it (when the task ends) tells the
/// waiting skill that no answer will come.
struct Waiter {
    question: Question,
    answer: oneshot::Sender<Answer>,
    /// The answers given so far to the parts of a grouped question, by key.
    partial: serde_json::Map<String, serde_json::Value>,
}

/// What a new subscriber starts from: the task as it is now and, unless it already ended, the
/// events that follow it, with nothing missed or repeated in between.
pub struct Subscribed {
    pub snapshot: Task,
    pub events: Option<broadcast::Receiver<Arc<TaskEvent>>>,
}

impl LiveTask {
    /// A live task for `stored`, the task as the store holds it; `deferred` is kept for the
    /// task's first question (see [`Inner::deferred`]).
    pub fn new(
        stored: StoredTask,
        skill: &'static str,
        caller: Caller,
        buffer: usize,
        quota: Option<TaskSlot>,
        budget: Budget,
        deferred: Option<PendingCheckpoint>,
    ) -> Self {
        let StoredTask {
            task,
            agent,
            checkpoint,
            push_configs,
            idempotency_key,
            version,
            ..
        } = stored;
        let artifact_bytes = task.artifacts.iter().map(ByteSize::byte_size).sum();
        let state = Watched::new(task.status.state);
        Self {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            skill,
            agent,
            idempotency_key,
            caller,
            inner: Mutex::new(Inner {
                task,
                events: None,
                waiting: None,
                artifact_bytes,
                revision: 0,
                edits: 0,
                observers: Vec::new(),
                checkpoint,
                deferred,
                push_configs,
                turn: Metered::default(),
            }),
            cancel: CancellationToken::new(),
            state,
            persist: tokio::sync::Mutex::new(Persisted {
                version,
                revision: 0,
                edits: 0,
            }),
            durability: Durability::new(0),
            buffer: buffer.max(1),
            quota: Mutex::new(quota),
            budget,
            replaying: AtomicBool::new(false),
            applied: None,
            observers: Arc::from([]),
            shape: Watched::new(Shape::Task),
            meter: Meter::default(),
        }
    }

    /// The skill may answer with a message alone: until it shows otherwise, this is no task.
    pub fn expect_reply(&self) {
        self.shape.replace(Shape::Undecided);
    }

    /// Whether the answer is known to be a task (see [`Shape`]): not while undecided, and
    /// not once the skill replied with a message.
    pub fn is_task(&self) -> bool {
        matches!(*self.shape.borrow(), Shape::Task)
    }

    /// Waits until the answer is known to be a task or a reply.
    pub async fn decided(&self) -> Shape {
        self.shape
            .wait_for(|s| !matches!(s, Shape::Undecided))
            .await
    }

    /// The skill answered with `message`: unless the task was already shown to be one, the
    /// message is the answer. `false` if it was.
    pub fn reply(&self, message: Message) -> bool {
        let message = Arc::new(message);
        self.shape.modify(|shape| match shape {
            Shape::Undecided => {
                *shape = Shape::Reply(message);
                true
            }
            Shape::Task | Shape::Reply(_) => false,
        })
    }

    /// This task's events also go to `observers` (the manager's: push delivery), and its
    /// state changes to `meter`.
    pub fn with_observers(mut self, observers: Observers, meter: Meter) -> Self {
        self.observers = observers;
        self.meter = meter;
        self
    }

    /// The call this task runs is reported from now on: its turn ends when the task settles
    /// or waits for an answer, and an answer starts the next.
    pub fn begin_turn(&self, mut turn: Metered) {
        if !turn.is_on() {
            return;
        }
        turn.set_task(&self.id, &self.context_id);
        let mut inner = self.lock();
        turn.set_output_base(inner.artifact_bytes);
        inner.turn = turn;
    }

    /// Streams following this task now.
    pub fn subscribers(&self) -> usize {
        self.lock()
            .events
            .as_ref()
            .map_or(0, broadcast::Sender::receiver_count)
    }

    /// Ends the current turn as `outcome`, for `error`, ahead of the event that shows it (a
    /// skill's error and a runtime failure both leave the task FAILED); `reply` is the size
    /// of a message the skill answered with, besides the task's artifacts.
    pub fn end_turn(&self, outcome: CallOutcome, reply: usize, error: Option<String>) {
        let mut inner = self.lock();
        let output = inner.artifact_bytes + reply;
        // A skill's error or reply ends its run: no answer follows.
        inner.turn.end_turn(outcome, output, error, true);
    }

    /// A mirror of a task another replica runs, as it was at `revision` there: the events that
    /// replica forwards are applied to it ([`apply_forwarded`](Self::apply_forwarded)), so
    /// subscribers and waiters here follow the task as if it ran here. It is never stored.
    /// `agent` is the key of the task's agent.
    pub fn mirror(task: Task, agent: String, revision: u64, caller: Caller, buffer: usize) -> Self {
        let owner = caller.owner().to_owned();
        let mut stored = StoredTask::new(task, owner);
        stored.agent = agent;
        let mut mirror = Self::new(
            stored,
            "",
            caller,
            buffer,
            None,
            Budget {
                history_bytes: usize::MAX,
                artifact_bytes: usize::MAX,
            },
            // The running replica delivers the task's pushes; a mirror only follows it.
            None,
        );
        mirror.lock().revision = revision;
        mirror.durability.stored(revision);
        mirror.applied = Some(watch::channel(revision).0);
        mirror
    }

    /// Applies an event the running replica forwarded, which took the task there to `revision`.
    /// Status messages of failed and waiting states join the history, as they do there.
    pub fn apply_forwarded(&self, event: TaskEvent, revision: u64) {
        let history = match event.state() {
            Some(TaskState::Failed | TaskState::InputRequired | TaskState::AuthRequired) => {
                event.status_message()
            }
            _ => None,
        };
        let mut inner = self.lock();
        let applied = self.apply(&mut inner, event, history, usize::MAX);
        inner.revision = revision;
        drop(inner);
        self.publish(applied);
        if let Some(applied) = &self.applied {
            applied.send_replace(revision);
        }
    }

    /// Waits until a mirror has applied `revision` (at most `limit`); `false` if it did not.
    pub async fn applied(&self, revision: u64, limit: std::time::Duration) -> bool {
        let Some(applied) = &self.applied else {
            return true;
        };
        let mut applied = applied.subscribe();
        tokio::time::timeout(limit, applied.wait_for(|r| *r >= revision))
            .await
            .is_ok_and(|waited| waited.is_ok())
    }

    /// Ends a mirror's subscriptions: its replica stopped forwarding (it finished the task, or
    /// went away); subscribers finish with the stored state.
    pub fn close(&self) {
        self.lock().events = None;
    }

    /// Like [`subscribe`](Self::subscribe), with the snapshot's revision (read under the same
    /// lock, so the events that follow are the revisions after it).
    pub fn subscribe_at(&self) -> (Subscribed, u64) {
        let mut inner = self.lock();
        let revision = inner.revision;
        (self.subscribe_locked(&mut inner), revision)
    }

    /// The skill is being handed its earlier answers (`true`) or runs on from where it was.
    pub fn set_replaying(&self, replaying: bool) {
        self.replaying.store(replaying, Ordering::Release);
    }

    /// Forgets the recorded answers from the `kept`-th on: a resumed skill is asked those
    /// questions again (an authorization's credential is never stored, so it is asked anew,
    /// and the answers that followed it with it).
    pub fn forget_answers_from(&self, kept: usize) {
        let mut inner = self.lock();
        if let Some(checkpoint) = inner.checkpoint.as_mut() {
            // Not a revision of its own (a revision is one event, which replicas count): the
            // question asked next is, and stores this with it.
            checkpoint.answers.truncate(kept);
        }
    }

    fn quota(&self) -> MutexGuard<'_, Option<TaskSlot>> {
        self.quota.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the task's skill may charge to its caller's quota, while it counts there.
    pub(crate) fn charge(&self) -> Option<crate::quota::Charge> {
        self.quota().as_ref().map(TaskSlot::charge)
    }

    /// The task is about to wait for an answer: it counts among its caller's waiting tasks,
    /// unless the caller already has as many as it may.
    pub fn start_waiting(&self) -> Result<(), Busy> {
        self.quota().as_mut().map_or(Ok(()), TaskSlot::wait)
    }

    /// The task works again (answered, or gave up waiting).
    pub fn stop_waiting(&self) {
        if let Some(slot) = self.quota().as_mut() {
            slot.resume();
        }
    }

    /// The skill ended: the caller's quota gets the task's place back.
    pub fn release_quota(&self) {
        drop(self.quota().take());
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the task as it is now.
    pub fn snapshot(&self) -> Task {
        Task::clone(&self.lock().task)
    }

    /// A copy of the task as it is now with at most `history` messages.
    pub fn view(&self, history: Option<usize>) -> Task {
        self.lock().task.view(history, true)
    }

    /// The task as it is now, shared rather than copied: a later change copies it first.
    pub fn shared(&self) -> Arc<Task> {
        Arc::clone(&self.lock().task)
    }

    /// Waits until the store holds the task as it is now, at most `limit`; a state that is
    /// not stored then is an error naming it.
    pub async fn durable(&self, limit: std::time::Duration) -> Result<(), TaskError> {
        let (revision, state) = {
            let inner = self.lock();
            (inner.revision, inner.task.status.state)
        };
        self.durability
            .reached(revision, limit)
            .await
            .map_err(|reason| TaskError::NotStored {
                id: self.id.clone(),
                state,
                reason,
            })
    }

    /// How many changes the task has had.
    pub fn revision(&self) -> u64 {
        self.lock().revision
    }

    /// The task with its revision and edits, read together, unless both are still as
    /// `known` (then nothing is copied).
    pub fn changed_since(&self, known: &Persisted) -> Option<(StoredTask, u64, u64)> {
        let inner = self.lock();
        (inner.revision != known.revision || inner.edits != known.edits).then(|| {
            (
                self.stored_form(&inner, known.version),
                inner.revision,
                inner.edits,
            )
        })
    }

    /// The task's record with its revision and edits, read together.
    pub fn current(&self) -> (StoredTask, u64, u64) {
        let inner = self.lock();
        (self.stored_form(&inner, 0), inner.revision, inner.edits)
    }

    /// The task's record as a write replacing `version` stores it.
    fn stored_form(&self, inner: &Inner, version: u64) -> StoredTask {
        StoredTask {
            task: Arc::clone(&inner.task),
            owner: self.caller.owner().to_owned(),
            agent: self.agent.clone(),
            checkpoint: inner.checkpoint.clone(),
            push_configs: inner.push_configs.clone(),
            idempotency_key: self.idempotency_key.clone(),
            version,
        }
    }

    /// Adds an observer of this task's events from now on.
    pub fn observe(&self, observer: Arc<dyn TaskObserver>) {
        self.lock().observers.push(observer);
    }

    /// Changes the task's push configs with `edit`; the result is `edit`'s, and the task is to
    /// be stored again.
    pub fn edit_push_configs<T>(&self, edit: impl FnOnce(&mut Vec<PushConfig>) -> T) -> T {
        let mut inner = self.lock();
        let result = edit(&mut inner.push_configs);
        inner.edits += 1;
        result
    }

    /// The task's push configs.
    pub fn push_configs(&self) -> Vec<PushConfig> {
        self.lock().push_configs.clone()
    }

    /// When the task was created and the tasks its request referred to.
    pub fn origin(&self) -> (chrono::DateTime<chrono::Utc>, Vec<String>) {
        let inner = self.lock();
        let references = inner
            .task
            .history
            .first()
            .map(|m| m.reference_task_ids.clone())
            .unwrap_or_default();
        (inner.task.created_at, references)
    }

    /// The snapshot and the receiver are taken under one lock, so the subscriber sees every
    /// event after the snapshot exactly once.
    pub fn subscribe(&self) -> Subscribed {
        self.subscribe_locked(&mut self.lock())
    }

    fn subscribe_locked(&self, inner: &mut Inner) -> Subscribed {
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
            snapshot: Task::clone(&inner.task),
            events,
        }
    }
}
