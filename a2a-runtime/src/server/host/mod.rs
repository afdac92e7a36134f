#![doc = include_str!("../../../docs/hosting.md")]

use super::agent::AgentSettings;
use super::agent_server::AgentServer;
pub use super::catalog::{AgentCatalog, CatalogEntry};
use super::lifecycle::Lifecycle;
use super::mounts::{Hosting, Mount, Mounted, Mounts};
use super::settings::{ServerSettings, server_builder};
use a2a_runtime_core::agent::Agent;
use a2a_runtime_core::limits::Limits;

/// Serves several agents in one process: `/{id}/` for each, tenants at the root, a catalog at
/// `GET /agents`, and the primary agent's card at the root well-known paths.
///
/// ```no_run
/// # use a2a_runtime::prelude::*;
/// # use a2a_runtime::server::Host;
/// # /// Doc.
/// # #[agent] #[derive(Default)] struct Currency;
/// # /// Doc.
/// # #[agent] struct Booking;
/// # /// Converts.
/// # #[skill(agent = Currency)] async fn convert(amount: f64) -> f64 { amount }
/// # /// Books.
/// # #[skill(agent = Booking)] async fn book(what: String) -> String { what }
/// # async fn run() -> Result<(), a2a_runtime::Error> {
/// Host::new()
///     .agent("currency", Currency::default())
///     .agent("booking", Booking)
///     .primary("currency")
///     .serve()
///     .await
/// # }
/// ```
pub struct Host {
    /// The server's own settings.
    server: ServerSettings,
    /// Its agents, under their ids.
    mounts: Mounts,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("agents", &self.mounts.ids())
            .field("config", &self.server.config)
            .finish_non_exhaustive()
    }
}

impl Default for Host {
    fn default() -> Self {
        Self::new()
    }
}

impl Host {
    /// A host with no agents yet and default settings.
    pub fn new() -> Self {
        Self {
            server: ServerSettings::default(),
            mounts: Mounts {
                agents: Vec::new(),
                hosting: Some(Hosting::new()),
            },
        }
    }

    server_builder!();

    /// What a host adds to a server (it always has it).
    fn hosting(&mut self) -> &mut Hosting {
        self.mounts.hosting.get_or_insert_with(Hosting::new)
    }

    /// The server and its agents, to serve.
    fn into_lifecycle(self) -> Lifecycle {
        Lifecycle::new(self.server, self.mounts)
    }

    /// Serves `agent` as `id`: at `/{id}/` and as tenant `id`. Ids are checked when the host is
    /// built: unique, and a URL path segment of letters, digits, `-` and `_`.
    #[must_use]
    pub fn agent<A: Agent>(mut self, id: impl Into<String>, agent: A) -> Self {
        self.mounts.agents.push(Mounted {
            mount: Mount::At(id.into()),
            agent: AgentSettings::new(agent),
        });
        self
    }

    /// Serves the remote A2A agent at `url` (its base URL or its card's URL) as `id`, beside
    /// the compiled ones: its card is read when the host starts (and every few minutes after;
    /// an unreachable remote is served without skills and tried again), its skills are served
    /// on every binding and as MCP tools, each call forwarded to the remote. Feature `remote`.
    #[cfg(feature = "remote")]
    #[must_use]
    pub fn remote_agent(self, id: impl Into<String>, url: impl Into<String>) -> Self {
        let settings = crate::remote::RemoteA2aSettings::default();
        self.remote_agent_with(id, url, settings)
    }

    /// [`remote_agent`](Self::remote_agent), reached as `settings` say (timeouts, the largest
    /// answer read, the credential the remote sees).
    #[cfg(feature = "remote")]
    #[must_use]
    pub fn remote_agent_with(
        mut self,
        id: impl Into<String>,
        url: impl Into<String>,
        settings: crate::remote::RemoteA2aSettings,
    ) -> Self {
        let id = id.into();
        let remote = crate::remote::RemoteA2aAgent::new(id.clone(), url, settings);
        self.mounts.mount_defined(id, std::sync::Arc::new(remote));
        self
    }

    /// Serves the MCP server whose streamable HTTP endpoint is `url` (either revision) as
    /// `id`, beside the compiled agents: its tools are listed when the host starts and followed
    /// (`notifications/tools/list_changed`, and every few minutes), and served as MCP tools at
    /// `/{id}/mcp` and in the shared `/mcp`, and as the skills of an A2A agent at `/{id}/` whose
    /// card lists them; each call is forwarded with its progress, cancellation and questions
    /// relayed. Feature `remote`.
    #[cfg(feature = "remote")]
    #[must_use]
    pub fn remote_mcp(self, id: impl Into<String>, url: impl Into<String>) -> Self {
        let source = crate::remote::McpSource::Http(url.into());
        self.remote_mcp_with(id, source, crate::remote::RemoteMcpSettings::default())
    }

    /// [`remote_mcp`](Self::remote_mcp) for a server the host starts: `command` (program
    /// first), its stdin and stdout the session, its stderr logged; started again with backoff
    /// when it exits, and stopped (stdin closed, then killed) when the host stops.
    #[cfg(feature = "remote")]
    #[must_use]
    pub fn remote_mcp_stdio<S: Into<String>>(
        self,
        id: impl Into<String>,
        command: impl IntoIterator<Item = S>,
    ) -> Self {
        let command = command.into_iter().map(Into::into).collect();
        let source = crate::remote::McpSource::Stdio(command);
        self.remote_mcp_with(id, source, crate::remote::RemoteMcpSettings::default())
    }

    /// [`remote_mcp`](Self::remote_mcp) for `source`, reached as `settings` say (timeouts, the
    /// credential the server sees, scopes per tool).
    #[cfg(feature = "remote")]
    #[must_use]
    pub fn remote_mcp_with(
        mut self,
        id: impl Into<String>,
        source: crate::remote::McpSource,
        settings: crate::remote::RemoteMcpSettings,
    ) -> Self {
        let id = id.into();
        let remote = crate::remote::RemoteMcpServer::new(id.clone(), source, settings);
        self.mounts.mount_defined(id, std::sync::Arc::new(remote));
        self
    }

    /// Serves the agent of `server` as `id`, with that builder's skills, security schemes,
    /// credentials (the host's and its flags add to them), task handle, resource updates and
    /// routes (served under `/{id}/`). Its limits are the host's unless
    /// [`agent_limits`](Self::agent_limits) gives it its own; its store, address and
    /// shutdown are the host's.
    #[must_use]
    pub fn server(mut self, id: impl Into<String>, server: AgentServer) -> Self {
        let id = id.into();
        let AgentServer { mut agent, server } = server;
        let misplaced = if !agent.rest_prefix.is_empty() {
            Some("a rest_prefix (its HTTP+JSON routes are under /{id}/)")
        } else if server.store.is_some() {
            Some("a store of its own (the host keeps every agent's tasks)")
        } else {
            None
        };
        if let Some(what) = misplaced {
            self.hosting().refused.push(format!(
                "agent `{id}` has {what}; set it on the Host instead"
            ));
        }
        // What a server of its own would have accepted and served, the agent keeps.
        agent.auth.api_keys.extend(server.auth.api_keys);
        agent.auth.jwt = agent.auth.jwt.or(server.auth.jwt);
        agent.auth.jwt_issuers.extend(server.auth.jwt_issuers);
        agent.auth.scope_implies.extend(&server.auth.scope_implies);
        agent.routes = std::mem::take(&mut agent.routes).merge(server.routes);
        self.mounts.agents.push(Mounted {
            mount: Mount::At(id),
            agent,
        });
        self
    }

    /// Gives agent `id` limits of its own (a longer input timeout, a larger body, fewer
    /// waiting tasks…) instead of the host's; the server's own (connections, shutdown,
    /// per-caller quotas) stay the host's. An id no agent has is an error when the host is
    /// built.
    #[must_use]
    pub fn agent_limits(mut self, id: &str, limits: Limits) -> Self {
        match self
            .mounts
            .agents
            .iter_mut()
            .find(|mounted| mounted.mount.id() == Some(id))
        {
            Some(mounted) => mounted.agent.limits = Some(limits),
            None => self.hosting().refused.push(format!(
                "agent_limits(\"{id}\", ..) names no agent added before it"
            )),
        }
        self
    }

    /// The agent whose card the root well-known paths serve, and which a root JSON-RPC request
    /// naming no tenant reaches (default: the first agent added).
    #[must_use]
    pub fn primary(mut self, id: impl Into<String>) -> Self {
        self.hosting().primary = Some(id.into());
        self
    }

    /// The host's name: `--help` shows it, and `serve()` keeps its SQLite file under
    /// `<data-dir>/<name>/` (default `agent-host`).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.hosting().name = name.into();
        self
    }

    /// Whether `/mcp` serves every agent's tools, prompts, resources and tasks together, each
    /// tool and prompt named `{id}_{name}` (default on; two agents listing one name is refused
    /// when the host is built). Each agent's own `/{id}/mcp` is served either way.
    #[must_use]
    pub fn shared_mcp(mut self, serve: bool) -> Self {
        self.hosting().shared_mcp = serve;
        self
    }

    /// A handle on the host's catalog of agents and their cards, for application routes
    /// (such as a discovery API of your own); usable once the host is built.
    pub fn catalog(&self) -> AgentCatalog {
        self.mounts
            .hosting
            .as_ref()
            .map(|h| h.catalog.clone())
            .unwrap_or_default()
    }
}
