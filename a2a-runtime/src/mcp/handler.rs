//! `tools/list` and `tools/call` over the shared dispatcher.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::tools::wraps_output;
use crate::context::TaskContext;
use crate::dispatch::{SkillOutput, normalize_numbers};
use crate::model::{PartContent, new_id};
use crate::server::App;

/// The MCP revisions this server implements (tools only).
const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
];

/// One agent, served as an MCP server.
#[derive(Clone)]
pub(crate) struct McpHandler {
    app: Arc<App>,
}

impl McpHandler {
    pub(crate) fn new(app: Arc<App>) -> Self {
        Self { app }
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
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
        let mut input = Value::Object(request.arguments.unwrap_or_default());
        normalize_numbers(&mut input);
        // Argument errors are tool errors (isError), so a model can correct itself (SEP-1303).
        if let Err(error) = skill.descriptor.check_input(&input) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "invalid arguments: {error}"
            ))]));
        }
        let call_id = new_id();
        let task = TaskContext::new(
            call_id.clone(),
            call_id,
            skill.descriptor.id(),
            context.ct.clone(),
        );
        let result = dispatcher.invoke(skill, input, task).await;
        Ok(match result {
            Ok(SkillOutput::Data(value)) if wraps_output(skill) => {
                CallToolResult::structured(json!({ "result": value }))
            }
            Ok(SkillOutput::Data(value)) => CallToolResult::structured(value),
            Ok(SkillOutput::Text(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Ok(SkillOutput::Empty) => CallToolResult::success(Vec::new()),
            Ok(SkillOutput::Parts(parts)) => {
                CallToolResult::success(parts.iter().map(|p| content(&p.content)).collect())
            }
            Ok(SkillOutput::Artifact(artifact)) => CallToolResult::success(
                artifact.parts.iter().map(|p| content(&p.content)).collect(),
            ),
            Err(error) => {
                let mut result =
                    CallToolResult::error(vec![ContentBlock::text(error.message().to_owned())]);
                result.structured_content = error.data().cloned();
                result
            }
        })
    }
}

fn content(part: &PartContent) -> ContentBlock {
    match part {
        PartContent::Text(text) => ContentBlock::text(text.clone()),
        PartContent::Data(value) => ContentBlock::text(value.to_string()),
        PartContent::Url(url) => ContentBlock::text(url.clone()),
        PartContent::Raw(bytes) => ContentBlock::text(format!("<{} bytes>", bytes.len())),
    }
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> InitializeResult {
        let agent = self.app.agent;
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // The list never changes while the server runs.
        Ok(
            ListToolsResult::with_all_items(self.app.tools.as_ref().clone())
                .with_ttl_ms(3_600_000)
                .with_cache_scope(CacheScope::Public),
        )
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.app.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, context)
            .await
            .map(CallToolResponse::Complete)
    }
}
