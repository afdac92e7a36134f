//! The tasks extension: a call that runs as a task of the shared task manager (so A2A
//! `GetTask` sees it too), handed over at once, when it ends or when it first asks; and
//! `tasks/get`, `tasks/update` (answers) and `tasks/cancel` over the same tasks.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CancelTaskParams, CreateTaskResult, DetailedTask, GetTaskParams,
    GetTaskResult, InputRequiredResult, InputResponses, Task as McpTask, TaskPayload,
    TaskStatus as McpTaskStatus, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::elicit::{answer_of, input_requests};
use super::error::task_error;
use super::keyed::keyed;
use super::results::task_result;
use super::service::{McpService, caller_of, object};
use super::updates::ProgressForwarder;
use a2a_runtime_core::app::App;
use a2a_runtime_core::ask::{Answer, Question};
use a2a_runtime_core::descriptor::TaskSupport;
use a2a_runtime_core::dispatch::Call;
use a2a_runtime_core::quota::{CallerId, TaskSlot};
use a2a_runtime_core::task::{Keyed, TaskError};
use a2a_runtime_types::model::{Message, Task, TaskObserver, TaskState};

/// How often clients are asked to poll a task.
const POLL_INTERVAL_MS: u64 = 500;

/// The longest a new task handle waits for the store to hold its task.
const DURABLE_WAIT: Duration = Duration::from_secs(1);

/// How a call from a client of the tasks extension becomes a task.
#[derive(Debug, Clone, Copy)]
pub enum TaskMode {
    /// Its result if it ends within the duration, else the task's handle.
    Shortcut(Duration),
    /// The task's handle at once.
    Always,
    /// An input-required result if the task asks within the duration (the task is handed over
    /// on the retry that answers it), else the task's handle.
    AskFirst(Duration),
}

impl TaskMode {
    /// The mode of a tool with `support` for tasks; `ask_first` when the client can answer an
    /// input-required result (2026-07-28, with an ability to answer).
    pub fn of(support: TaskSupport, ask_first: bool, app: &App) -> Self {
        let after = app.limits.mcp_task_after;
        match support {
            // A task from the start, its first question asked as an input-required result
            // when the client can answer one, the task announced once it is answered.
            TaskSupport::Required if ask_first => Self::AskFirst(after),
            // A tool that requires tasks always gives one.
            TaskSupport::Required => Self::Always,
            // Others answer at once when quick.
            _ => Self::Shortcut(after),
        }
    }
}

impl McpService {
    /// A call from a client that supports the tasks extension runs as a task of the shared task
    /// manager, so A2A `GetTask` sees it too. If it ends within `shortcut` the result is
    /// returned directly; otherwise the client gets a task handle to poll.
    pub async fn call_as_task(
        &self,
        call: Call,
        progress: Option<Arc<ProgressForwarder>>,
        mode: TaskMode,
        quota: TaskSlot,
        caller: &CallerId,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Progress notifications follow the task's events, as its other observers do.
        let observers = progress
            .clone()
            .map(|p| vec![p as Arc<dyn TaskObserver>])
            .unwrap_or_default();
        let manager = &self.app.manager;
        let started = match keyed(&context.meta, &call, caller)? {
            None => manager.start(call, observers, quota).await,
            // As on A2A, no read first: the claim written with the task finds a repeat.
            Some(key) => match manager.start_keyed(call, observers, quota, &key).await {
                Ok(Keyed::New(task)) => Ok(task),
                Ok(Keyed::Repeat(held)) => return self.repeated(&held.task_id, caller).await,
                Err(error) => Err(error),
            },
        }
        .map_err(task_error)?;
        let shortcut = match mode {
            TaskMode::Shortcut(shortcut) => shortcut,
            TaskMode::Always => {
                // Durable before the client learns of it, so an immediate tasks/get finds it.
                started.durable(DURABLE_WAIT).await.map_err(task_error)?;
                let task = started.snapshot();
                let question = self.waiting_here(&task, caller);
                return Ok(CallToolResponse::Task(CreateTaskResult::new(
                    self.mcp_task(&task, question.as_ref()).task,
                )));
            }
            TaskMode::AskFirst(within) => {
                let task = started.wait(within).await;
                started.durable(DURABLE_WAIT).await.map_err(task_error)?;
                let question = self.waiting_here(&task, caller);
                return Ok(self.handoff_or_task(&task, question, caller, None));
            }
        };
        let task = tokio::select! {
            task = started.wait(shortcut) => task,
            // Until the handle is returned, the request is the only way to cancel the task.
            () = context.ct.cancelled() => {
                let _ = self.app.manager.cancel(started.id(), caller.owner()).await;
                return Err(McpError::internal_error("the call was canceled", None));
            }
        };
        if task.status.state.is_terminal()
            && let Some(progress) = progress
        {
            progress.finish().await;
        }
        Ok(self.answer_for(&task, caller))
    }

    /// A call's answer with `task` as it stands: its result once it ended, else its handle.
    fn answer_for(&self, task: &Task, caller: &CallerId) -> CallToolResponse {
        if task.status.state.is_terminal() {
            return CallToolResponse::Complete(task_result(task, &self.app.dispatcher.registry()));
        }
        let question = self.waiting_here(task, caller);
        CallToolResponse::Task(CreateTaskResult::new(
            self.mcp_task(task, question.as_ref()).task,
        ))
    }

    /// A repeat of a keyed call: the task the first call created, as it stands.
    async fn repeated(
        &self,
        task_id: &str,
        caller: &CallerId,
    ) -> Result<CallToolResponse, McpError> {
        let manager = &self.app.manager;
        let task = manager.get(task_id, caller.owner(), None).await;
        Ok(self.answer_for(&task.map_err(task_error)?, caller))
    }

    /// The question a task running on this process waits on, while it is INPUT_REQUIRED.
    fn waiting_here(&self, task: &Task, caller: &CallerId) -> Option<Question> {
        (task.status.state == TaskState::InputRequired)
            .then(|| self.app.manager.live_question(&task.id, caller.owner()))
            .flatten()
    }

    /// A task that waits for input before it was announced: an input-required result for its
    /// question, under a `requestState` (`state`, or a new one) that hands the task over on the
    /// retry; any other task: its handle.
    fn handoff_or_task(
        &self,
        task: &Task,
        question: Option<Question>,
        caller: &CallerId,
        state: Option<&str>,
    ) -> CallToolResponse {
        let question = question.filter(|_| task.status.state == TaskState::InputRequired);
        let tool = self.app.manager.skill_of(&task.id, caller.owner());
        let (Some(question), Some(tool)) = (question, tool) else {
            return CallToolResponse::Task(CreateTaskResult::new(self.mcp_task(task, None).task));
        };
        let ttl = self.app.manager.input_limits().timeout();
        let state = state.map_or_else(
            || {
                self.parked
                    .seal_handoff(&task.id, tool, caller.owner(), ttl)
            },
            str::to_owned,
        );
        CallToolResponse::InputRequired(InputRequiredResult::new(
            Some(input_requests([&question])),
            Some(state),
        ))
    }

    /// The retry of a call whose task waited for input before it was announced: the responses
    /// answer its question (all of it, or some parts), then the task is handed over, or what is
    /// still unanswered asked again.
    pub async fn continue_handoff(
        &self,
        task_id: &str,
        state: &str,
        responses: Option<InputResponses>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let caller = caller_of(context);
        let (task, question) = self.find_task(task_id, context).await?;
        if question.is_some() {
            let responses = responses.unwrap_or_default();
            self.answer_question(&task, question, &responses, context)
                .await?;
        }
        let (task, question) = self.find_task(task_id, context).await?;
        Ok(self.handoff_or_task(&task, question, &caller, Some(state)))
    }

    /// Our task as an MCP task, with the question it waits on (`question`) or its result once
    /// it ended.
    fn mcp_task(&self, task: &Task, question: Option<&Question>) -> DetailedTask {
        let stamp = |at: &chrono::DateTime<chrono::Utc>| {
            at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        };
        let mut base = McpTask::new(
            task.id.clone(),
            McpTaskStatus::Working,
            stamp(&task.created_at),
            stamp(&task.status.timestamp),
        )
        .with_poll_interval_ms(POLL_INTERVAL_MS);
        if let Some(ttl) = self.app.manager.retention() {
            base = base.with_ttl_ms(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
        }
        if let Some(text) = task.status.message.as_ref().and_then(|m| m.text()) {
            base = base.with_status_message(text);
        }
        let payload = match (task.status.state, question) {
            (TaskState::InputRequired, Some(question)) => TaskPayload::InputRequired {
                input_requests: input_requests([question]),
            },
            (state, _) => self.settled_payload(task, state),
        };
        DetailedTask::new(base, payload)
    }

    /// The payload of a task that is not waiting on a question.
    fn settled_payload(&self, task: &Task, state: TaskState) -> TaskPayload {
        match state {
            TaskState::Submitted
            | TaskState::Working
            | TaskState::InputRequired
            | TaskState::AuthRequired => TaskPayload::Working,
            // A panic or a shutdown is a failure of the request: a JSON-RPC error.
            TaskState::Failed
                if task
                    .status
                    .message
                    .as_ref()
                    .is_some_and(Message::is_runtime_failure) =>
            {
                let message = task
                    .status
                    .message
                    .as_ref()
                    .and_then(Message::text)
                    .unwrap_or_else(|| "the task failed".into());
                TaskPayload::Failed {
                    error: object(&json!({ "code": -32603, "message": message })),
                }
            }
            // A skill error or refusal is a tool error (`isError`), which MCP reports as
            // completed.
            TaskState::Completed | TaskState::Failed | TaskState::Rejected => {
                TaskPayload::Completed {
                    result: object(&task_result(task, &self.app.dispatcher.registry())),
                }
            }
            TaskState::Canceled => TaskPayload::Cancelled,
        }
    }

    /// Answers the question `task` waits on with `responses` (`tasks/update`, or the retry that
    /// hands a task over): responses to requests it does not wait for are ignored, as the
    /// extension says, and the task keeps waiting (tasks/get shows it).
    async fn answer_question(
        &self,
        task: &Task,
        question: Option<Question>,
        responses: &InputResponses,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let Some(question) = question else {
            return Err(McpError::invalid_params(
                format!(
                    "task `{}` is not waiting for input; tasks/update answers input requests only",
                    task.id
                ),
                Some(json!({ "taskId": task.id })),
            ));
        };
        if !question.parts.is_empty() {
            return self.update_parts(task, &question, responses, context).await;
        }
        let field = format!("inputResponses.{}", question.key());
        let Some(response) = responses.get(question.key()) else {
            return Ok(());
        };
        let answer = answer_of(&question, response.clone()).ok_or_else(|| {
            McpError::invalid_params(
                format!("{field}: not a response to that input request"),
                Some(json!({ "taskId": task.id, "field": field })),
            )
        })?;
        let caller = caller_of(context);
        self.app
            .manager
            .answer(&task.id, &question.id, answer, &caller)
            .await
            .map_err(task_error)
    }

    /// Answers a task waiting on several input requests at once (`ctx.ask_all`): each may be
    /// answered on its own, and the task resumes once all are.
    async fn update_parts(
        &self,
        task: &Task,
        question: &Question,
        responses: &InputResponses,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let caller = caller_of(context);
        let mut given = Vec::new();
        for part in &question.parts {
            let Some(response) = responses.get(part.key()) else {
                continue;
            };
            let field = format!("inputResponses.{}", part.key());
            match answer_of(part, response.clone()) {
                Some(Answer::Value(value)) => given.push((part.key().to_owned(), value)),
                // Declining one request declines the question they make together.
                Some(Answer::Declined) => {
                    return self
                        .app
                        .manager
                        .answer(&task.id, &question.id, Answer::Declined, &caller)
                        .await
                        .map_err(task_error);
                }
                Some(Answer::Message(_)) | None => {
                    return Err(McpError::invalid_params(
                        format!("{field}: not a response to that input request"),
                        Some(json!({ "taskId": task.id, "field": field })),
                    ));
                }
            }
        }
        if given.is_empty() {
            return Ok(());
        }
        let complete = given.len() == question.parts.len();
        match self
            .app
            .manager
            .answer_parts(&task.id, &question.id, given.clone(), &caller)
            .await
        {
            Ok(_) => Ok(()),
            // Not running here: only a complete set can be handed over.
            Err(TaskError::NotRunning(_)) if complete => {
                let answer = Answer::Value(Value::Object(given.into_iter().collect()));
                self.app
                    .manager
                    .answer(&task.id, &question.id, answer, &caller)
                    .await
                    .map_err(task_error)
            }
            Err(TaskError::NotRunning(_)) => Err(McpError::invalid_params(
                format!(
                    "task `{}` is not running on this server, so its input requests must be \
                     answered together: send a response for each of them in one tasks/update",
                    task.id
                ),
                Some(json!({ "taskId": task.id, "field": "inputResponses" })),
            )),
            Err(error) => Err(task_error(error)),
        }
    }

    /// Task `id`, if `context`'s caller owns it.
    async fn find_task(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Task, Option<Question>), McpError> {
        let caller = caller_of(context);
        self.app
            .manager
            .get_waiting(id, caller.owner())
            .await
            .map_err(task_error)
    }

    /// `tasks/get`: the task as MCP shows it, with the question it waits on.
    pub async fn get_task(
        &self,
        request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let (task, question) = self.find_task(&request.task_id, context).await?;
        Ok(GetTaskResult::new(self.mcp_task(&task, question.as_ref())))
    }

    /// `tasks/update`: answers to the question the task waits on.
    pub async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (task, question) = self.find_task(&request.task_id, context).await?;
        self.answer_question(&task, question, &request.input_responses, context)
            .await
    }

    /// `tasks/cancel`, cooperative as the extension specifies: a task that already ended is
    /// acknowledged and keeps its final status.
    pub async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let caller = caller_of(context);
        match self
            .app
            .manager
            .cancel(&request.task_id, caller.owner())
            .await
        {
            Ok(_) | Err(TaskError::NotCancelable { .. }) => Ok(()),
            Err(error) => Err(task_error(error)),
        }
    }
}
