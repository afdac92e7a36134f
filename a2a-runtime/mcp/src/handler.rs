//! `tools/list`, `tools/call` and the tasks extension over the shared dispatcher and task
//! manager.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    ContentBlock, CreateTaskResult, CustomRequest, CustomResult, DetailedTask, ErrorCode,
    GetTaskParams, GetTaskResult, Implementation, InitializeResult, InputRequiredResult,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    Task as McpTask, TaskPayload, TaskStatus as McpTaskStatus, Tool, UpdateTaskParams,
};
#[allow(deprecated)] // `logging/setLevel`: see `logging.rs`.
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestMethod, GetPromptRequestParams,
    GetPromptResponse, InputResponses, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PromptsCapability, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourcesCapability, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::asking::{Abilities, ElicitAsker};
use super::content;
use super::elicit::{answer_of, input_requests};
use super::error::{busy, forbidden, missing_capability, task_error, tasks_required};
use super::logging::{McpLogSink, SessionLevel};
use super::parked::{CallEvent, DetachedCall, ParkedCalls, ResumeError, Resumed};
use super::results::{call_result, task_result};
use super::subscriptions::Subscriptions;
use super::tools::tool_list;
use super::updates::{ArtifactCollector, ProgressForwarder};
use a2a_runtime_core::app::App;
use a2a_runtime_core::ask::{Answer, Asker, Question};
use a2a_runtime_core::call::normalize_numbers;
use a2a_runtime_core::context::UpdateSink;
use a2a_runtime_core::descriptor::TaskSupport;
use a2a_runtime_core::dispatch::{Call, Dispatcher};
use a2a_runtime_core::logging::LogSink;
use a2a_runtime_core::quota::{CallerId, TaskSlot};
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_core::task::TaskError;
use a2a_runtime_types::model::TaskObserver;
use a2a_runtime_types::model::{Message, Task, TaskState, new_id};

/// The MCP revisions this server implements (tools only).
const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// How often clients are asked to poll a task.
const POLL_INTERVAL_MS: u64 = 500;

/// How a call from a client of the tasks extension becomes a task.
#[derive(Debug, Clone, Copy)]
enum TaskMode {
    /// Its result if it ends within the duration, else the task's handle.
    Shortcut(Duration),
    /// The task's handle at once.
    Always,
    /// An input-required result if the task asks within the duration (the task is handed over
    /// on the retry that answers it), else the task's handle.
    AskFirst(Duration),
}

/// The longest a new task handle waits for the store to hold its task.
const DURABLE_WAIT: Duration = Duration::from_secs(1);

/// One agent, served as an MCP server. One per session ([`for_session`](Self::for_session));
/// the state is shared but for the session's subscriptions.
#[derive(Clone)]
pub struct McpHandler {
    app: Arc<App>,
    /// The agent's skills as MCP tools, built once.
    tools: Arc<Vec<Tool>>,
    /// Calls waiting between input-required rounds (protocol 2026-07-28).
    parked: Arc<ParkedCalls>,
    /// The resources this session follows.
    subscriptions: Arc<Subscriptions>,
    /// The least severe log messages this session wants (`logging/setLevel`).
    log_level: Arc<SessionLevel>,
}

impl McpHandler {
    pub fn new(app: Arc<App>) -> Self {
        Self {
            tools: Arc::new(tool_list(app.dispatcher.registry())),
            parked: Arc::new(ParkedCalls::new(app.state_key.as_deref())),
            subscriptions: Arc::default(),
            log_level: Arc::default(),
            app,
        }
    }

    /// The handler of a new session: shared state, subscriptions of its own.
    pub fn for_session(&self) -> Self {
        Self {
            subscriptions: Arc::default(),
            log_level: Arc::default(),
            ..self.clone()
        }
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let dispatcher = &self.app.dispatcher;
        let Some(skill) = dispatcher.registry().get(&request.name) else {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; this server's tools are: {}",
                    request.name,
                    dispatcher.registry().id_list()
                ),
                Some(json!({ "tool": request.name })),
            ));
        };
        let tool = skill.descriptor.id();
        let caller = caller_of(&context);
        // Over HTTP the MCP gate refuses with 403 before this; over stdio this is the check, and
        // it comes first, so a retry is checked as well and nothing is decoded for a caller
        // who may not call the tool. (`Call::new` asks it again for the calls it makes.)
        Dispatcher::authorize(skill, caller.caller()).map_err(forbidden)?;
        // Read from the request's `_meta` (or the session) once: each read parses it anew.
        let capabilities = context.client_capabilities();
        let tasks = capabilities
            .as_ref()
            .is_some_and(|caps| caps.supports_tasks());
        let task_support = skill.descriptor.task_support();
        if task_support == TaskSupport::Required && !tasks {
            return Err(tasks_required(tool));
        }
        if let Some(state) = &request.request_state {
            if let Some(task_id) = self.parked.open_handoff(state, (tool, caller.owner())) {
                return self
                    .continue_handoff(&task_id, (state, request.input_responses), &context)
                    .await;
            }
            return self
                .resume(tool, state, request.input_responses, &caller, &context)
                .await;
        }
        // Responses sent with a fresh call answer the questions they name, when asked.
        let offered = request.input_responses.clone().unwrap_or_default();
        let mut input = Value::Object(request.arguments.unwrap_or_default());
        normalize_numbers(&mut input);
        // Argument errors are tool errors (isError), so a model can correct itself (SEP-1303).
        let decoded = match skill.descriptor.decode_input(&input) {
            Ok(decoded) => decoded,
            Err(error) => {
                return Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                    ContentBlock::text(format!("invalid arguments: {error}")),
                ])));
            }
        };
        // No client message: the call's is synthesized from its arguments if a skill reads it.
        let mut call = Call::new(
            skill,
            decoded,
            input,
            None,
            caller.caller().clone(),
            caller.trace().cloned(),
        )
        .map_err(forbidden)?;
        // Protocol 2026-07-28 has no server-to-client requests: questions go back as
        // input-required results, and the call waits detached between rounds. (Read once: in a
        // session each read copies the version the client initialized with.)
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        call.log_sink = self.log_sink(&context, stateless);
        // Every call counts against its caller's quota while it runs, as an A2A task does.
        let quota = self.app.quotas.start_task(&caller).map_err(busy)?;
        let abilities = Abilities::of(capabilities.as_ref());
        if tasks && task_support != TaskSupport::Forbidden {
            let progress = ProgressForwarder::new(context.meta.get_progress_token(), &context.peer);
            let after = self.app.limits.mcp_task_after;
            let mode = match task_support {
                // A task from the start, its first question asked as an input-required result
                // when the client can answer one, the task announced once it is answered.
                TaskSupport::Required if stateless && abilities.any() => TaskMode::AskFirst(after),
                // A tool that requires tasks always gives one.
                TaskSupport::Required => TaskMode::Always,
                // Others answer at once when quick.
                _ => TaskMode::Shortcut(after),
            };
            return self
                .call_as_task(call, (progress, mode), quota, &caller, &context)
                .await;
        }
        let limits = self.app.manager.input_limits().clone();
        let grace = self.app.manager.cancel_grace();
        if stateless && abilities.any() {
            let call = self.parked.start(
                &self.app.dispatcher,
                call,
                (limits, grace),
                quota,
                (Vec::new(), offered),
                abilities,
            );
            return self.drive(call, &context).await;
        }
        let asker: Arc<dyn Asker> =
            Arc::new(ElicitAsker::new(context.peer.clone(), limits, abilities));
        let progress = ProgressForwarder::new(context.meta.get_progress_token(), &context.peer);
        let published = Arc::new(ArtifactCollector::default());
        let mut sinks: Vec<Arc<dyn UpdateSink>> = vec![Arc::clone(&published) as _];
        sinks.extend(progress.clone().map(|p| p as Arc<dyn UpdateSink>));
        let call_id = new_id();
        // `context.ct` fires on `notifications/cancelled` and when the client closes the
        // response stream.
        let task = call
            .context(call_id.clone(), call_id, context.ct.clone())
            .sinks(sinks)
            .asker(Some(asker))
            .build();
        let result = dispatcher
            .run(call, task, grace)
            .await
            .unwrap_or_else(|| Err(SkillError::new("the call was canceled")));
        drop(quota);
        if let Some(refusal) = result
            .as_ref()
            .err()
            .filter(|_| stateless)
            .and_then(missing_capability)
        {
            return Err(refusal);
        }
        if let Some(progress) = progress {
            progress.finish().await;
        }
        Ok(CallToolResponse::Complete(call_result(
            skill,
            &published.take(),
            result,
        )))
    }

    /// Drives a detached call until it finishes or asks; a question parks the call and answers
    /// the request with an input-required result. A call that failed for want of a capability
    /// the client did not declare is refused (-32021).
    async fn drive(
        &self,
        mut call: DetachedCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let progress = ProgressForwarder::new(context.meta.get_progress_token(), &context.peer);
        let relay = Arc::clone(&call.progress);
        relay.set(progress.clone());
        let ttl = self.app.manager.input_limits().timeout();
        let response = loop {
            // A closed response stream or `notifications/cancelled` cancels the call.
            let event = tokio::select! {
                event = call.events.recv() => Some(event),
                () = context.ct.cancelled() => None,
            };
            let event = match event {
                Some(event) => event,
                None => {
                    call.cancel.cancel();
                    call.events.recv().await
                }
            };
            match event {
                Some(CallEvent::Asked(round)) => {
                    match self.parked.park(round, call, ttl) {
                        Ok(result) => break Ok(CallToolResponse::InputRequired(result)),
                        // It expired at once; the call finishes with that error.
                        Err(unparked) => call = unparked,
                    }
                }
                Some(CallEvent::Finished(result)) => {
                    if let Some(refusal) = result.as_ref().err().and_then(missing_capability) {
                        break Err(refusal);
                    }
                    let skill = self.app.dispatcher.registry().get(call.skill);
                    break Ok(match skill {
                        Some(skill) => CallToolResponse::Complete(call_result(
                            skill,
                            &call.published.take(),
                            result,
                        )),
                        None => tool_error("the tool is no longer registered"),
                    });
                }
                None => break Ok(tool_error("the call ended without a result")),
            }
        };
        relay.set(None);
        if let Some(progress) = progress {
            progress.finish().await;
        }
        response
    }

    /// A retry of a call that asked (MRTR): the answer resumes the waiting skill.
    async fn resume(
        &self,
        tool: &'static str,
        state: &str,
        responses: Option<rmcp::model::InputResponses>,
        caller: &CallerId,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let ttl = self.app.manager.input_limits().timeout();
        match self
            .parked
            .resume((tool, caller.owner()), state, responses, ttl)
        {
            Ok(Resumed::Answered(call)) => self.drive(call, context).await,
            Ok(Resumed::Unanswered(result)) => Ok(CallToolResponse::InputRequired(result)),
            Ok(Resumed::Rerun { arguments, answers }) => {
                self.rerun(tool, arguments, answers, caller, context).await
            }
            Err(error) => Err(state_error(&error)),
        }
    }

    /// Makes again a call another process parked (a retry that reached another replica, or
    /// this server after a restart), handing its questions the answers the state carries.
    async fn rerun(
        &self,
        tool: &'static str,
        arguments: Value,
        answers: Vec<Answer>,
        caller: &CallerId,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(skill) = self.app.dispatcher.registry().get(tool) else {
            return Ok(tool_error("the tool is no longer registered"));
        };
        let decoded = match skill.descriptor.decode_input(&arguments) {
            Ok(decoded) => decoded,
            Err(error) => {
                return Ok(tool_error(&format!(
                    "the call cannot be made again: its arguments no longer fit the tool ({error}); call it again without requestState"
                )));
            }
        };
        let call = Call::new(
            skill,
            decoded,
            arguments,
            None,
            caller.caller().clone(),
            caller.trace().cloned(),
        )
        .map_err(forbidden)?;
        let quota = self.app.quotas.start_task(caller).map_err(busy)?;
        let limits = self.app.manager.input_limits().clone();
        let grace = self.app.manager.cancel_grace();
        let abilities = Abilities::of(context.client_capabilities().as_ref());
        let call = self.parked.start(
            &self.app.dispatcher,
            call,
            (limits, grace),
            quota,
            (answers, InputResponses::new()),
            abilities,
        );
        self.drive(call, context).await
    }

    /// A call from a client that supports the tasks extension runs as a task of the shared task
    /// manager, so A2A `GetTask` sees it too. If it ends within `shortcut` the result is
    /// returned directly; otherwise the client gets a task handle to poll.
    async fn call_as_task(
        &self,
        call: Call,
        (progress, mode): (Option<Arc<ProgressForwarder>>, TaskMode),
        quota: TaskSlot,
        caller: &CallerId,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Progress notifications follow the task's events, as its other observers do.
        let observers = progress
            .clone()
            .map(|p| vec![p as Arc<dyn TaskObserver>])
            .unwrap_or_default();
        let started = self
            .app
            .manager
            .start(call, observers, quota)
            .await
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
        if task.status.state.is_terminal() {
            if let Some(progress) = progress {
                progress.finish().await;
            }
            return Ok(CallToolResponse::Complete(task_result(
                &task,
                self.app.dispatcher.registry(),
            )));
        }
        let question = self.waiting_here(&task, caller);
        Ok(CallToolResponse::Task(CreateTaskResult::new(
            self.mcp_task(&task, question.as_ref()).task,
        )))
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
                    .seal_handoff(&task.id, (tool, caller.owner()), ttl)
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
    async fn continue_handoff(
        &self,
        task_id: &str,
        (state, responses): (&str, Option<InputResponses>),
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

    /// Where a call's log messages go: the session's level in the 2025 era; in 2026-07-28 the
    /// request's `_meta` level, and nowhere without one.
    fn log_sink(
        &self,
        context: &RequestContext<RoleServer>,
        modern: bool,
    ) -> Option<Arc<dyn LogSink>> {
        let peer = &context.peer;
        if modern {
            let level = context.meta.log_level()?;
            Some(McpLogSink::request(level, peer.clone()))
        } else {
            Some(McpLogSink::session(
                Arc::clone(&self.log_level),
                peer.clone(),
            ))
        }
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
                    result: object(&task_result(task, self.app.dispatcher.registry())),
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
}

/// The caller of an MCP request: the HTTP request's peer, or the local caller over stdio.
fn caller_of(context: &RequestContext<RoleServer>) -> CallerId {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .map_or_else(CallerId::local, |parts| {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0);
            CallerId::of(parts, peer)
        })
}

fn tool_error(text: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}

fn object<T: serde::Serialize>(value: &T) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

/// rmcp moves each request's future, an enum as large as the largest of every method's, into
/// a task of its own: a method whose states are large (a call's plain, parked and task states;
/// a task lookup that may read the store) is boxed, so every request moves a few hundred bytes
/// rather than kilobytes.
impl ServerHandler for McpHandler {
    fn get_info(&self) -> InitializeResult {
        let agent = self.app.agent;
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .build();
        // Task artifacts are resources, so every agent serves resources.
        let mut resources = ResourcesCapability::default();
        resources.subscribe = Some(true);
        resources.list_changed = Some(false);
        capabilities.resources = Some(resources);
        if self.app.catalog.has_prompts() {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(false);
            capabilities.prompts = Some(prompts);
        }
        capabilities.completions = Some(JsonObject::new());
        // Deprecated by SEP-2577 for the 2026-07-28 era, where the request's `_meta` level
        // replaces it; 2025-era clients call `logging/setLevel` only when it is declared.
        #[allow(deprecated)]
        {
            capabilities.logging = Some(JsonObject::new());
        }
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new(agent.name(), agent.version())
                    .with_description(agent.description()),
            )
            .with_instructions(agent.description())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Tools the caller lacks scopes for are not listed.
        let caller = caller_of(&context);
        let registry = self.app.dispatcher.registry();
        let mut scoped = false;
        let tools: Vec<Tool> = self
            .tools
            .iter()
            .filter(|tool| {
                let Some(skill) = registry.get(&tool.name) else {
                    return true;
                };
                scoped |= !skill.descriptor.scopes().is_empty();
                Dispatcher::authorize(skill, caller.caller()).is_ok()
            })
            .cloned()
            .collect();
        // The list never changes while the server runs; it is the same for every caller
        // unless tools need scopes.
        let scope = if scoped {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        Ok(ListToolsResult::with_all_items(tools)
            .with_ttl_ms(3_600_000)
            .with_cache_scope(scope))
    }

    /// rmcp reads a request of a standard method whose params do not fit it as a custom one: it
    /// is -32602 naming the field, as the gate would have said, rather than an unknown method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        let params = request
            .params
            .as_ref()
            .map_or_else(|| "null".to_owned(), Value::to_string);
        // Methods protocol 2026-07-28 removed are unknown there, whatever their params.
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let misshapen = if stateless && super::request_check::removed_in_2026(&request.method) {
            None
        } else {
            super::request_check::misshapen(&request.method, &params)
        };
        match misshapen {
            Some(message) => Err(McpError::invalid_params(message, None)),
            None => Err(McpError::new(
                ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            )),
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Box::pin(self.call(request, context)).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(content::resources(
            &self.app,
        )))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            content::templates(&self.app),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(async move {
            let caller = caller_of(&context);
            let contents = content::read(&self.app, &request.uri, &caller).await?;
            Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                contents,
            )))
        })
        .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(super::subscriptions::accepted_filter(requested))
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        // An open stream counts against its caller's stream quota, as an A2A subscription does.
        Box::pin(async move {
            let caller = caller_of(subscription.request_context());
            let _slot = self.app.quotas.open_stream(&caller).map_err(busy)?;
            super::subscriptions::listen(&self.app.resource_updates, subscription).await;
            Ok(())
        })
        .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let uri = request.uri;
        let subscribed = self.subscriptions.subscribe(
            uri.clone(),
            &self.app.resource_updates,
            context.peer.clone(),
        );
        if subscribed {
            Ok(())
        } else {
            Err(McpError::invalid_params(
                format!(
                    "this session already follows {} resources, the most it may; unsubscribe \
                     from one first",
                    super::subscriptions::MAX_SUBSCRIPTIONS
                ),
                Some(json!({ "uri": uri })),
            ))
        }
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        if !self.app.catalog.has_prompts() {
            return Err(McpError::method_not_found::<ListPromptsRequestMethod>());
        }
        Ok(ListPromptsResult::with_all_items(content::prompts(
            &self.app,
        )))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Box::pin(async move {
            if !self.app.catalog.has_prompts() {
                return Err(McpError::method_not_found::<GetPromptRequestMethod>());
            }
            let caller = caller_of(&context);
            let name = format!("prompts/get:{}", request.name);
            let ttl = self.app.manager.input_limits().timeout();
            // A retry does the prompt again with the answers its state carries.
            let (arguments, replay, offered) = match &request.request_state {
                Some(state) => {
                    let responses = request.input_responses.clone();
                    match self
                        .parked
                        .resume((&name, caller.owner()), state, responses, ttl)
                    {
                        Ok(Resumed::Rerun { arguments, answers }) => {
                            (arguments, answers, InputResponses::new())
                        }
                        Ok(Resumed::Unanswered(result)) => {
                            return Ok(GetPromptResponse::InputRequired(result));
                        }
                        // Prompts are never parked.
                        Ok(Resumed::Answered(call)) => {
                            call.cancel.cancel();
                            return Err(state_error(&ResumeError::Gone));
                        }
                        Err(error) => return Err(state_error(&error)),
                    }
                }
                None => (
                    Value::Object(request.arguments.clone().unwrap_or_default()),
                    Vec::new(),
                    request.input_responses.clone().unwrap_or_default(),
                ),
            };
            let stateless = context
                .protocol_version()
                .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
            let abilities = Abilities::of(context.client_capabilities().as_ref());
            let get = |asker| {
                content::get_prompt(
                    &self.app,
                    (&request.name, &arguments, stateless),
                    &caller,
                    (asker, context.ct.clone()),
                )
            };
            if !stateless {
                let asker: Arc<dyn Asker> = Arc::new(ElicitAsker::new(
                    context.peer.clone(),
                    self.app.manager.input_limits().clone(),
                    abilities,
                ));
                return Ok(GetPromptResponse::Complete(get(Some(asker)).await?));
            }
            if !abilities.any() {
                return Ok(GetPromptResponse::Complete(get(None).await?));
            }
            let (asker, asked) =
                ParkedCalls::rerun_asker(arguments.clone(), (replay, offered), abilities);
            tokio::select! {
                result = get(Some(asker)) => Ok(GetPromptResponse::Complete(result?)),
                round = asked.slot.asked() => Ok(GetPromptResponse::InputRequired(
                    self.parked.rerun_input_required(&asked, round, (&name, caller.owner()), ttl),
                )),
            }
        })
        .await
    }

    #[allow(deprecated)] // See `logging.rs`.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        Box::pin(async move { content::complete(&self.app, &request, &caller_of(&context)).await })
            .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(async move {
            let (task, question) = self.find_task(&request.task_id, &context).await?;
            Ok(GetTaskResult::new(self.mcp_task(&task, question.as_ref())))
        })
        .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            let (task, question) = self.find_task(&request.task_id, &context).await?;
            self.answer_question(&task, question, &request.input_responses, &context)
                .await
        })
        .await
    }

    /// Cooperative, as the extension specifies: a task that already ended is acknowledged and
    /// keeps its final status.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            let caller = caller_of(&context);
            match self
                .app
                .manager
                .cancel(&request.task_id, caller.owner())
                .await
            {
                Ok(_) | Err(TaskError::NotCancelable { .. }) => Ok(()),
                Err(error) => Err(task_error(error)),
            }
        })
        .await
    }
}

/// A `requestState` that cannot resume anything: -32602 naming the field.
fn state_error(error: &ResumeError) -> McpError {
    McpError::invalid_params(error.to_string(), Some(json!({ "field": "requestState" })))
}
