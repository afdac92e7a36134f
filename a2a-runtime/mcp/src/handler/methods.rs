//! rmcp's `ServerHandler` for [`McpHandler`]: listings gathered from every agent of the
//! endpoint, every other request handed to the agent it names.

use std::borrow::Cow;

#[allow(deprecated)] // `logging/setLevel`: see `logging.rs`.
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult,
    InitializeRequestParams, InitializeResult, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    Reference, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use super::{McpHandler, unknown_prompt, unknown_resource, unknown_task, unknown_tool};
use crate::content;
use crate::error::busy;
use crate::metering::timed;
use crate::namespace::namespaced;
use crate::service::{caller_of, is_stateless};
use crate::sessions::SessionSlot;
use crate::skills_ext;

/// The MCP revisions this server implements.
const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// The MCP revisions this server implements, newest first, as a client names them: what a
/// server card's `supportedProtocolVersions` lists.
pub fn protocol_versions() -> Vec<String> {
    VERSIONS.iter().map(|v| v.as_str().to_owned()).collect()
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> InitializeResult {
        // rmcp asks for it on every stateless request.
        (*self.info).clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(VERSIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        // A session over HTTP: its plain requests are answered by this handler, with this peer,
        // where they arrive (`sessions.rs`).
        if let Some(slot) = context.extensions.get::<SessionSlot>() {
            slot.fill(self.clone(), context.peer.clone());
        }
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let list = async { Ok(self.tool_list(&context)) };
        timed(&self.meter, "tools/list", None, &context, list).await
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
        let misshapen = if stateless && crate::request_check::removed_in_2026(&request.method) {
            None
        } else {
            crate::request_check::misshapen(&request.method, &params)
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

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let list = async { Ok(skills_ext::list(&self.skills.current())) };
        timed(&self.meter, "skills/list", None, &context, list).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let got = async { skills_ext::get(&self.skills.current(), &request.uri) };
        timed(&self.meter, "skills/get", None, &context, got).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let listed = self.tools.iter().find(|tool| tool.name == name).cloned();
        // A tool an agent defined at run time gained after the endpoint was built.
        listed.or_else(|| self.member_tool(name))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some((member, own)) = self.tool_owner(&request.name) else {
            return Err(unknown_tool(&request.name));
        };
        if own.len() != request.name.len() {
            request.name = own.to_owned().into();
        }
        member.agent.call_tool(request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let list = async {
            let mut resources: Vec<_> = self
                .members()
                .iter()
                .flat_map(|member| content::resources(member.agent.app()))
                .collect();
            // Only a client that asks for skills gets them among the resources.
            let skills = self.skills.current();
            if !skills.is_empty() && skills_ext::declared(&context) {
                resources.extend(skills_ext::resources(&skills));
            }
            Ok(ListResourcesResult::with_all_items(resources))
        };
        timed(&self.meter, "resources/list", None, &context, list).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let list = async { Ok(self.templates()) };
        let method = "resources/templates/list";
        timed(&self.meter, method, None, &context, list).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if let Some(found) = skills_ext::read(&self.skills.current(), &request.uri) {
            let read = async { Ok(found) };
            return timed(&self.meter, "resources/read", None, &context, read).await;
        }
        Box::pin(async move {
            match self.resource_owner(&request.uri, &context).await {
                Some(member) => member.agent.read_resource(request, context).await,
                None => Err(unknown_resource(&request.uri)),
            }
        })
        .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(crate::subscriptions::accepted_filter(
            requested,
            self.lists_change(),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A 2025-era session is told of each change of a list that can change.
        if let Some(changes) = self.list_changes() {
            tokio::spawn(changes.forward(context.peer));
        }
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        // An open stream counts against its caller's stream quota, as an A2A subscription does
        // (the agents of a server share one quota set).
        Box::pin(async move {
            let caller = caller_of(subscription.request_context());
            let quotas = &self.members()[0].agent.app().quotas;
            let _slot = quotas.open_stream(&caller).map_err(busy)?;
            let accepted = subscription.accepted();
            let followed = [
                accepted.tools_list_changed,
                accepted.resources_list_changed,
                accepted.prompts_list_changed,
            ];
            let lists = (followed.contains(&Some(true)))
                .then(|| self.list_changes())
                .flatten();
            crate::subscriptions::listen(self.updates(), lists, subscription).await;
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
            Some(member) => member.agent.subscribe(request, &context),
            None => Err(unknown_resource(&request.uri)),
        }
    }

    #[allow(deprecated)] // As `subscribe`.
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        for member in self.session_members() {
            member.agent.unsubscribe(&request.uri);
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let list = async {
            if self.info.capabilities.prompts.is_none() {
                return Err(McpError::method_not_found::<ListPromptsRequestMethod>());
            }
            let mut prompts = Vec::new();
            for member in self.members() {
                let listed = content::prompts(member.agent.app());
                prompts.extend(listed.into_iter().map(|mut prompt| {
                    prompt.name = namespaced(&member.prefix, &prompt.name);
                    prompt
                }));
            }
            Ok(ListPromptsResult::with_all_items(prompts))
        };
        timed(&self.meter, "prompts/list", None, &context, list).await
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let Some((member, own)) = self.prompt_owner(&request.name) else {
            return Err(unknown_prompt(&request.name));
        };
        request.name = own.to_owned();
        member.agent.get_prompt(request, context).await
    }

    #[allow(deprecated)] // See `logging.rs`.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        for member in self.session_members() {
            member.agent.set_level(request.level);
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
                    return Err(unknown_prompt(&reference.name));
                };
                reference.name = own.to_owned();
                member
            }
            Reference::Resource(reference) => self
                .members()
                .iter()
                .find(|m| m.agent.app().catalog.template(&reference.uri).is_some())
                .unwrap_or(&self.members()[0]),
            _ => &self.members()[0],
        };
        member.agent.complete(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(async move {
            match self.task_owner(&request.task_id, &context).await {
                Some(member) => member.agent.get_task(request, context).await,
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
                Some(member) => member.agent.update_task(request, context).await,
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
                Some(member) => member.agent.cancel_task(request, context).await,
                None => Err(unknown_task(&request.task_id)),
            }
        })
        .await
    }
}
