//! The MCP service: the one place a tool call, a parked call's retry or a call made again
//! becomes a `Call` and runs, as `A2aService` does for A2A. The rmcp glue (`agent.rs`) hands
//! each request here; the tasks extension's calls are in `task_calls.rs`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputResponses,
    JsonObject, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::asking::{Abilities, ElicitAsker};
use super::error::{busy, forbidden, missing_capability, tasks_required};
use super::logging::{McpLogSink, SessionLevel};
use super::parked::{
    CallEvent, Detached, DetachedCall, ParkedCalls, Prior, Rerun, ResumeError, Resumed,
};
use super::results::call_result;
use super::task_calls::TaskMode;
use super::updates::{ArtifactCollector, ProgressForwarder};
use a2a_runtime_core::app::App;
use a2a_runtime_core::ask::Asker;
use a2a_runtime_core::call::normalize_numbers;
use a2a_runtime_core::context::UpdateSink;
use a2a_runtime_core::descriptor::TaskSupport;
use a2a_runtime_core::dispatch::{Attachments, Call, Dispatcher, Placement, SkillRef};
use a2a_runtime_core::logging::LogSink;
use a2a_runtime_core::observe::{CallKind, CallOutcome, CallRecord, Metered};
use a2a_runtime_core::quota::{Busy, CallerId, TaskSlot};
use a2a_runtime_core::registry::SkillEntry;
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::{Binding, ByteSize, Protocol};

/// One agent's calls as MCP makes them: shared by every session.
pub struct McpService {
    pub app: Arc<App>,
    /// Calls waiting between input-required rounds (protocol 2026-07-28).
    pub parked: Arc<ParkedCalls>,
}

impl McpService {
    pub fn new(app: Arc<App>) -> Self {
        Self {
            parked: Arc::new(ParkedCalls::new(app.state_key.as_deref())),
            app,
        }
    }

    /// A `tools/call`. A retry carrying a `requestState` continues what it names (a parked
    /// call, or a task handed over on its answer); a fresh call is assembled into a `Call`
    /// and runs as a task (for a client of the tasks extension), parked between
    /// input-required rounds (2026-07-28), or plainly, its questions asked on the open call.
    pub async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        level: &Arc<SessionLevel>,
    ) -> Result<CallToolResponse, McpError> {
        let skill = self.tool(&request.name)?;
        let tool = skill.id();
        let caller = caller_of(context);
        let binding = binding_of(context);
        let meter = self.app.dispatcher.meter();
        // Over HTTP the MCP gate refuses with 403 before this; over stdio this is the check, and
        // it comes first, so a retry is checked as well and nothing is decoded for a caller
        // who may not call the tool. (`Call::new` asks it again for the calls it makes.)
        self.authorize(&skill, &caller, binding)?;
        // Read from the request's `_meta` (or the session) once: each read parses it anew.
        let capabilities = context.client_capabilities();
        let tasks = capabilities
            .as_ref()
            .is_some_and(|caps| caps.supports_tasks());
        let task_support = skill.task_support();
        let as_task = runs_as_task(task_support, tool, tasks, &context.meta)?;
        // The rarer paths are boxed: their futures would make every call's future (which rmcp
        // moves into a box of its own) as large as theirs.
        if let Some(state) = &request.request_state {
            let retry = self.retry(tool, state, request.input_responses, &caller, context);
            return Box::pin(retry).await;
        }
        // Responses sent with a fresh call answer the questions they name, when asked.
        let offered = request.input_responses.clone().unwrap_or_default();
        let mut input = Value::Object(request.arguments.unwrap_or_default());
        normalize_numbers(&mut input);
        let metered = meter.start(|| record(tool, &caller, binding, input.byte_size()));
        // Argument errors are tool errors (isError), so a model can correct itself (SEP-1303).
        let mut metered = metered;
        let mut call = match self.assemble(&skill, input, &caller, binding)? {
            Ok(call) => {
                metered.set_trace(call.trace.as_ref());
                call
            }
            Err(error) => {
                let error = format!("invalid arguments: {error}");
                let result = tool_error(&error);
                metered.fail(CallOutcome::InvalidInput, 0, error);
                return Ok(result);
            }
        };
        // Protocol 2026-07-28 has no server-to-client requests: questions go back as
        // input-required results, and the call waits detached between rounds. (Read once: in a
        // session each read copies the version the client initialized with.)
        let stateless = is_stateless(context);
        call.log_sink = log_sink(context, stateless, level);
        // Every call counts against its caller's quota while it runs, as an A2A task does.
        let quota = match self.app.quotas.start_task(&caller) {
            Ok(quota) => quota,
            Err(refused) => return Err(refused_busy(metered, refused)),
        };
        let abilities = Abilities::of(capabilities.as_ref());
        if as_task {
            // The task reports the call, turn by turn.
            metered.discard();
            let progress = ProgressForwarder::of(context);
            let mode = TaskMode::of(task_support, stateless && abilities.any(), &self.app);
            let task = self.call_as_task(call, progress, mode, quota, &caller, context);
            return Box::pin(task).await;
        }
        if stateless && abilities.any() {
            let progress = ProgressForwarder::of(context);
            let prior = Prior {
                replay: Vec::new(),
                offered,
            };
            let call = self.start_parked(call, quota, prior, abilities, progress.clone());
            return Box::pin(self.drive(call, progress, metered, context)).await;
        }
        let plain = Plain::new(abilities, stateless, context, metered);
        self.run_plain(&skill, call, quota, plain).await
    }

    /// Refuses (and reports) a call of `skill` its caller lacks the scopes for.
    fn authorize(
        &self,
        skill: &SkillEntry,
        caller: &CallerId,
        binding: Binding,
    ) -> Result<(), McpError> {
        let Err(missing) = Dispatcher::authorize(skill, caller.caller()) else {
            return Ok(());
        };
        let record = || record(skill.id(), caller, binding, 0);
        let meter = self.app.dispatcher.meter();
        meter.refused(record, CallOutcome::Forbidden, || missing.to_string());
        Err(forbidden(missing))
    }

    /// The skill a tool call names, or the error listing this server's tools.
    fn tool(&self, name: &str) -> Result<SkillRef<'_>, McpError> {
        self.app.dispatcher.skill(name).ok_or_else(|| {
            let registry = self.app.dispatcher.registry();
            McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; this server's tools are: {}",
                    registry.id_list()
                ),
                Some(json!({ "tool": name })),
            )
        })
    }

    /// The `Call` of `skill` with `arguments` for `caller`: its input decoded by the skill's
    /// descriptor (`Ok(Err(why))` when the arguments do not fit, for the caller to correct)
    /// and its scopes checked. No client message: one is synthesized from the arguments if a
    /// skill reads it.
    fn assemble(
        &self,
        skill: &SkillEntry,
        arguments: Value,
        caller: &CallerId,
        binding: Binding,
    ) -> Result<Result<Call, String>, McpError> {
        let decoded = match skill.decode_input(&arguments) {
            Ok(decoded) => decoded,
            Err(error) => return Ok(Err(error.to_string())),
        };
        let call = Call::new(
            skill,
            decoded,
            arguments,
            None,
            caller.caller().clone(),
            caller.trace().cloned(),
        )
        .map_err(forbidden)?
        .via(binding);
        Ok(Ok(call))
    }

    /// Starts `call` detached, parked at each question until a retry answers it; `prior`
    /// answers come first; its progress goes to `progress` from the start.
    fn start_parked(
        &self,
        call: Call,
        quota: TaskSlot,
        prior: Prior,
        abilities: Abilities,
        progress: Option<Arc<ProgressForwarder>>,
    ) -> DetachedCall {
        let detached = Detached {
            limits: self.app.manager.input_limits().clone(),
            grace: self.app.manager.cancel_grace(),
            abilities,
            progress,
        };
        let dispatcher = &self.app.dispatcher;
        self.parked.start(dispatcher, call, quota, prior, detached)
    }

    /// Runs `call` on the open request: questions go to the client as elicitations (and
    /// sampling, roots) on it, progress as notifications, artifacts into the result.
    async fn run_plain(
        &self,
        skill: &SkillEntry,
        call: Call,
        quota: TaskSlot,
        plain: Plain<'_>,
    ) -> Result<CallToolResponse, McpError> {
        let Plain {
            abilities,
            stateless,
            context,
            metered,
        } = plain;
        let limits = self.app.manager.input_limits().clone();
        let asker: Arc<dyn Asker> = Arc::new(ElicitAsker::new(
            context.peer.clone(),
            context.id.clone(),
            limits,
            abilities,
        ));
        let progress = ProgressForwarder::of(context);
        let published = Arc::new(ArtifactCollector::default());
        let mut sinks: Vec<Arc<dyn UpdateSink>> = vec![Arc::clone(&published) as _];
        sinks.extend(progress.clone().map(|p| p as Arc<dyn UpdateSink>));
        let attachments = Attachments {
            sinks,
            asker: Some(asker),
            charge: Some(quota.charge()),
            ..Attachments::default()
        };
        // `context.ct` fires on `notifications/cancelled` and when the client closes the
        // response stream.
        let at = Placement::untracked(context.ct.clone());
        let grace = self.app.manager.cancel_grace();
        let result = self
            .app
            .dispatcher
            .execute(call, at, attachments, grace)
            .await;
        drop(quota);
        let published = published.take();
        let result = match result {
            Some(result) => {
                metered.result(&result, published.iter().map(ByteSize::byte_size).sum());
                result
            }
            None => {
                metered.finish(CallOutcome::Canceled, 0);
                Err(SkillError::new("the call was canceled"))
            }
        };
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
            skill, &published, result,
        )))
    }

    /// A retry of `tool` carrying `state`: the task it hands over, or the parked call it
    /// resumes.
    async fn retry(
        &self,
        tool: &'static str,
        state: &str,
        responses: Option<InputResponses>,
        caller: &CallerId,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(task_id) = self.parked.open_handoff(state, tool, caller.owner()) {
            return self
                .continue_handoff(&task_id, state, responses, context)
                .await;
        }
        self.resume(tool, state, responses, caller, context).await
    }

    /// Drives a detached call until it finishes or asks; a question parks the call and answers
    /// the request with an input-required result. A call that failed for want of a capability
    /// the client did not declare is refused (-32021). `progress`, the request's forwarder, is
    /// where the call's reports already go.
    async fn drive(
        &self,
        mut call: DetachedCall,
        progress: Option<Arc<ProgressForwarder>>,
        metered: Metered,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let relay = Arc::clone(&call.progress);
        let ttl = self.app.manager.input_limits().timeout();
        let mut metered = Some(metered);
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
                        Ok(result) => {
                            if let Some(metered) = metered.take() {
                                metered.finish(CallOutcome::InputRequired, 0);
                            }
                            break Ok(CallToolResponse::InputRequired(result));
                        }
                        // It expired at once; the call finishes with that error.
                        Err(unparked) => call = unparked,
                    }
                }
                Some(CallEvent::Finished(result)) => {
                    let published = call.published.take();
                    if let Some(metered) = metered.take() {
                        metered.result(&result, published.iter().map(ByteSize::byte_size).sum());
                    }
                    if let Some(refusal) = result.as_ref().err().and_then(missing_capability) {
                        break Err(refusal);
                    }
                    let skill = self.app.dispatcher.skill(call.skill);
                    break Ok(match skill {
                        Some(skill) => {
                            CallToolResponse::Complete(call_result(&skill, &published, result))
                        }
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
        // A retry is the call's next turn, its answers its input.
        let metered = self.app.dispatcher.meter().start(|| {
            let input = responses
                .as_ref()
                .and_then(|responses| serde_json::to_vec(responses).ok())
                .map_or(0, |bytes| bytes.len());
            record(tool, caller, binding_of(context), input)
        });
        let progress = ProgressForwarder::of(context);
        let owner = caller.owner();
        let resumed = (self.parked).resume(tool, owner, state, responses, progress.clone(), ttl);
        match resumed {
            Ok(Resumed::Answered(call)) => self.drive(call, progress, metered, context).await,
            Ok(Resumed::Unanswered(result)) => {
                metered.finish(CallOutcome::InputRequired, 0);
                Ok(CallToolResponse::InputRequired(result))
            }
            Ok(Resumed::Rerun(rerun)) => {
                (self.rerun(tool, rerun, caller, progress, metered, context)).await
            }
            Err(error) => {
                metered.discard();
                Err(state_error(&error))
            }
        }
    }

    /// Makes again a call another process parked (a retry that reached another replica, or
    /// this server after a restart), handing its questions the answers the state carries.
    async fn rerun(
        &self,
        tool: &'static str,
        rerun: Rerun,
        caller: &CallerId,
        progress: Option<Arc<ProgressForwarder>>,
        metered: Metered,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Rerun { arguments, answers } = rerun;
        let Some(skill) = self.app.dispatcher.skill(tool) else {
            metered.discard();
            return Ok(tool_error("the tool is no longer registered"));
        };
        let mut metered = metered;
        let call = match self.assemble(&skill, arguments, caller, binding_of(context))? {
            Ok(call) => {
                metered.set_trace(call.trace.as_ref());
                call
            }
            Err(error) => {
                let error = format!(
                    "the call cannot be made again: its arguments no longer fit the tool ({error}); call it again without requestState"
                );
                let result = tool_error(&error);
                metered.fail(CallOutcome::InvalidInput, 0, error);
                return Ok(result);
            }
        };
        let quota = match self.app.quotas.start_task(caller) {
            Ok(quota) => quota,
            Err(refused) => return Err(refused_busy(metered, refused)),
        };
        let abilities = Abilities::of(context.client_capabilities().as_ref());
        let prior = Prior {
            replay: answers,
            offered: InputResponses::new(),
        };
        let call = self.start_parked(call, quota, prior, abilities, progress.clone());
        self.drive(call, progress, metered, context).await
    }
}

/// A call run on its open request: what the client can answer, whether it is of protocol
/// 2026-07-28 (read once: in a session each read copies the version), the request, and the
/// call's metering.
struct Plain<'a> {
    abilities: Abilities,
    stateless: bool,
    context: &'a RequestContext<RoleServer>,
    metered: Metered,
}

impl<'a> Plain<'a> {
    fn new(
        abilities: Abilities,
        stateless: bool,
        context: &'a RequestContext<RoleServer>,
        metered: Metered,
    ) -> Self {
        Self {
            abilities,
            stateless,
            context,
            metered,
        }
    }
}

/// A call refused as busy (its caller holds all the running calls it may), reported.
fn refused_busy(metered: Metered, refused: Busy) -> McpError {
    metered.fail(CallOutcome::Busy(refused.kind), 0, refused.reason.clone());
    busy(refused)
}

/// The record of a call of `tool` by `caller` over MCP, given `input` bytes.
fn record(tool: &'static str, caller: &CallerId, binding: Binding, input: usize) -> CallRecord {
    CallRecord::begin(
        CallKind::Skill,
        tool,
        Protocol::Mcp,
        binding,
        caller.caller().clone(),
    )
    .within(caller.trace())
    .input(input)
}

/// The transport a request came over: streamable HTTP when it carries the HTTP request's
/// parts, stdio otherwise.
pub fn binding_of(context: &RequestContext<RoleServer>) -> Binding {
    if context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_some()
    {
        Binding::StreamableHttp
    } else {
        Binding::Stdio
    }
}

/// Whether the request is of protocol 2026-07-28 or later (no server-to-client requests).
pub fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// Where a call's log messages go: the session's level in the 2025 era; in 2026-07-28 the
/// request's `_meta` level, and nowhere without one.
fn log_sink(
    context: &RequestContext<RoleServer>,
    modern: bool,
    level: &Arc<SessionLevel>,
) -> Option<Arc<dyn LogSink>> {
    let peer = &context.peer;
    // A call answered where it arrived writes into its own response.
    let outbox = context
        .extensions
        .get::<crate::call_stream::CallOutbox>()
        .cloned();
    if modern {
        let level = context.meta.log_level()?;
        Some(McpLogSink::request(level, peer.clone(), outbox))
    } else {
        Some(McpLogSink::session(Arc::clone(level), peer.clone(), outbox))
    }
}

/// The caller of an MCP request: the HTTP request's peer, or the local caller over stdio. Its
/// trace is the one the request carries in `params._meta` (`traceparent`, `tracestate`) when it
/// carries one, as MCP's conventions ask: the HTTP request's span stays a link.
pub fn caller_of(context: &RequestContext<RoleServer>) -> CallerId {
    let caller = context
        .extensions
        .get::<axum::http::request::Parts>()
        .map_or_else(CallerId::local, |parts| {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0);
            CallerId::of(parts, peer)
        });
    let meta = &context.meta;
    let own = meta
        .get_traceparent()
        .and_then(|traceparent| TraceContext::parse(traceparent, meta.get_tracestate()));
    let Some(own) = own else {
        return caller;
    };
    let trace = match caller.trace() {
        Some(request) => request.under(&own),
        None => own,
    };
    caller.traced(trace)
}

pub fn tool_error(text: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}

pub fn object<T: serde::Serialize>(value: &T) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

/// A `requestState` that cannot resume anything: -32602 naming the field.
pub fn state_error(error: &ResumeError) -> McpError {
    McpError::invalid_params(error.to_string(), Some(json!({ "field": "requestState" })))
}

/// Whether a call of `tool` runs as a task: when the client takes tasks (`tasks`) and the tool
/// allows them; a tool that requires them refuses a client that does not. A key is honoured
/// where a task keeps it: a plain call naming one in `meta` is refused, never run as if the
/// key guarded it.
fn runs_as_task(
    task_support: TaskSupport,
    tool: &str,
    tasks: bool,
    meta: &rmcp::model::RequestMetaObject,
) -> Result<bool, McpError> {
    if task_support == TaskSupport::Required && !tasks {
        return Err(tasks_required(tool));
    }
    let as_task = tasks && task_support != TaskSupport::Forbidden;
    if !as_task && meta.get(super::keyed::META_KEY).is_some() {
        return Err(super::keyed::unkept(tool));
    }
    Ok(as_task)
}
