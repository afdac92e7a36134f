//! The task manager: creates tasks from messages, runs their skills, records every state change
//! in the store, and answers get/list/cancel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::store::{ListQuery, StoreError, TaskPage, TaskStore};
use crate::context::TaskContext;
use crate::dispatch::{Dispatcher, RouteError, SkillOutput};
use crate::model::{Artifact, Message, Part, Role, Task, TaskState, TaskStatus, new_id};
use crate::registry::SkillEntry;
use crate::skill_error::SkillError;

/// Task-level settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskConfig {
    /// How long a cancelled skill may keep running before it is dropped.
    pub(crate) cancel_grace: Duration,
    /// The most messages kept in a task's history.
    pub(crate) max_history: usize,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            cancel_grace: Duration::from_secs(5),
            max_history: 100,
        }
    }
}

/// Why a task operation failed. Mapped to protocol errors by the front-ends.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TaskError {
    #[error("task `{0}` not found")]
    NotFound(String),
    #[error("task `{id}` is {state:?} and accepts no more messages", state = .state)]
    Terminal { id: String, state: TaskState },
    #[error("task `{id}` is {state:?}; it cannot be canceled", state = .state)]
    NotCancelable { id: String, state: TaskState },
    #[error(
        "task `{0}` is still working and does not accept messages until it asks for input; wait for it or cancel it"
    )]
    Busy(String),
    #[error("message.contextId `{given}` does not match task `{task}`'s contextId `{actual}`")]
    ContextMismatch {
        task: String,
        given: String,
        actual: String,
    },
    #[error("{field}: {reason}")]
    InvalidMessage { field: &'static str, reason: String },
    #[error(transparent)]
    Route(#[from] RouteError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A task whose skill is running. Its `task` is the authoritative copy; the store follows it.
struct LiveTask {
    task: tokio::sync::Mutex<Task>,
    cancel: CancellationToken,
    state: watch::Sender<TaskState>,
}

/// Runs skills as tasks.
pub(crate) struct TaskManager {
    store: Arc<dyn TaskStore>,
    dispatcher: Arc<Dispatcher>,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    config: TaskConfig,
}

impl TaskManager {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        dispatcher: Arc<Dispatcher>,
        config: TaskConfig,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            dispatcher,
            live: Mutex::new(HashMap::new()),
            config,
        })
    }

    fn live(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.live_map().get(id).cloned()
    }

    fn live_map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Handles an incoming user message: validates it, creates a task and starts its skill.
    /// Unless `return_immediately`, waits until the task is terminal or interrupted.
    pub(crate) async fn send(
        self: &Arc<Self>,
        mut message: Message,
        return_immediately: bool,
    ) -> Result<Task, TaskError> {
        validate(&message)?;
        if let Some(task_id) = message.task_id.clone() {
            // Validated against the store before anything is written (a2a-spec.md §11.1).
            let task = match self.live(&task_id) {
                Some(live) => live.task.lock().await.clone(),
                None => self
                    .store
                    .get(&task_id)
                    .await?
                    .ok_or_else(|| TaskError::NotFound(task_id.clone()))?,
            };
            if let Some(given) = &message.context_id
                && *given != task.context_id
            {
                return Err(TaskError::ContextMismatch {
                    task: task_id,
                    given: given.clone(),
                    actual: task.context_id,
                });
            }
            if task.status.state.is_terminal() {
                return Err(TaskError::Terminal {
                    id: task_id,
                    state: task.status.state,
                });
            }
            return Err(TaskError::Busy(task_id));
        }
        let route = self.dispatcher.route(&message)?;
        let context_id = message.context_id.clone().unwrap_or_else(new_id);
        let task_id = new_id();
        message.context_id = Some(context_id.clone());
        message.task_id = Some(task_id.clone());
        let task = Task {
            id: task_id.clone(),
            context_id: context_id.clone(),
            status: TaskStatus::now(TaskState::Submitted, None),
            artifacts: Vec::new(),
            history: vec![message],
            metadata: None,
        };
        self.store.put(task.clone()).await?;
        let cancel = CancellationToken::new();
        let (state, mut watcher) = watch::channel(TaskState::Submitted);
        let live = Arc::new(LiveTask {
            task: tokio::sync::Mutex::new(task.clone()),
            cancel: cancel.clone(),
            state,
        });
        self.live_map().insert(task_id.clone(), Arc::clone(&live));
        let skill_id = route.skill.descriptor.id();
        let input = route.input;
        let manager = Arc::clone(self);
        tokio::spawn(async move { manager.run(live, skill_id, input).await });
        if return_immediately {
            return Ok(task);
        }
        // Returns when the task is terminal or interrupted (a2a-spec.md §11.8). If the runner is
        // gone the sender is dropped and `wait_for` errors; the store has the final state then.
        let _ = watcher
            .wait_for(|s| s.is_terminal() || s.is_interrupted())
            .await;
        match self.live(&task_id) {
            Some(live) => Ok(live.task.lock().await.clone()),
            None => self
                .store
                .get(&task_id)
                .await?
                .ok_or(TaskError::NotFound(task_id)),
        }
    }

    async fn run(
        self: Arc<Self>,
        live: Arc<LiveTask>,
        skill_id: &'static str,
        input: serde_json::Value,
    ) {
        let Some(skill) = self.dispatcher.registry().get(skill_id) else {
            return;
        };
        let (task_id, context_id) = {
            let task = live.task.lock().await;
            (task.id.clone(), task.context_id.clone())
        };
        self.transition(&live, |task| {
            task.status = TaskStatus::now(TaskState::Working, None);
        })
        .await;
        let context = TaskContext::new(task_id.clone(), context_id, skill_id, live.cancel.clone());
        let result = self.run_skill(skill, input, context, &live.cancel).await;
        self.transition(&live, |task| finish(task, skill, result))
            .await;
        self.live_map().remove(&task_id);
    }

    /// Runs the skill; once cancellation is requested it gets `cancel_grace` to return before its
    /// future is dropped.
    async fn run_skill(
        &self,
        skill: &SkillEntry,
        input: serde_json::Value,
        context: TaskContext,
        cancel: &CancellationToken,
    ) -> Option<Result<SkillOutput, SkillError>> {
        let run = self.dispatcher.invoke(skill, input, context);
        tokio::pin!(run);
        tokio::select! {
            result = &mut run => Some(result),
            () = cancel.cancelled() => tokio::time::timeout(self.config.cancel_grace, run).await.ok(),
        }
    }

    /// Applies `change` unless the task is already terminal, then persists and announces it.
    async fn transition(&self, live: &LiveTask, change: impl FnOnce(&mut Task)) {
        let mut task = live.task.lock().await;
        if task.status.state.is_terminal() {
            return;
        }
        change(&mut task);
        let excess = task.history.len().saturating_sub(self.config.max_history);
        task.history.drain(..excess);
        if let Err(error) = self.store.put(task.clone()).await {
            tracing::error!(task = %task.id, %error, "could not persist task update");
        }
        live.state.send_replace(task.status.state);
    }

    /// The task with this id.
    pub(crate) async fn get(&self, id: &str) -> Result<Task, TaskError> {
        if let Some(live) = self.live(id) {
            return Ok(live.task.lock().await.clone());
        }
        self.store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))
    }

    /// Tasks matching `query`.
    pub(crate) async fn list(&self, query: &ListQuery) -> Result<TaskPage, TaskError> {
        Ok(self.store.list(query).await?)
    }

    /// Cancels a task: it ends `Canceled` at once and its skill observes the cancellation.
    pub(crate) async fn cancel(&self, id: &str) -> Result<Task, TaskError> {
        if let Some(live) = self.live(id) {
            let mut task = live.task.lock().await;
            mark_canceled(&mut task)?;
            self.store.put(task.clone()).await?;
            live.state.send_replace(TaskState::Canceled);
            live.cancel.cancel();
            return Ok(task.clone());
        }
        let mut task = self
            .store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound(id.to_owned()))?;
        // Not running here (for example left over from before a restart with a durable store).
        mark_canceled(&mut task)?;
        self.store.put(task.clone()).await?;
        Ok(task)
    }
}

/// Moves a task to `Canceled`, unless it already ended.
fn mark_canceled(task: &mut Task) -> Result<(), TaskError> {
    if task.status.state.is_terminal() {
        return Err(TaskError::NotCancelable {
            id: task.id.clone(),
            state: task.status.state,
        });
    }
    task.status = TaskStatus::now(TaskState::Canceled, None);
    Ok(())
}

fn validate(message: &Message) -> Result<(), TaskError> {
    if message.role != Role::User {
        return Err(TaskError::InvalidMessage {
            field: "message.role",
            reason: "must be ROLE_USER".into(),
        });
    }
    if message.message_id.is_empty() {
        return Err(TaskError::InvalidMessage {
            field: "message.messageId",
            reason: "must not be empty".into(),
        });
    }
    if message.parts.is_empty() {
        return Err(TaskError::InvalidMessage {
            field: "message.parts",
            reason: "must hold at least one part".into(),
        });
    }
    Ok(())
}

/// Records a skill's result on its task.
fn finish(task: &mut Task, skill: &SkillEntry, result: Option<Result<SkillOutput, SkillError>>) {
    let agent_message = |task: &Task, message: Message| Message {
        context_id: Some(task.context_id.clone()),
        task_id: Some(task.id.clone()),
        ..message
    };
    match result {
        Some(Ok(output)) => {
            let name = skill.descriptor.id();
            let artifact = match output {
                SkillOutput::Empty => None,
                SkillOutput::Text(text) => Some(
                    Artifact::new(vec![Part {
                        media_type: Some("text/plain".into()),
                        ..Part::text(text)
                    }])
                    .with_name(name),
                ),
                SkillOutput::Data(value) => {
                    Some(Artifact::new(vec![Part::data(value)]).with_name(name))
                }
                SkillOutput::Parts(parts) if parts.is_empty() => None,
                SkillOutput::Parts(parts) => Some(Artifact::new(parts).with_name(name)),
                SkillOutput::Artifact(artifact) => Some(artifact),
            };
            task.artifacts.extend(artifact);
            task.status = TaskStatus::now(TaskState::Completed, None);
        }
        Some(Err(error)) => {
            let mut parts = vec![Part::text(error.message())];
            parts.extend(error.data().cloned().map(Part::data));
            let message = agent_message(task, Message::agent(parts));
            task.history.push(message.clone());
            task.status = TaskStatus::now(TaskState::Failed, Some(message));
        }
        None => {
            // The grace period ran out after a cancel; the task is already `Canceled`.
        }
    }
}
