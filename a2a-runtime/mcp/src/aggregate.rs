//! Several agents as one MCP server (a host's shared `/mcp`): tools and prompts are listed as
//! `{agent}_{name}` (`namespace.rs`), resources by their URIs, and each request goes to the
//! agent it names, whose own handler serves it with the agent's scopes, quotas and tasks. A task
//! is found through the agent that owns it.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

#[allow(deprecated)] // `logging/setLevel`: see `logging.rs`.
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, Implementation, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, Reference,
    SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;

use super::content;
use super::error::busy;
use super::handler::McpHandler;
use super::metering::timed;
use super::namespace::{collision, namespaced, split};
use super::service::caller_of;
use a2a_runtime_core::content::{ARTIFACT_TEMPLATE, ResourceUpdates};
use a2a_runtime_core::observe::Meter;

/// One agent behind the shared endpoint: its prefix (its id) and its handler.
#[derive(Clone)]
pub struct Member {
    pub prefix: String,
    pub handler: McpHandler,
}

/// The agents of a host as one MCP server; one per session (its members' sessions are its).
#[derive(Clone)]
pub struct AggregateHandler {
    /// The agents' handlers every session shares.
    shared: Arc<[Member]>,
    /// This session's own handlers (their subscriptions and log levels), made when it first
    /// needs them: most requests (every stateless one) never do, and pay nothing for them.
    session: Arc<OnceLock<Arc<[Member]>>>,
    /// Every agent's tools, namespaced, for rmcp's lookups by name.
    tools: Arc<Vec<Tool>>,
    /// Whether some member requires credentials: the others' tools then say they need none.
    secured: bool,
    info: Arc<InitializeResult>,
    /// Every member's resource changes in one channel, started by the first
    /// `subscriptions/listen` (until then no member sends its changes anywhere).
    updates: Arc<OnceLock<ResourceUpdates>>,
    /// Where the listings it answers itself are reported, as the host's (a member reports
    /// what it serves).
    meter: Meter,
}

impl AggregateHandler {
    /// The server `name` (`description`) for `members`, refused when two members would list a
    /// tool or prompt under one name.
    pub fn new(name: &str, description: &str, members: Vec<Member>) -> Result<Self, String> {
        let tools = members.iter().map(|m| {
            let registry = m.handler.app().dispatcher.registry();
            let names = registry
                .skills()
                .iter()
                .map(|s| s.descriptor.id())
                .collect();
            (m.prefix.as_str(), names)
        });
        if let Some((name, [a, b])) = collision(tools) {
            return Err(format!(
                "agents `{a}` and `{b}` would both list a tool `{name}` on the shared MCP \
                 endpoint; rename a skill or an agent id"
            ));
        }
        let prompts = members.iter().map(|m| {
            let catalog = &m.handler.app().catalog;
            let names = catalog.prompts().iter().map(|p| p.name()).collect();
            (m.prefix.as_str(), names)
        });
        if let Some((name, [a, b])) = collision(prompts) {
            return Err(format!(
                "agents `{a}` and `{b}` would both list a prompt `{name}` on the shared MCP \
                 endpoint; rename a prompt or an agent id"
            ));
        }
        let info = server_info(name, description, &members);
        let secured = members
            .iter()
            .any(|m| m.handler.app().security.is_enabled());
        let tools = members
            .iter()
            .flat_map(|m| {
                let registry = m.handler.app().dispatcher.registry();
                registry.skills().iter().filter_map(|skill| {
                    let mut tool = m.handler.get_tool(skill.descriptor.id())?;
                    tool.name = namespaced(&m.prefix, &tool.name).into();
                    Some(tool)
                })
            })
            .collect();
        let hub = members
            .first()
            .and_then(|m| m.handler.app().dispatcher.meter().hub().cloned());
        Ok(Self {
            meter: Meter::new(name, hub),
            secured,
            tools: Arc::new(tools),
            session: Arc::default(),
            shared: members.into(),
            info: Arc::new(info),
            updates: Arc::default(),
        })
    }

    /// The handler of a new session (its members' sessions are made when first needed).
    pub fn for_session(&self) -> Self {
        Self {
            session: Arc::default(),
            ..self.clone()
        }
    }

    /// The members serving this session: its own handlers once it has them, else the shared.
    fn members(&self) -> &[Member] {
        self.session.get().map_or(&self.shared, |own| own)
    }

    /// This session's own handlers, made now if need be (subscriptions, log levels).
    fn session_members(&self) -> &[Member] {
        self.session.get_or_init(|| {
            self.shared
                .iter()
                .map(|m| Member {
                    prefix: m.prefix.clone(),
                    handler: m.handler.for_session(),
                })
                .collect()
        })
    }

    /// Every member's tools `context`'s caller is shown, namespaced.
    fn tool_list(&self, context: &RequestContext<RoleServer>) -> ListToolsResult {
        let mut tools = Vec::new();
        let mut private = false;
        for member in self.members().iter() {
            let listed = member.handler.tool_list(context);
            private |= listed.cache_scope == Some(rmcp::model::CacheScope::Private);
            let open = self.secured && !member.handler.app().security.is_enabled();
            tools.extend(listed.tools.into_iter().map(|mut tool| {
                tool.name = namespaced(&member.prefix, &tool.name).into();
                if open {
                    tool = super::tools::with_security(tool, json!([{ "type": "noauth" }]));
                }
                tool
            }));
        }
        super::tools::listed(tools, private)
    }

    /// Every member's resource templates; the task-artifact template, which each lists, once.
    fn templates(&self) -> ListResourceTemplatesResult {
        let mut templates = Vec::new();
        let mut artifacts = false;
        for member in self.members().iter() {
            for template in content::templates(member.handler.app()) {
                let artifact = template.uri_template == ARTIFACT_TEMPLATE;
                if !(artifact && artifacts) {
                    templates.push(template);
                }
                artifacts |= artifact;
            }
        }
        ListResourceTemplatesResult::with_all_items(templates)
    }

    fn prefixes(&self) -> impl Iterator<Item = (usize, &str)> {
        self.members()
            .iter()
            .enumerate()
            .map(|(index, m)| (index, m.prefix.as_str()))
    }

    /// The member a namespaced tool belongs to, and the tool's own name.
    fn tool_owner<'n>(&self, name: &'n str) -> Option<(&Member, &'n str)> {
        let (index, own) = split(self.prefixes(), name, |index, own| {
            let registry = self.members()[index].handler.app().dispatcher.registry();
            registry.get(own).is_some()
        })?;
        Some((&self.members()[index], own))
    }

    /// The member a namespaced prompt belongs to, and the prompt's own name.
    fn prompt_owner<'n>(&self, name: &'n str) -> Option<(&Member, &'n str)> {
        let (index, own) = split(self.prefixes(), name, |index, own| {
            self.members()[index]
                .handler
                .app()
                .catalog
                .prompt(own)
                .is_some()
        })?;
        Some((&self.members()[index], own))
    }

    /// The member whose resource or template `uri` is, else the one owning the task of an
    /// artifact URI.
    async fn resource_owner(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<&Member> {
        if let Some(member) = self
            .members()
            .iter()
            .find(|m| super::content::serves(m.handler.app(), uri))
        {
            return Some(member);
        }
        let task = super::content::artifact_task(uri)?;
        self.task_owner(&task, context).await
    }

    /// The member owning task `id` (for the request's caller), if any.
    async fn task_owner(&self, id: &str, context: &RequestContext<RoleServer>) -> Option<&Member> {
        for member in self.members().iter() {
            if member.handler.owns_task(id, context).await {
                return Some(member);
            }
        }
        None
    }

    /// Every member's resource changes, in one channel (started on first use).
    fn updates(&self) -> &ResourceUpdates {
        self.updates.get_or_init(|| {
            let merged = ResourceUpdates::new();
            for member in self.members().iter() {
                let mut changes = member.handler.app().resource_updates.listen();
                let merged = merged.clone();
                tokio::spawn(async move {
                    use tokio::sync::broadcast::error::RecvError;
                    loop {
                        match changes.recv().await {
                            Ok(uri) => merged.notify(uri.as_ref()),
                            Err(RecvError::Lagged(_)) => {}
                            Err(RecvError::Closed) => return,
                        }
                    }
                });
            }
            merged
        })
    }
}

fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown tool `{name}`: tools are named `{{agent}}_{{tool}}` here"),
        Some(json!({ "name": name })),
    )
}

fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown task `{id}`"),
        Some(json!({ "taskId": id })),
    )
}

fn unknown_resource(uri: &str) -> McpError {
    McpError::invalid_params(
        format!("resource not found: no agent of this server serves `{uri}`"),
        Some(json!({ "uri": uri })),
    )
}

impl ServerHandler for AggregateHandler {
    fn get_info(&self) -> InitializeResult {
        (*self.info).clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.members()[0].handler.supported_protocol_versions()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let _ = request;
        let list = async { Ok(self.tool_list(&context)) };
        timed(&self.meter, ("tools/list", None), &context, list).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        self.members()[0]
            .handler
            .on_custom_request(request, context)
            .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some((member, own)) = self.tool_owner(&request.name) else {
            return Err(unknown_tool(&request.name));
        };
        request.name = own.to_owned().into();
        Box::pin(member.handler.call_tool(request, context)).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let list = async {
            let resources = self
                .members()
                .iter()
                .flat_map(|member| content::resources(member.handler.app()))
                .collect();
            Ok(ListResourcesResult::with_all_items(resources))
        };
        timed(&self.meter, ("resources/list", None), &context, list).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let list = async { Ok(self.templates()) };
        let method = ("resources/templates/list", None);
        timed(&self.meter, method, &context, list).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(async move {
            match self.resource_owner(&request.uri, &context).await {
                Some(member) => member.handler.read_resource(request, context).await,
                None => Err(unknown_resource(&request.uri)),
            }
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
        Box::pin(async move {
            let caller = caller_of(subscription.request_context());
            let quotas = &self.members()[0].handler.app().quotas;
            let _slot = quotas.open_stream(&caller).map_err(busy)?;
            super::subscriptions::listen(self.updates(), subscription).await;
            Ok(())
        })
        .await
    }

    #[allow(deprecated)] // The 2025-era subscription; `listen` is 2026-07-28's.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // A subscription is this session's: its own handlers hold it.
        self.session_members();
        match self.resource_owner(&request.uri, &context).await {
            Some(member) => member.handler.subscribe(request, context).await,
            None => Err(unknown_resource(&request.uri)),
        }
    }

    #[allow(deprecated)] // As `subscribe`.
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        for member in self.session_members() {
            member
                .handler
                .unsubscribe(request.clone(), context.clone())
                .await?;
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let _ = request;
        let list = async {
            let mut prompts = Vec::new();
            for member in self.members().iter() {
                let listed = content::prompts(member.handler.app());
                prompts.extend(listed.into_iter().map(|mut prompt| {
                    prompt.name = namespaced(&member.prefix, &prompt.name);
                    prompt
                }));
            }
            Ok(ListPromptsResult::with_all_items(prompts))
        };
        timed(&self.meter, ("prompts/list", None), &context, list).await
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let Some((member, own)) = self.prompt_owner(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{}`", request.name),
                Some(json!({ "prompt": request.name })),
            ));
        };
        request.name = own.to_owned();
        Box::pin(member.handler.get_prompt(request, context)).await
    }

    #[allow(deprecated)] // See `logging.rs`.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        for member in self.session_members() {
            member
                .handler
                .set_level(request.clone(), context.clone())
                .await?;
        }
        Ok(())
    }

    async fn complete(
        &self,
        mut request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let member = match &mut request.r#ref {
            Reference::Prompt(reference) => {
                let Some((member, own)) = self.prompt_owner(&reference.name) else {
                    return Err(McpError::invalid_params(
                        format!("unknown prompt `{}`", reference.name),
                        Some(json!({ "prompt": reference.name })),
                    ));
                };
                reference.name = own.to_owned();
                member
            }
            Reference::Resource(reference) => self
                .members()
                .iter()
                .find(|m| m.handler.app().catalog.template(&reference.uri).is_some())
                .unwrap_or(&self.members()[0]),
            _ => &self.members()[0],
        };
        Box::pin(member.handler.complete(request, context)).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(async move {
            match self.task_owner(&request.task_id, &context).await {
                Some(member) => member.handler.get_task(request, context).await,
                None => Err(unknown_task(&request.task_id)),
            }
        })
        .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            match self.task_owner(&request.task_id, &context).await {
                Some(member) => member.handler.update_task(request, context).await,
                None => Err(unknown_task(&request.task_id)),
            }
        })
        .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(async move {
            match self.task_owner(&request.task_id, &context).await {
                Some(member) => member.handler.cancel_task(request, context).await,
                None => Err(unknown_task(&request.task_id)),
            }
        })
        .await
    }
}

/// What `initialize` says of the shared endpoint: every member's capabilities together.
fn server_info(name: &str, description: &str, members: &[Member]) -> InitializeResult {
    let mut info = members[0].handler.get_info();
    if let Some(member) = members
        .iter()
        .find(|m| m.handler.get_info().capabilities.prompts.is_some())
    {
        info.capabilities.prompts = member.handler.get_info().capabilities.prompts;
    }
    info.with_server_info(
        Implementation::new(name, env!("CARGO_PKG_VERSION")).with_description(description),
    )
    .with_instructions(description)
}
