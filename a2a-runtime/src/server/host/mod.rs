#![doc = include_str!("../../../docs/hosting.md")]

mod assemble;
mod catalog;
mod routes;
mod shared_mcp;

use a2a_runtime_core::observe::CallObserver;
use std::sync::Arc;

use axum::Router;
use tokio_util::sync::CancellationToken;

use super::build::open_store;
use super::front::Front;
use super::{
    AgentServer, Error, Limits, ObserveOptions, ServeConfig, StoreLocation, cli, http, oauth,
    shutdown,
};
use a2a_runtime_core::agent::Agent;
use a2a_runtime_core::auth::{ApiKeys, AuthConfig, JwtConfig, ScopeImplications};
use a2a_runtime_core::task::TaskStore;
pub use catalog::{AgentCatalog, CatalogEntry};

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
    name: String,
    agents: Vec<Hosted>,
    primary: Option<String>,
    config: ServeConfig,
    config_overridden: bool,
    store: Option<Arc<dyn TaskStore>>,
    api_keys: ApiKeys,
    jwt: Option<JwtConfig>,
    jwt_issuers: Vec<JwtConfig>,
    scope_implies: ScopeImplications,
    routes: Router,
    shutdown: Option<CancellationToken>,
    catalog: AgentCatalog,
    /// Whether `/mcp` serves every agent's tools together.
    shared_mcp: bool,
    /// Ids given limits that no agent had when they were given.
    unknown_limits: Vec<String>,
    /// Where `serve()` opened the task store (grants of an authorization server go beside).
    store_location: Option<StoreLocation>,
    /// The application's authorization server, if it configures one.
    pub(in crate::server) oauth: Option<oauth::Settings>,
    /// The application's observers of every agent's calls, tasks and operations.
    observers: Vec<Arc<dyn CallObserver>>,
}

/// One agent of a host: its id, and the server builder holding its settings.
struct Hosted {
    id: String,
    server: AgentServer,
    /// Limits of its own ([`Host::agent_limits`]) instead of the host's.
    limits: Option<Limits>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("name", &self.name)
            .field(
                "agents",
                &self.agents.iter().map(|a| &a.id).collect::<Vec<_>>(),
            )
            .field("primary", &self.primary)
            .field("config", &self.config)
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
            name: "agent-host".into(),
            agents: Vec::new(),
            primary: None,
            config: ServeConfig::default(),
            config_overridden: false,
            store: None,
            api_keys: ApiKeys::default(),
            jwt: None,
            jwt_issuers: Vec::new(),
            scope_implies: ScopeImplications::new(),
            routes: Router::new(),
            shutdown: None,
            catalog: AgentCatalog::default(),
            shared_mcp: true,
            unknown_limits: Vec::new(),
            store_location: None,
            oauth: None,
            observers: Vec::new(),
        }
    }

    /// Serves metrics and queues observers as `options` say (flags and environment variables
    /// still override them in `serve()`).
    #[must_use]
    pub fn observe_options(mut self, options: ObserveOptions) -> Self {
        self.config.observe = options;
        self
    }

    /// Reports every agent's calls, task state changes, operations, store writes and push
    /// deliveries to `observer` (see [`AgentServer::observe`]); each record names its agent.
    #[must_use]
    pub fn observe(mut self, observer: impl CallObserver) -> Self {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Serves `agent` as `id`: at `/{id}/` and as tenant `id`. Ids are checked when the host is
    /// built: unique, and a URL path segment of letters, digits, `-` and `_`.
    #[must_use]
    pub fn agent<A: Agent>(self, id: impl Into<String>, agent: A) -> Self {
        self.server(id, AgentServer::new(agent))
    }

    /// Serves the agent of `server` as `id`, with that builder's skills, security schemes,
    /// credentials (the host's and its flags add to them), task handle, resource updates and
    /// routes (served under `/{id}/`). Its limits are the host's unless
    /// [`agent_limits`](Self::agent_limits) gives it its own; its store, address and
    /// shutdown are the host's.
    #[must_use]
    pub fn server(mut self, id: impl Into<String>, server: AgentServer) -> Self {
        self.agents.push(Hosted {
            id: id.into(),
            server,
            limits: None,
        });
        self
    }

    /// Gives agent `id` limits of its own (a longer input timeout, a larger body, fewer
    /// waiting tasks…) instead of the host's; the server's own (connections, shutdown,
    /// per-caller quotas) stay the host's. An id no agent has is an error when the host is
    /// built.
    #[must_use]
    pub fn agent_limits(mut self, id: &str, limits: Limits) -> Self {
        match self.agents.iter_mut().find(|hosted| hosted.id == id) {
            Some(hosted) => hosted.limits = Some(limits),
            None => self.unknown_limits.push(id.to_owned()),
        }
        self
    }

    /// The agent whose card the root well-known paths serve, and which a root JSON-RPC request
    /// naming no tenant reaches (default: the first agent added).
    #[must_use]
    pub fn primary(mut self, id: impl Into<String>) -> Self {
        self.primary = Some(id.into());
        self
    }

    /// The host's name: `--help` shows it, and `serve()` keeps its SQLite file under
    /// `<data-dir>/<name>/` (default `agent-host`).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Keeps every agent's tasks in `store` (each task knows its agent).
    #[must_use]
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Sets the whole configuration; `serve()` then reads no flags or environment variables.
    #[must_use]
    pub fn config(mut self, config: ServeConfig) -> Self {
        self.config = config;
        self.config_overridden = true;
        self
    }

    /// Sets the host's limits: the server's (connections, shutdown, per-caller quotas) and
    /// every agent's added with [`agent`](Self::agent).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// The URL clients reach the host at (its agents are below it).
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.config.public_url = Some(url.into());
        self
    }

    /// Accepts these API keys for every agent with an API key scheme.
    #[must_use]
    pub fn api_keys(mut self, keys: ApiKeys) -> Self {
        self.api_keys.extend(keys);
        self
    }

    /// Verifies bearer JWTs this way for every agent with a bearer scheme.
    #[must_use]
    pub fn jwt(mut self, jwt: JwtConfig) -> Self {
        self.jwt = Some(jwt);
        self
    }

    /// Also accepts bearer JWTs of another issuer for every agent (see
    /// [`AgentServer::trust_issuer`]).
    #[must_use]
    pub fn trust_issuer(mut self, jwt: JwtConfig) -> Self {
        self.jwt_issuers.push(jwt);
        self
    }

    /// Scopes that grant others, for every agent (see [`AgentServer::scope_implies`]).
    #[must_use]
    pub fn scope_implies<S: Into<String>>(
        mut self,
        parent: impl Into<String>,
        children: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scope_implies = std::mem::take(&mut self.scope_implies).imply(parent, children);
        self
    }

    /// Adds application routes beside the host's own (they must not reuse its paths, nor
    /// start with an agent's id).
    #[must_use]
    pub fn routes(mut self, routes: Router) -> Self {
        self.routes = self.routes.merge(routes);
        self
    }

    /// The application's shutdown token (see [`AgentServer::shutdown_signal`]).
    #[must_use]
    pub fn shutdown_signal(mut self, signal: CancellationToken) -> Self {
        self.shutdown = Some(signal);
        self
    }

    /// Whether `/mcp` serves every agent's tools, prompts, resources and tasks together, each
    /// tool and prompt named `{id}_{name}` (default on; two agents listing one name is refused
    /// when the host is built). Each agent's own `/{id}/mcp` is served either way.
    #[must_use]
    pub fn shared_mcp(mut self, serve: bool) -> Self {
        self.shared_mcp = serve;
        self
    }

    /// A handle on the host's catalog of agents and their cards, for application routes
    /// (such as a discovery API of your own); usable once the host is built.
    pub fn catalog(&self) -> AgentCatalog {
        self.catalog.clone()
    }

    /// Every agent's endpoints as an axum router (see [`AgentServer::router`] for what the
    /// serving application then provides).
    pub fn router(self) -> Result<Router, Error> {
        if let (None, Some(location @ (StoreLocation::Sqlite(_) | StoreLocation::Postgres(_)))) =
            (&self.store, &self.config.store)
        {
            return Err(Error::Config(format!(
                "the store {location} is opened asynchronously: pass it to `.store(..)`, or \
                 serve with `serve()` / `serve_on()`"
            )));
        }
        let base = self.config.base_url();
        let deployed = match oauth::Plan::of(self.oauth.as_ref(), &self.config.oauth)? {
            Some(plan) => Some(plan.deploy_at_once(
                &self.config,
                self.resources(&base),
                self.skill_scopes()?,
                &self.server_auth()?,
            )?),
            None => None,
        };
        let shutdown = self.shutdown.clone().unwrap_or_default();
        let apps = self.build(shutdown.clone(), deployed.as_ref(), &base)?;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let starting = apps.clone();
            runtime.spawn(async move {
                if let Err(error) = super::observe::open(&starting, None).await {
                    tracing::error!(%error, "the usage store could not be opened");
                }
                if let Err(error) = a2a_runtime_core::app::start_all(&starting).await {
                    tracing::error!(%error, "settling tasks left by an earlier run failed");
                }
            });
            if let Some(deployed) = &deployed {
                deployed.sweep_until(shutdown);
            }
        }
        let routes = routes::routes(&self, &apps, &self.config, deployed.as_ref())?;
        Ok(routes.router.merge(self.routes))
    }

    /// Serves every agent until SIGTERM or Ctrl-C, reading flags and environment variables as
    /// [`AgentServer::serve`] does (except `--stdio`: MCP over stdio serves one agent).
    pub async fn serve(mut self) -> Result<(), Error> {
        if !self.config_overridden {
            let about = format!("{}: {} agents on one server", self.name, self.agents.len());
            match cli::parse(
                std::env::args_os(),
                self.config.clone(),
                self.name.clone(),
                env!("CARGO_PKG_VERSION"),
                about,
            )? {
                cli::Command::Printed => return Ok(()),
                cli::Command::Serve(config) => self.config = *config,
            }
        }
        a2a_runtime_core::logging::init(false);
        if self.config.stdio {
            return Err(Error::Config(
                "--stdio serves one agent: a host serves its agents over HTTP (each at \
                 /{id}/mcp)"
                    .into(),
            ));
        }
        if self.store.is_none() {
            let location = self.config.served_store(&self.name);
            if !matches!(location, StoreLocation::Memory) {
                eprintln!("tasks:        {location}");
            }
            self.store = Some(open_store(&location, &self.config.limits).await?);
            self.store_location = Some(location);
        }
        let listener = tokio::net::TcpListener::bind(self.config.bind)
            .await
            .map_err(|source| Error::Bind {
                addr: self.config.bind,
                source,
            })?;
        super::listener::check_descriptor_limit(self.config.limits.max_connections);
        let stop = CancellationToken::new();
        shutdown::on_signals(stop.clone())?;
        let served = self.serve_until(listener, stop, true).await;
        shutdown::start_watchdog();
        served
    }

    /// Serves on `listener` with this builder's configuration (no flags are read) until the
    /// [`shutdown_signal`](Self::shutdown_signal) token is cancelled.
    pub async fn serve_on(mut self, listener: tokio::net::TcpListener) -> Result<(), Error> {
        if let (None, Some(location)) = (&self.store, self.config.store.clone()) {
            self.store = Some(open_store(&location, &self.config.limits).await?);
            self.store_location = Some(location);
        }
        self.serve_until(listener, CancellationToken::new(), false)
            .await
    }

    async fn serve_until(
        self,
        listener: tokio::net::TcpListener,
        stop: CancellationToken,
        announce: bool,
    ) -> Result<(), Error> {
        if let Some(signal) = self.shutdown.clone() {
            let stop = stop.clone();
            tokio::spawn(async move {
                signal.cancelled().await;
                stop.cancel();
            });
        }
        let bound = http::bound_config(&self.config, &listener)?;
        let base = bound.base_url();
        // Scopes and credentials are gathered only for an authorization server.
        let deployed = match oauth::Plan::of(self.oauth.as_ref(), &self.config.oauth)? {
            Some(plan) => {
                let location = self.store_location.as_ref();
                let (scopes, auth) = (self.skill_scopes()?, self.server_auth()?);
                let resources = self.resources(&base);
                Some(
                    plan.deploy_at(&bound, location, resources, scopes, &auth)
                        .await?,
                )
            }
            None => None,
        };
        let apps = self.build(CancellationToken::new(), deployed.as_ref(), &base)?;
        super::observe::open(&apps, self.store_location.as_ref()).await?;
        a2a_runtime_core::app::start_all(&apps).await?;
        if let Some(deployed) = &deployed {
            deployed.sweep_until(stop.clone());
            if announce {
                eprintln!("OAuth:        {}", deployed.metadata_url());
            }
        }
        let routes = routes::routes(&self, &apps, &bound, deployed.as_ref())?;
        let router = routes.router.merge(self.routes.clone());
        let front = Front::new(router, routes.guard, routes.direct);
        http::warn_if_open(&apps, &bound, announce);
        if announce {
            let base = bound.base_url();
            eprintln!("agents:       {base}agents");
            eprintln!("A2A JSON-RPC: {base}");
            eprintln!(
                "              (the agent named by `tenant`; each agent also at its own URL)"
            );
            if self.shared_mcp {
                eprintln!("MCP:          {base}mcp (every agent's tools)");
            }
            for hosted in &self.agents {
                let id = &hosted.id;
                eprintln!("  {id:<12} {base}{id}/  MCP: {base}{id}/mcp");
            }
            if bound.console_enabled() {
                eprintln!("console:      {base}console (in a browser)");
            }
        }
        http::serve_front(&apps, &bound, front, listener, stop).await
    }

    /// Every scope the agents' skills need.
    fn skill_scopes(&self) -> Result<Vec<String>, Error> {
        let mut scopes = std::collections::BTreeSet::new();
        for hosted in &self.agents {
            scopes.extend(hosted.server.skill_scopes()?);
        }
        Ok(scopes.into_iter().collect())
    }

    /// The host's credentials, with the flags' added: they authenticate its administrators.
    fn server_auth(&self) -> Result<AuthConfig, Error> {
        let mut auth = AuthConfig {
            api_keys: self.api_keys.clone(),
            jwt: self.jwt.clone(),
            jwt_issuers: self.jwt_issuers.clone(),
            scope_implies: self.scope_implies.clone(),
            client_certificates: self.config.tls.client_ca.is_some(),
            ..AuthConfig::default()
        };
        self.config.auth.apply(&mut auth)?;
        Ok(auth)
    }

    /// The resources of the host at `base` tokens may be issued for: the shared MCP endpoint
    /// (the default), each agent's MCP endpoint and URL, and the root (tenants).
    fn resources(&self, base: &str) -> Vec<String> {
        let trimmed = base.trim_end_matches('/');
        let shared = self
            .shared_mcp
            .then(|| format!("{trimmed}{}", http::MCP_PATH));
        let ids = self.ids();
        shared
            .into_iter()
            .chain(
                ids.iter()
                    .map(|id| format!("{trimmed}/{id}{}", http::MCP_PATH)),
            )
            .chain(ids.iter().map(|id| format!("{base}{id}/")))
            .chain([base.to_owned()])
            .collect()
    }

    /// The resources whose tokens agent `id` accepts: its own, the shared MCP endpoint and the
    /// root, which reach it too.
    fn audiences(&self, base: &str, id: &str) -> Vec<String> {
        let trimmed = base.trim_end_matches('/');
        let shared = self
            .shared_mcp
            .then(|| format!("{trimmed}{}", http::MCP_PATH));
        shared
            .into_iter()
            .chain([
                format!("{trimmed}/{id}{}", http::MCP_PATH),
                format!("{base}{id}/"),
                base.to_owned(),
            ])
            .collect()
    }

    /// The agents' ids, in the order added.
    fn ids(&self) -> Vec<&str> {
        self.agents
            .iter()
            .map(|hosted| hosted.id.as_str())
            .collect()
    }

    /// The primary agent's id.
    fn primary_id(&self) -> Option<&str> {
        self.primary
            .as_deref()
            .or_else(|| self.agents.first().map(|hosted| hosted.id.as_str()))
    }
}
