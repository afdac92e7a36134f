//! A host's shared MCP endpoint, `/mcp`: every agent's tools, prompts, resources and tasks
//! under one endpoint (`a2a-runtime-mcp`'s aggregate), behind the schemes of all the agents,
//! with its own protected-resource metadata.

use std::sync::Arc;

use axum::Router;

use super::Host;
use crate::server::{Error, ServeConfig, http};
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::AudienceRule;
use a2a_runtime_core::auth::security::Security;
use a2a_runtime_mcp::aggregate::{AggregateHandler, Member};
use a2a_runtime_mcp::namespace::ToolSkills;
use a2a_runtime_mcp::{McpEndpoint, McpGate, McpHandler};

/// `/mcp` for every agent of `host` (`apps` in the order added) and its metadata routes, and
/// the endpoint itself when it needs no CORS layer (the front answers it directly then);
/// refused when two agents would list one tool or prompt name. With `audience`, the tokens of
/// the server's authorization server are taken only for the shared endpoint's own resource.
pub(super) fn routes(
    host: &Host,
    apps: &[Arc<App>],
    config: &ServeConfig,
    audience: Option<AudienceRule>,
) -> Result<(Router, Option<McpEndpoint<AggregateHandler>>), Error> {
    let members = host
        .agents
        .iter()
        .zip(apps)
        .map(|(hosted, app)| Member {
            prefix: hosted.id.clone(),
            handler: McpHandler::new(Arc::clone(app)),
        })
        .collect();
    let description = format!("The agents of {}: {}", host.name, host.ids().join(", "));
    let handler =
        AggregateHandler::new(&host.name, &description, members).map_err(Error::Config)?;
    let shutdown = apps
        .first()
        .map(|app| app.shutdown.clone())
        .unwrap_or_default();
    let (rmcp, sessions) =
        http::rmcp_service(&config.limits, shutdown, move || handler.for_session());
    if let Some(app) = apps.first() {
        crate::server::observe::watch_sessions(app, &sessions);
    }
    let server_url = config.base_url();
    let mut security = Security::union(apps.iter().map(|app| &*app.security));
    if let Some(rule) = audience {
        security = security.restricted(rule);
    }
    let security = Arc::new(security);
    let gate = McpGate {
        max_body: config.limits.max_body_bytes,
        body_time: config.limits.body_time(),
        sessions,
        max_sessions: config.limits.max_mcp_sessions,
        tools: ToolSkills::namespaced(
            host.agents
                .iter()
                .zip(apps)
                .map(|(hosted, app)| {
                    let open = !app.security.is_enabled();
                    (hosted.id.clone(), Arc::clone(&app.dispatcher), open)
                })
                .collect(),
        ),
        resource_metadata: http::resource_metadata_url(&server_url, http::MCP_PATH),
        // The host's: what its agents share (the hub) is all the endpoint reports through.
        meter: apps
            .first()
            .map(|app| app.dispatcher.meter().clone())
            .unwrap_or_default(),
    };
    let document = metadata(&security, apps, &host.name, &server_url);
    let endpoint = McpEndpoint::new(gate, security, rmcp);
    let (route, direct) = match http::cors(config) {
        Some(cors) => (
            Router::new().route_service(http::MCP_PATH, tower::Layer::layer(&cors, endpoint)),
            None,
        ),
        None => (
            Router::new().route_service(http::MCP_PATH, endpoint.clone()),
            Some(endpoint),
        ),
    };
    let metadata = http::metadata_routes(document, http::MCP_PATH, true);
    Ok((route.merge(metadata), direct))
}

/// The protected-resource metadata of the shared endpoint: every agent's schemes and scopes.
fn metadata(
    security: &Security,
    apps: &[Arc<App>],
    name: &str,
    server_url: &str,
) -> Option<serde_json::Value> {
    let schemes: Vec<_> = security.schemes().cloned().collect();
    let mut scopes: Vec<&str> = apps
        .iter()
        .flat_map(|app| app.dispatcher.registry().scopes().into_keys())
        .collect();
    scopes.sort_unstable();
    scopes.dedup();
    let jwt = apps.iter().flat_map(|app| &app.jwt);
    let resource = format!("{}{}", server_url.trim_end_matches('/'), http::MCP_PATH);
    a2a_runtime_core::auth::metadata::document(&resource, name, &schemes, jwt, &scopes)
}
