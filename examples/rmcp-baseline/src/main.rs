//! A bare rmcp server: the hello agent's `greet` tool written directly against rmcp, served over
//! streamable HTTP on `/mcp` with rmcp's default settings, as the runtime serves it. It is the
//! baseline `scripts/bench-load` measures the runtime's MCP path against (same rmcp version,
//! same axum and tokio, TCP_NODELAY), in both eras: per-request 2026-07-28 calls and calls in a
//! 2025-11-25 session.
//!
//! Run: `cargo run --release -p rmcp-baseline -- 127.0.0.1:8091`

use std::sync::Arc;

use axum::Router;
use axum::serve::ListenerExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

/// One tool, `greet`, with the same schema and answer as the hello agent's skill.
#[derive(Clone)]
struct Greeter {
    tool: Arc<Tool>,
}

impl Greeter {
    fn new() -> Self {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Who to greet."}},
            "required": ["name"],
            "additionalProperties": false,
        });
        let schema = match schema {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Self {
            tool: Arc::new(Tool::new("greet", "Say hello.", Arc::new(schema))),
        }
    }
}

impl ServerHandler for Greeter {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "greet" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(|n| n.as_str())
            .ok_or_else(|| ErrorData::invalid_params("name: required string", None))?;
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!("Hello, {name}!")),
        ])))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8091".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("rmcp baseline on http://{}/mcp", listener.local_addr()?);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let greeter = Greeter::new();
    let service = StreamableHttpService::new(
        move || Ok(greeter.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    let app = Router::new().nest_service("/mcp", service);
    axum::serve(listener, app).await
}
