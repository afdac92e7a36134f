//! The rmcp glue: `McpHandler` is the agent as one session's MCP server, each capability
//! handed to what serves it (tools and tasks to `McpService`, resources, prompts and completion
//! to `content.rs` and `prompts.rs`, logging to the session's level).

use std::borrow::Cow;
use std::sync::Arc;

#[allow(deprecated)] // `logging/setLevel`: see `logging.rs`.
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, Implementation, InitializeResult, JsonObject,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, PromptsCapability, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourcesCapability,
    ServerCapabilities, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::content;
use super::error::busy;
use super::logging::SessionLevel;
use super::metering::{content_call, content_ended, timed};
use super::service::{McpService, caller_of, is_stateless};
use super::subscriptions::Subscriptions;
use super::tools::tool_list;
use a2a_runtime_core::app::App;
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::observe::{CallKind, Meter};

/// The MCP revisions this server implements.
const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// One agent, served as an MCP server. One per session ([`for_session`](Self::for_session));
/// the service is shared, the session's subscriptions and log level are its own.
#[derive(Clone)]
pub struct McpHandler {
    service: Arc<McpService>,
    /// The agent's skills as MCP tools, built once.
    tools: Arc<Vec<Tool>>,
    /// The server's capabilities and description, built once.
    info: Arc<InitializeResult>,
    /// The resources this session follows.
    subscriptions: Arc<Subscriptions>,
    /// The least severe log messages this session wants (`logging/setLevel`).
    log_level: Arc<SessionLevel>,
}

impl McpHandler {
    pub fn new(app: Arc<App>) -> Self {
        Self {
            tools: Arc::new(tool_list(app.dispatcher.registry(), &app.security)),
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

    /// The agent this handler serves.
    pub fn app(&self) -> &App {
        &self.service.app
    }

    /// Where this agent's requests are reported.
    fn meter(&self) -> &Meter {
        self.app().dispatcher.meter()
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
            .iter()
            .filter(|tool| {
                let Some(skill) = registry.get(&tool.name) else {
                    return true;
                };
                scoped |= !skill.descriptor.scopes().is_empty();
                signed_out || Dispatcher::authorize(skill, caller.caller()).is_ok()
            })
            .cloned()
            .collect();
        super::tools::listed(tools, scoped)
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

/// rmcp moves each request's future, an enum as large as the largest of every method's, into
/// a task of its own: a method whose states are large (a call's plain, parked and task states;
/// a task lookup that may read the store) is boxed, so every request moves a few hundred bytes
/// rather than kilobytes.
impl ServerHandler for McpHandler {
    fn get_info(&self) -> InitializeResult {
        // rmcp asks for it on every stateless request.
        (*self.info).clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let list = async { Ok(self.tool_list(&context)) };
        timed(self.meter(), ("tools/list", None), &context, list).await
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
        let stateless = is_stateless(&context);
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
        Box::pin(async move {
            // Labels name only this agent's tools, never a name a client made up.
            let registry = self.app().dispatcher.registry();
            let target = (self.meter().is_on())
                .then(|| registry.get(&request.name))
                .flatten()
                .map(|skill| skill.descriptor.id().to_owned());
            let call = self.service.call_tool(request, &context, &self.log_level);
            timed(self.meter(), ("tools/call", target), &context, call).await
        })
        .await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let list = async {
            Ok(ListResourcesResult::with_all_items(content::resources(
                self.app(),
            )))
        };
        timed(self.meter(), ("resources/list", None), &context, list).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let list = async {
            Ok(ListResourceTemplatesResult::with_all_items(
                content::templates(self.app()),
            ))
        };
        let method = ("resources/templates/list", None);
        timed(self.meter(), method, &context, list).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(async move {
            let read = async {
                let meter = self.meter();
                let metered = content_call(meter, CallKind::Resource, &request.uri, &context);
                let caller = caller_of(&context);
                let read = content::read(self.app(), &request.uri, &caller)
                    .await
                    .map(|contents| {
                        ReadResourceResponse::Complete(ReadResourceResult::new(contents))
                    });
                content_ended(metered, &read);
                read
            };
            timed(self.meter(), ("resources/read", None), &context, read).await
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
            let _slot = self.app().quotas.open_stream(&caller).map_err(busy)?;
            super::subscriptions::listen(&self.app().resource_updates, subscription).await;
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let list = async {
            if !self.app().catalog.has_prompts() {
                return Err(McpError::method_not_found::<ListPromptsRequestMethod>());
            }
            Ok(ListPromptsResult::with_all_items(content::prompts(
                self.app(),
            )))
        };
        timed(self.meter(), ("prompts/list", None), &context, list).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Box::pin(async move {
            let meter = self.meter();
            let catalog = &self.app().catalog;
            let target = (meter.is_on())
                .then(|| catalog.prompts().iter().find(|p| p.name() == request.name))
                .flatten()
                .map(|prompt| prompt.name().to_owned());
            let get = async {
                let metered = content_call(meter, CallKind::Prompt, &request.name, &context);
                let got = self.service.get_prompt(request, &context).await;
                content_ended(metered, &got);
                got
            };
            timed(meter, ("prompts/get", target), &context, get).await
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
        Box::pin(async move {
            let caller = caller_of(&context);
            let complete = content::complete(self.app(), &request, &caller);
            timed(
                self.meter(),
                ("completion/complete", None),
                &context,
                complete,
            )
            .await
        })
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(async move {
            let get = self.service.get_task(request, &context);
            timed(self.meter(), ("tasks/get", None), &context, get).await
        })
        .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            let update = self.service.update_task(request, &context);
            timed(self.meter(), ("tasks/update", None), &context, update).await
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
            let cancel = self.service.cancel_task(request, &context);
            timed(self.meter(), ("tasks/cancel", None), &context, cancel).await
        })
        .await
    }
}

/// What `initialize` (and every stateless request's server info) says of this agent.
fn server_info(app: &App) -> InitializeResult {
    let agent = app.agent;
    let mut capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_tasks()
        .build();
    // Task artifacts are resources, so every agent serves resources.
    let mut resources = ResourcesCapability::default();
    resources.subscribe = Some(true);
    resources.list_changed = Some(false);
    capabilities.resources = Some(resources);
    if app.catalog.has_prompts() {
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
