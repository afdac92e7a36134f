//! The task manager: creates tasks from messages, records every state change in the store, fans
//! events out to subscribers, delivers answers, and answers get/list/cancel/subscribe. Running a
//! task's skill is in `runner.rs`; its errors in `error.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::checkpoint::PendingCheckpoint;
use super::cluster::Cluster;
use super::durability::StoreHealth;
use super::error::TaskError;
use super::handle::{TaskEvents, TaskHandle};
use super::hook::Observers;
use super::live::{Budget, LiveTask, Subscribed};
use super::record::StoredTask;
pub use super::shared::SharedTasks;
use super::store::{ListQuery, TaskPage, TaskStore};
use super::subscription::{self, TaskSource, Until};
use crate::ask::InputLimits;
use crate::auth::Caller;
use crate::dispatch::{Call, Dispatcher};
use crate::observe::CallOutcome;
use crate::quota::{Quotas, TaskSlot};
use crate::registry::SkillEntry;
use a2a_runtime_types::model::{
    Message, ObservedTask, PushConfig, Task, TaskEvent, TaskObserver, TaskState, TaskStatus,
    TaskStatusUpdate,
};

/// Task-level settings.
#[derive(Debug, Clone, Copy)]
pub struct TaskConfig {
    /// How long a cancelled skill may keep running before it is dropped.
    pub cancel_grace: Duration,
    /// The most messages kept in a task's history.
    pub max_history: usize,
    /// Events buffered per task for subscribers; one that falls further behind is resent a
    /// snapshot.
    pub stream_buffer: usize,
    /// How long a question waits for its answer before the task fails.
    pub input_timeout: Duration,
    /// The most calls waiting for answers at once.
    pub max_waiting: usize,
    /// Bytes of history kept per task (oldest messages dropped first).
    pub max_history_bytes: usize,
    /// Bytes of artifacts one task may produce.
    pub max_artifact_bytes: usize,
    /// How long an idempotency key holds (see [`idempotency`](super::idempotency)).
    pub idempotency_ttl: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            cancel_grace: Duration::from_secs(5),
            max_history: 100,
            stream_buffer: 256,
            input_timeout: Duration::from_secs(15 * 60),
            max_waiting: 10_000,
            max_history_bytes: 4 * 1024 * 1024,
            max_artifact_bytes: 16 * 1024 * 1024,
            idempotency_ttl: super::idempotency::DEFAULT_KEY_TTL,
        }
    }
}

/// A message for task `task` must not name another context.
pub(super) fn check_context(
    task: &str,
    context_id: &str,
    message: &Message,
) -> Result<(), TaskError> {
    match &message.context_id {
        Some(given) if given != context_id => Err(TaskError::ContextMismatch {
            task: task.to_owned(),
            given: given.clone(),
            actual: context_id.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// How long a caller about to be told a task's final state waits for the store to hold it.
pub const DURABLE_WAIT: Duration = Duration::from_secs(5);

/// What a manager runs at one moment (see [`TaskManager::load`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Load {
    /// Tasks working: neither finished nor waiting for an answer.
    pub working: usize,
    /// Calls waiting for answers, over both protocols.
    pub waiting: usize,
    /// Streams following tasks.
    pub subscribers: usize,
}

/// Runs one agent's skills as tasks.
pub struct TaskManager {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) dispatcher: Arc<Dispatcher>,
    /// The agent whose tasks these are (see [`StoredTask::agent`]): every read and list is
    /// scoped by it, and every task created carries it.
    pub(super) agent: std::sync::Arc<str>,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    pub(super) config: TaskConfig,
    pub(super) input: InputLimits,
    /// Charged when an answer resumes a task left by an earlier run (its skill runs again).
    pub(super) quotas: Arc<Quotas>,
    /// The other replicas on the store, when it is shared.
    pub(super) cluster: Option<Arc<Cluster>>,
    /// What every task's events go to besides its subscribers (push delivery).
    pub(super) observers: Observers,
    /// Whether the store takes writes, for `/healthz`.
    pub(super) health: StoreHealth,
}

impl TaskManager {
    /// The manager of the one agent of a server (its tasks' agent key is empty).
    pub fn new(
        store: Arc<dyn TaskStore>,
        dispatcher: Arc<Dispatcher>,
        quotas: Arc<Quotas>,
        config: TaskConfig,
        observers: Observers,
    ) -> Arc<Self> {
        let shared = SharedTasks::new(store, quotas, config.stream_buffer);
        Self::hosted("", &shared, dispatcher, config, observers)
    }

    /// The manager of agent `agent` among several on `shared`.
    pub fn hosted(
        agent: &str,
        shared: &SharedTasks,
        dispatcher: Arc<Dispatcher>,
        config: TaskConfig,
        observers: Observers,
    ) -> Arc<Self> {
        Arc::new(Self {
            observers,
            dispatcher,
            agent: std::sync::Arc::from(agent),
            live: Mutex::new(HashMap::new()),
            config,
            input: InputLimits::new(config.input_timeout, config.max_waiting),
            quotas: Arc::clone(shared.quotas()),
            cluster: shared.cluster().cloned(),
            store: Arc::clone(shared.store()),
            health: StoreHealth::default(),
        })
    }

    /// The callers' quotas, shared by every agent of the server.
    pub fn quotas(&self) -> &Arc<Quotas> {
        &self.quotas
    }

    /// What runs now, for gauges: tasks working (not waiting for answers), calls waiting for
    /// answers (tasks and MCP calls alike), and streams following tasks.
    pub fn load(&self) -> Load {
        let live: Vec<Arc<LiveTask>> = self.live_map().values().cloned().collect();
        let working = live
            .iter()
            .filter(|task| {
                let state = *task.state.borrow();
                !state.is_terminal() && !state.is_interrupted()
            })
            .count();
        Load {
            working,
            waiting: self.input.waiting(),
            subscribers: live.iter().map(|task| task.subscribers()).sum(),
        }
    }

    /// Where the agent's calls, operations and task changes are reported.
    pub fn meter(&self) -> &crate::observe::Meter {
        self.dispatcher.meter()
    }

    /// The agent whose tasks these are: its id on a server hosting several, else empty.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Why the store refuses task writes, while it does (no write has landed since).
    pub fn store_failure(&self) -> Option<String> {
        self.health.failure()
    }

    /// The live task `id`, if `owner` owns it: another caller's task is not there for it.
    pub(super) fn live(&self, id: &str, owner: &str) -> Option<Arc<LiveTask>> {
        self.live_map()
            .get(id)
            .filter(|live| live.caller.owner() == owner)
            .cloned()
    }

    /// The stored task `id` (with at most `history` messages), if `owner` owns it and it is
    /// this agent's.
    pub(super) async fn stored(
        &self,
        id: &str,
        owner: &str,
        history: Option<usize>,
    ) -> Result<Option<StoredTask>, TaskError> {
        Ok(self
            .store
            .get(id, history)
            .await?
            .filter(|stored| stored.owner == owner && *stored.agent == *self.agent))
    }

    pub(super) fn live_map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates a task for `call` and runs it; `observers` follow its events besides the
    /// manager's own (an MCP call's progress notifications).
    pub async fn start(
        self: &Arc<Self>,
        mut call: Call,
        observers: Vec<Arc<dyn TaskObserver>>,
        quota: TaskSlot,
    ) -> Result<TaskHandle, TaskError> {
        let task = self.create(&mut call, quota, true, Vec::new()).await?;
        for observer in observers {
            task.live.observe(observer);
        }
        self.run(&task, call, Vec::new());
        Ok(task)
    }

    /// Subscribes to a task's events: a snapshot, then updates until it is terminal, through
    /// any questions it asks meanwhile. A task that already ended has nothing to subscribe to.
    pub async fn subscribe(
        self: &Arc<Self>,
        id: &str,
        owner: &str,
    ) -> Result<TaskEvents, TaskError> {
        let first = self.resubscribe(id, owner).await?;
        if first.snapshot.status.state.is_terminal() {
            return Err(TaskError::Ended {
                id: id.to_owned(),
                state: first.snapshot.status.state,
            });
        }
        Ok(Box::pin(subscription::stream(
            Arc::clone(self),
            id.to_owned(),
            owner.to_owned(),
            first,
            Until::Terminal,
        )))
    }

    /// A fresh snapshot and receiver; for a task no longer running, its final state alone.
    pub async fn resubscribe(&self, id: &str, owner: &str) -> Result<Subscribed, TaskError> {
        if let Some(live) = self.live(id, owner) {
            return Ok(live.subscribe());
        }
        if let Some(subscribed) = self.subscribe_remote(id, owner).await? {
            return Ok(subscribed);
        }
        let task = self
            .stored(id, owner, None)
            .await?
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))?
            .into_task();
        if !task.status.state.is_terminal() {
            return Err(TaskError::NotRunning(id.to_owned()));
        }
        Ok(Subscribed {
            snapshot: task,
            events: None,
        })
    }

    /// The stored task `id` of `owner`, or `NotFound`.
    pub(super) async fn found(&self, id: &str, owner: &str) -> Result<StoredTask, TaskError> {
        self.stored(id, owner, None)
            .await?
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))
    }

    /// Creates a SUBMITTED task holding `call`'s message, owned by its caller, and registers it
    /// as live; the call runs with [`run`](Self::run). `quota` is the task's place in its
    /// caller's quota, held until the skill ends. (Not an `async fn`: the future must not hold
    /// the call, whose decoded input need not be `Sync`.)
    ///
    /// With `store_now` the task is stored before this returns: its id is about to be told
    /// (a streaming or non-blocking send, an MCP task). Without it (a blocking send, whose
    /// caller learns of the task only from its settled state, stored before it is told), the
    /// first write is deferred: a task that settles quickly is written once, and one that
    /// does not is written after [`DEFERRED_FIRST_WRITE`](super::runner::DEFERRED_FIRST_WRITE).
    /// `push_configs` are the webhooks the request registered inline. A call that carries its
    /// message gives its arguments to the task's checkpoint (its skill reads them only to
    /// synthesize a message it lacks); any other lends a copy.
    pub fn create(
        &self,
        call: &mut Call,
        quota: TaskSlot,
        store_now: bool,
        push_configs: Vec<PushConfig>,
    ) -> impl Future<Output = Result<TaskHandle, TaskError>> + Send + '_ {
        let mut prepared = self.prepare(call, push_configs);
        async move {
            if store_now {
                if let Err(error) = self.store.create(&prepared.task).await {
                    prepared
                        .turn
                        .fail(CallOutcome::Failed, 0, error.to_string());
                    return Err(error.into());
                }
                prepared.task.version = 1;
            }
            Ok(self.register(prepared, quota))
        }
    }

    /// A live task for `task`, as stored.
    pub(super) fn live_task(
        &self,
        task: StoredTask,
        skill: &'static str,
        caller: Caller,
        quota: Option<TaskSlot>,
        checkpoint: Option<PendingCheckpoint>,
    ) -> Arc<LiveTask> {
        Arc::new(
            LiveTask::new(
                task,
                skill,
                caller,
                self.config.stream_buffer,
                quota,
                Budget {
                    history_bytes: self.config.max_history_bytes,
                    artifact_bytes: self.config.max_artifact_bytes,
                },
                checkpoint,
            )
            .with_observers(Arc::clone(&self.observers), self.dispatcher.meter().clone()),
        )
    }

    /// The skill `id` of this agent.
    pub(super) fn skill(&self, id: &str) -> Option<Arc<SkillEntry>> {
        self.dispatcher.registry().get(id).cloned()
    }

    /// The bounds on waiting for answers, shared with the MCP front-end.
    pub fn input_limits(&self) -> &InputLimits {
        &self.input
    }

    /// The most messages kept per task.
    pub(super) fn max_history(&self) -> usize {
        self.config.max_history
    }

    /// The task with this id (with at most `history` messages), if `owner` owns it.
    pub async fn get(
        &self,
        id: &str,
        owner: &str,
        history: Option<usize>,
    ) -> Result<Task, TaskError> {
        if let Some(live) = self.live(id, owner) {
            let task = live.view(history);
            let state = task.status.state;
            if state.is_terminal() || state.is_interrupted() {
                // Finished, or waiting for an answer a restart keeps, but perhaps not stored
                // yet: not reported until it is durable, so a crash right after does not undo
                // what the caller was told.
                live.durable(DURABLE_WAIT).await?;
            }
            return Ok(task);
        }
        self.stored(id, owner, history)
            .await?
            .map(StoredTask::into_task)
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))
    }

    /// Cancels a task live here: it ends `Canceled` at once and its skill is stopped.
    pub(super) async fn cancel_live(&self, live: &LiveTask) -> Result<Task, TaskError> {
        let canceled = live.record(
            live.status_event(TaskState::Canceled, None, None),
            None,
            self.config.max_history,
        );
        let task = live.snapshot();
        if !canceled {
            return Err(TaskError::NotCancelable {
                id: live.id.clone(),
                state: task.status.state,
            });
        }
        live.cancel.cancel();
        self.persist(live).await;
        Ok(task)
    }

    /// Waits (at most [`DURABLE_WAIT`]) until the store holds task `id` as it is now, if it is
    /// live here or followed as a mirror; a state not stored then is an error.
    pub(super) async fn durable(&self, id: &str, owner: &str) -> Result<(), TaskError> {
        match self.live(id, owner).or_else(|| self.followed(id, owner)) {
            Some(live) => live.durable(DURABLE_WAIT).await,
            None => Ok(()),
        }
    }

    /// Tells the observers (push delivery) of a status change made to a stored task that is
    /// not live (a task failed by a restart, or canceled while nothing ran it).
    pub(super) fn announce(&self, stored: &StoredTask) {
        let task = &stored.task;
        let event = Arc::new(TaskEvent::Status(TaskStatusUpdate {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            metadata: None,
        }));
        let observed = ObservedTask {
            task,
            owner: &stored.owner,
            push_configs: &stored.push_configs,
        };
        for observer in self.observers.iter() {
            observer.observe(observed, &event);
        }
    }

    /// Leaves the replicas on the store (with every agent's manager of this process), once
    /// every agent's tasks are settled at shutdown: survivors take over at once what this
    /// process leaves unfinished.
    pub fn leave_replicas(&self) {
        if let Some(cluster) = &self.cluster {
            cluster.leave();
        }
    }

    /// With replicas on a shared store: how long a silent replica counts as alive.
    pub fn replica_lease(&self) -> Option<Duration> {
        self.cluster.as_ref().map(|cluster| cluster.lease())
    }

    /// With replicas on a shared store: how many hold a lease now, this one included.
    pub fn live_replicas(&self) -> Option<usize> {
        self.cluster.as_ref().map(|cluster| cluster.live_replicas())
    }

    /// The store's push outbox, if it keeps one.
    pub fn outbox(&self) -> Option<super::Outbox> {
        self.store.outbox()
    }

    /// How long a canceled skill may keep running.
    pub fn cancel_grace(&self) -> Duration {
        self.config.cancel_grace
    }

    /// How long finished tasks stay readable, if the store forgets them.
    pub fn retention(&self) -> Option<Duration> {
        self.store.retention()
    }

    /// This agent's tasks matching `query` (its `agent` is this manager's, whatever it says).
    pub async fn list(&self, mut query: ListQuery) -> Result<TaskPage, TaskError> {
        query.agent = Some(self.agent.to_string());
        Ok(self.store.list(&query).await?)
    }

    /// Cancels a task: it ends `Canceled` at once, subscribers see it, and its skill observes
    /// the cancellation (and is dropped if it has not returned within the grace period).
    pub async fn cancel(&self, id: &str, owner: &str) -> Result<Task, TaskError> {
        if let Some(live) = self.live(id, owner) {
            return self.cancel_live(&live).await;
        }
        if let Some(task) = self.cancel_remote(id, owner).await? {
            return Ok(task);
        }
        let mut stored = self
            .stored(id, owner, None)
            .await?
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))?;
        // Not running here (for example left over from before a restart with a durable store).
        if stored.task.status.state.is_terminal() {
            return Err(TaskError::NotCancelable {
                id: stored.task.id.clone(),
                state: stored.task.status.state,
            });
        }
        stored.task_mut().status = TaskStatus::now(TaskState::Canceled, None);
        self.store.update(&stored).await?;
        self.announce(&stored);
        Ok(stored.into_task())
    }
}

impl TaskSource for TaskManager {
    fn durable(&self, id: &str, owner: &str) -> impl Future<Output = Result<(), TaskError>> + Send {
        TaskManager::durable(self, id, owner)
    }

    fn resubscribe(
        &self,
        id: &str,
        owner: &str,
    ) -> impl Future<Output = Result<Subscribed, TaskError>> + Send {
        TaskManager::resubscribe(self, id, owner)
    }

    fn current(
        &self,
        id: &str,
        owner: &str,
    ) -> impl Future<Output = Result<Task, TaskError>> + Send {
        self.get(id, owner, None)
    }
}
