//! One agent behind an MCP endpoint: its tools, resources, prompts and tasks, each capability
//! handed to what serves it (tools and tasks to `McpService`, resources, prompts and completion
//! to `content.rs` and `prompts.rs`, logging to the session's level). The endpoint's
//! [`McpHandler`](super::McpHandler) routes each request to the agent it names.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    Implementation, InitializeResult, JsonObject, ListToolsResult, PromptsCapability,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourcesCapability,
    ServerCapabilities, SubscribeRequestParams, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

use super::content;
use super::logging::SessionLevel;
use super::metering::{content_call, content_ended, timed};
use super::service::{McpService, caller_of};
use super::subscriptions::Subscriptions;
use super::tools::Tools;
use a2a_runtime_core::app::App;
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::observe::{CallKind, Meter};

/// One agent as an MCP endpoint serves it. One per session ([`for_session`](Self::for_session));
/// the service is shared, the session's subscriptions and log level are its own.
#[derive(Clone)]
pub struct AgentMcp {
    service: Arc<McpService>,
    /// The agent's skills as MCP tools.
    tools: Arc<Tools>,
    /// The server's capabilities and description, built once.
    info: Arc<InitializeResult>,
    /// The resources this session follows.
    subscriptions: Arc<Subscriptions>,
    /// The least severe log messages this session wants (`logging/setLevel`).
    log_level: Arc<SessionLevel>,
}

impl AgentMcp {
    pub fn new(app: Arc<App>) -> Self {
        Self {
            tools: Arc::new(Tools::of(&app)),
            info: Arc::new(server_info(&app)),
            service: Arc::new(McpService::new(app)),
            subscriptions: Arc::default(),
            log_level: Arc::default(),
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

    /// The agent.
    pub fn app(&self) -> &App {
        &self.service.app
    }

    /// Its tool `name` (as the agent names it).
    pub(crate) fn tool(&self, name: &str) -> Option<Tool> {
        let tools = self.tools.current(self.app());
        tools.iter().find(|tool| tool.name == name).cloned()
    }

    /// What `initialize` says of the agent when it is the endpoint's only one.
    pub(crate) fn info(&self) -> &InitializeResult {
        &self.info
    }

    /// Where this agent's requests are reported.
    pub(crate) fn meter(&self) -> &Meter {
        self.app().dispatcher.meter()
    }

    /// Whether its tools may change while the server runs (an agent defined at run time).
    pub(crate) fn tools_change(&self) -> bool {
        self.tools.changing()
    }

    /// The tools `context`'s caller is shown.
    pub fn tool_list(&self, context: &RequestContext<RoleServer>) -> ListToolsResult {
        // Tools the caller lacks scopes for are not listed, except to a caller without
        // credentials (let in by public tools), who is shown every tool with what calling it
        // takes, so a host signs its user in for the others.
        let caller = caller_of(context);
        let signed_out = self.app().security.is_enabled() && caller.caller().is_anonymous();
        let registry = self.app().dispatcher.registry();
        let mut scoped = signed_out;
        let tools: Vec<Tool> = self
            .tools
            .current(self.app())
            .iter()
            .filter(|tool| {
                let Some(skill) = registry.get(&tool.name) else {
                    return true;
                };
                scoped |= !skill.scopes().is_empty();
                signed_out || Dispatcher::authorize(skill, caller.caller()).is_ok()
            })
            .cloned()
            .collect();
        super::tools::listed(tools, scoped, self.tools.changing())
    }

    /// Whether task `id` is this agent's and the request's caller's.
    pub async fn owns_task(&self, id: &str, context: &RequestContext<RoleServer>) -> bool {
        let caller = caller_of(context);
        self.app()
            .manager
            .get(id, caller.owner(), Some(0))
            .await
            .is_ok()
    }
}

/// What one agent serves, each request already routed to it (by name, URI or task): the
/// [`McpHandler`](super::McpHandler) of an endpoint calls these. rmcp moves each request's
/// future, an enum as large as the largest of every method's, into a task of its own: a method
/// whose states are large (a call's plain, parked and task states; a task lookup that may read
/// the store) is boxed, so every request moves a few hundred bytes rather than kilobytes.
impl AgentMcp {
    pub(crate) async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Box::pin(async move {
            // Labels name only this agent's tools, never a name a client made up.
            let registry = self.app().dispatcher.registry();
            let target = (self.meter().is_on())
                .then(|| registry.get(&request.name))
                .flatten()
                .map(|skill| skill.id().to_owned());
            let call = self.service.call_tool(request, &context, &self.log_level);
            timed(self.meter(), "tools/call", target, &context, call).await
        })
        .await
    }

    pub(crate) async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(async move {
            let read = async {
                let meter = self.meter();
                let metered = content_call(meter, CallKind::Resource, &request.uri, &context);
                let caller = caller_of(&context);
                let cancel = context.ct.clone();
                let read = content::read(self.app(), &request.uri, &caller, cancel)
                    .await
                    .map(|contents| {
                        ReadResourceResponse::Complete(ReadResourceResult::new(contents))
                    });
                content_ended(metered, &read);
                read
            };
            timed(self.meter(), "resources/read", None, &context, read).await
        })
        .await
    }

    /// Follows `request`'s resource for this session (the 2025-era subscription).
    pub(crate) fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let uri = request.uri;
        let subscribed = self.subscriptions.subscribe(
            uri.clone(),
            &self.app().resource_updates,
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

    /// Stops following `uri` for this session.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.subscriptions.unsubscribe(uri);
    }

    /// The least severe log messages this session wants.
    #[allow(deprecated)] // See `logging.rs`.
    pub(crate) fn set_level(&self, level: rmcp::model::LoggingLevel) {
        self.log_level.set(level);
    }

    pub(crate) async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Box::pin(async move {
            let meter = self.meter();
            let app = self.app();
            // Only a prompt there is names the meter's target (never what a client made up).
            let known = || {
                app.catalog.prompt(&request.name).is_some()
                    || app
                        .dispatcher
                        .registry()
                        .content()
                        .prompt(&request.name)
                        .is_some()
            };
            let target = (meter.is_on() && known()).then(|| request.name.clone());
            let get = async {
                let metered = content_call(meter, CallKind::Prompt, &request.name, &context);
                let got = self.service.get_prompt(request, &context).await;
                content_ended(metered, &got);
                got
            };
            timed(meter, "prompts/get", target, &context, get).await
        })
        .await
    }

    pub(crate) async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        Box::pin(async move {
            let caller = caller_of(&context);
            let complete = content::complete(self.app(), &request, &caller);
            let method = "completion/complete";
            timed(self.meter(), method, None, &context, complete).await
        })
        .await
    }

    pub(crate) async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(async move {
            let get = self.service.get_task(request, &context);
            timed(self.meter(), "tasks/get", None, &context, get).await
        })
        .await
    }

    pub(crate) async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            let update = self.service.update_task(request, &context);
            timed(self.meter(), "tasks/update", None, &context, update).await
        })
        .await
    }

    /// Cooperative, as the extension specifies: a task that already ended is acknowledged and
    /// keeps its final status.
    pub(crate) async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            let cancel = self.service.cancel_task(request, &context);
            timed(self.meter(), "tasks/cancel", None, &context, cancel).await
        })
        .await
    }
}

/// What `initialize` (and every stateless request's server info) says of this agent.
fn server_info(app: &App) -> InitializeResult {
    let agent = app.dispatcher.about();
    let mut capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_tasks()
        .build();
    // A remote's tools, resources and prompts come and go: its clients are told
    // (`list_changes.rs`).
    let changing = app.dispatcher.is_changing();
    if let Some(tools) = &mut capabilities.tools {
        tools.list_changed = Some(changing);
    }
    // Task artifacts are resources, so every agent serves resources.
    let mut resources = ResourcesCapability::default();
    resources.subscribe = Some(true);
    resources.list_changed = Some(changing);
    capabilities.resources = Some(resources);
    if app.catalog.has_prompts() || changing {
        let mut prompts = PromptsCapability::default();
        prompts.list_changed = Some(changing);
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
        .with_instructions(app.instructions())
}
