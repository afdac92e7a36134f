//! A server's MCP endpoints, built alike over 1..N agents: each agent's own (one agent, its
//! names as they are) and a host's shared one (every agent, names prefixed by its id), each
//! behind the gate of `a2a-runtime-mcp` and the schemes of its agents, with its
//! protected-resource metadata.

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::SessionStore;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tower_http::cors::CorsLayer;

use super::config::ServeConfig;
use super::direct::Directed;
use super::resource_metadata::{ResourceMetadata, url_of};
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::security::Security;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_mcp::direct::DirectCalls;
use a2a_runtime_mcp::namespace::ToolSkills;
use a2a_runtime_mcp::sessions::McpSessions;
use a2a_runtime_mcp::skills_ext::SkillShelf;
use a2a_runtime_mcp::{Identity, McpEndpoint, McpGate, McpHandler, Member, RmcpService};

/// The agents one endpoint serves.
pub(crate) enum Agents<'a> {
    /// One agent's own endpoint.
    One(&'a Arc<App>),
    /// Several agents under their ids, as the server `identity` says.
    Shared {
        identity: Identity<'a>,
        agents: Vec<(&'a str, &'a Arc<App>)>,
    },
}

impl Agents<'_> {
    /// Each agent with the prefix of its names.
    fn prefixed(&self) -> Vec<(&str, &Arc<App>)> {
        match self {
            Self::One(app) => vec![(a2a_runtime_mcp::namespace::OWN_NAMES, *app)],
            Self::Shared { agents, .. } => agents.clone(),
        }
    }

    /// The handler serving them, with their `SKILL.md`s as `skills` has them when asked.
    pub(crate) fn handler(&self, skills: Arc<SkillShelf>) -> Result<McpHandler, Error> {
        let handler = match self {
            Self::One(app) => McpHandler::agent(Arc::clone(app)),
            Self::Shared { identity, agents } => {
                let members = agents
                    .iter()
                    .map(|(id, app)| Member::new(*id, Arc::clone(app)))
                    .collect();
                McpHandler::shared(identity, members).map_err(Error::Config)?
            }
        };
        Ok(handler.with_skill_shelf(skills))
    }

    /// The name its metadata gives the resource.
    fn name(&self) -> String {
        match self {
            Self::One(app) => app.dispatcher.about().name().to_owned(),
            Self::Shared { identity, .. } => identity.name.to_owned(),
        }
    }
}

/// An endpoint at a path, and how it is served.
pub(crate) struct Mcp {
    endpoint: McpEndpoint,
    cors: Option<CorsLayer>,
    /// Its protected-resource metadata, when a scheme takes bearer tokens.
    metadata: Option<ResourceMetadata>,
    path: String,
}

impl Mcp {
    /// The endpoint at `path` on the server `config` describes, for `agents` (and their
    /// `skills`) authenticated by `security`, within `limits`.
    pub(crate) fn new(
        path: &str,
        (agents, skills): (&Agents<'_>, Arc<SkillShelf>),
        security: Arc<Security>,
        (limits, kept): (&Limits, Option<Arc<dyn SessionStore>>),
        config: &ServeConfig,
    ) -> Result<Self, Error> {
        let handler = agents.handler(skills)?;
        let prefixed = agents.prefixed();
        let Some((_, first)) = prefixed.first() else {
            return Err(Error::Config("an MCP endpoint needs an agent".into()));
        };
        // The agents of a server share its shutdown token.
        let shutdown = first.shutdown.clone();
        let direct = DirectCalls::new(&handler, limits.sse_keep_alive, shutdown.clone());
        let (rmcp, sessions) = rmcp_service(limits, shutdown, handler.clone(), kept);
        super::observe::watch_sessions(first, &sessions);
        let server_url = config.base_url();
        let tools = prefixed
            .iter()
            .map(|(prefix, app)| {
                let open = !app.security.is_enabled();
                ((*prefix).to_owned(), Arc::clone(&app.dispatcher), open)
            })
            .collect();
        let gate = McpGate {
            max_body: limits.max_body_bytes,
            body_time: limits.body_time(),
            sessions,
            max_sessions: limits.max_mcp_sessions,
            tools: ToolSkills::namespaced(tools),
            resource_metadata: url_of(&server_url, path),
            token_required: config.oauth.require_token_for_initialize,
            meter: handler.meter().clone(),
        };
        let apps: Vec<&Arc<App>> = prefixed.iter().map(|(_, app)| *app).collect();
        let metadata = ResourceMetadata::new(&security, &apps, &agents.name(), &server_url, path);
        Ok(Self {
            endpoint: McpEndpoint::new(gate, security, rmcp, direct),
            cors: super::http::cors(config),
            metadata,
            path: path.to_owned(),
        })
    }

    /// A router serving the endpoint at `at` (its path, or the path below the router it is
    /// nested in) and its metadata (at the root well-known URL too when the endpoint is the
    /// server's `/mcp`), and the endpoint itself when it needs no layer (the server's front
    /// answers it directly then).
    pub(crate) fn mounted(self, at: &str) -> (Router, Router, Option<(String, Directed)>) {
        let metadata = self
            .metadata
            .map(ResourceMetadata::routes)
            .unwrap_or_default();
        match self.cors {
            Some(cors) => {
                let layered = tower::Layer::layer(&cors, self.endpoint.service());
                (Router::new().route_service(at, layered), metadata, None)
            }
            None => {
                let route = Router::new().route_service(at, self.endpoint.service());
                (
                    route,
                    metadata,
                    Some((self.path, Directed::Mcp(self.endpoint))),
                )
            }
        }
    }
}

/// An rmcp service whose sessions each get `handler`'s session, within `limits`, ending at
/// `shutdown`; its sessions idle out after `mcp_session_idle`, and are `kept` for other
/// replicas to continue when there is somewhere to keep them.
fn rmcp_service(
    limits: &Limits,
    shutdown: tokio_util::sync::CancellationToken,
    handler: McpHandler,
    kept: Option<Arc<dyn SessionStore>>,
) -> (RmcpService, Arc<McpSessions>) {
    // Host and Origin are checked for every route by the browser guard. A request answered
    // by its result alone goes back as one JSON body rather than a one-event stream (rmcp
    // streams when the call sends anything first: progress, logs, a question); sessions stream.
    let mut settings = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_max_request_body_bytes(limits.max_body_bytes)
        .with_cancellation_token(shutdown)
        .disable_allowed_hosts();
    settings.session_store = kept;
    let sessions = Arc::new(McpSessions::new(limits.mcp_session_idle));
    let service = StreamableHttpService::new(
        move || Ok(handler.for_session()),
        Arc::clone(&sessions),
        settings,
    );
    (service, sessions)
}
