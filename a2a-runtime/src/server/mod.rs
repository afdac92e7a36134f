#![doc = include_str!("../../docs/configuration.md")]

mod build;
mod cli;
mod config;
mod console;
mod front;
mod guard;
pub mod host;
mod http;
mod in_flight;
mod listener;
mod oauth;
mod observe;
mod peers;
mod shutdown;
mod startup;
mod tasks;
#[cfg(feature = "tls")]
mod tls;
#[cfg(not(feature = "tls"))]
#[path = "no_tls.rs"]
mod tls;

use std::any::{Any, TypeId};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;

pub use a2a_runtime_core::error::Error;
pub use a2a_runtime_core::limits::Limits;
pub use config::{AuthSettings, PushOptions, ServeConfig, StoreLocation, TlsSettings};
pub use host::{AgentCatalog, CatalogEntry, Host};
pub use oauth::OAuthOptions;
pub use observe::ObserveOptions;
pub use tasks::{Tasks, TasksError};
/// Re-exported: [`AgentServer::shutdown_signal`] takes one.
pub use tokio_util::sync::CancellationToken;

use a2a_runtime_core::agent::Agent;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::{
    ApiKeys, AuthConfig, Authenticator, JwtConfig, NamedScheme, Security,
};
use a2a_runtime_core::content::{Catalog, ResourceUpdates};
use a2a_runtime_core::descriptor::{AgentDescriptor, SkillDef, SkillDescriptor};
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::observe::CallObserver;
use a2a_runtime_core::push::{PushSettings, Pusher};
use a2a_runtime_core::quota::{QuotaLimits, Quotas};
use a2a_runtime_core::registry::Registry;
use a2a_runtime_core::task::{
    InMemoryTaskStore, MemoryStoreLimits, Observers, SharedTasks, TaskConfig, TaskManager,
    TaskStore,
};
#[cfg(feature = "postgres")]
use a2a_runtime_sql::{PostgresStoreOptions, PostgresTaskStore};
#[cfg(feature = "sqlite")]
use a2a_runtime_sql::{SqliteStoreOptions, SqliteTaskStore};
use a2a_runtime_types::model::TaskObserver;

/// The default request body limit for A2A and MCP requests.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// Builds a server for one agent.
///
/// ```no_run
/// # use a2a_runtime::prelude::*;
/// # /// Doc.
/// # #[agent] struct Hello;
/// # /// Greets.
/// # #[skill(agent = Hello)] async fn greet(name: String) -> String { name }
/// # async fn run() -> Result<(), a2a_runtime::Error> {
/// let app: axum::Router = Hello.server().public_url("https://agents.example/hello/").router()?;
/// # Ok(()) }
/// ```
pub struct AgentServer {
    state: Arc<dyn Any + Send + Sync>,
    agent: &'static AgentDescriptor,
    agent_type: TypeId,
    skills: Vec<&'static SkillDescriptor>,
    store: Option<Arc<dyn TaskStore>>,
    config: ServeConfig,
    config_overridden: bool,
    require_version_header: bool,
    rest_prefix: String,
    handle: Tasks,
    /// Announces changed resources to subscribed MCP sessions.
    resource_updates: ResourceUpdates,
    routes: Router,
    shutdown: Option<CancellationToken>,
    /// What verifies credentials, as the builder set it (flags and environment add to it).
    auth: AuthConfig,
    /// Schemes declared with the builder.
    schemes: Vec<NamedScheme>,
    /// Where `serve()` opened the task store (grants of an authorization server go beside).
    store_location: Option<StoreLocation>,
    /// The application's authorization server, if it configures one.
    oauth: Option<oauth::Settings>,
    /// The application's observers of calls, tasks and operations.
    observers: Vec<Arc<dyn CallObserver>>,
}

impl std::fmt::Debug for AgentServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentServer")
            .field("agent", &self.agent.name())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AgentServer {
    /// A server for `agent` with default settings.
    pub fn new<A: Agent>(agent: A) -> Self {
        Self {
            state: Arc::new(agent),
            agent: A::__descriptor(),
            agent_type: TypeId::of::<A>(),
            skills: Vec::new(),
            store: None,
            config: ServeConfig::default(),
            config_overridden: false,
            require_version_header: false,
            rest_prefix: String::new(),
            handle: Tasks::default(),
            resource_updates: ResourceUpdates::new(),
            routes: Router::new(),
            shutdown: None,
            auth: AuthConfig::default(),
            schemes: Vec::new(),
            store_location: None,
            oauth: None,
            observers: Vec::new(),
        }
    }

    /// Serves metrics and queues observers as `options` say (flags and environment variables
    /// still override them in `serve()`):
    ///
    /// ```
    /// # use a2a_runtime::server::ObserveOptions;
    /// let mut observe = ObserveOptions::default();
    /// observe.metrics = true; // `/metrics`, for Prometheus (the `metrics` feature)
    /// # let _ = observe;
    /// ```
    #[must_use]
    pub fn observe_options(mut self, options: ObserveOptions) -> Self {
        self.config.observe = options;
        self
    }

    /// Reports every call, task state change, operation, store write and push delivery to
    /// `observer`, on a thread of its own behind a bounded queue (see [`CallObserver`]): what
    /// the server does, for billing, audit or analytics of the application's own.
    #[must_use]
    pub fn observe(mut self, observer: impl CallObserver) -> Self {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Accepts these API keys (in the `X-API-Key` header unless a declared `ApiKey` scheme
    /// names another place). `A2A_API_KEYS` / `--api-keys` add to them.
    #[must_use]
    pub fn api_keys(mut self, keys: ApiKeys) -> Self {
        self.auth.api_keys.extend(keys);
        self
    }

    /// Verifies bearer JWTs this way (for the declared `Bearer`, `OAuth2` or `OpenIdConnect`
    /// scheme, or a `bearer` scheme added for it). `A2A_JWT_SECRET` / `A2A_JWKS_URL` and their
    /// flags replace it.
    #[must_use]
    pub fn jwt(mut self, jwt: JwtConfig) -> Self {
        self.auth.jwt = Some(jwt);
        self
    }

    /// Also accepts bearer JWTs of another issuer, for the same schemes: a token is verified
    /// with the keys of the issuer its `iss` names, so `jwt` must set its
    /// [`issuer`](JwtConfig::issuer). `--jwt-trusted-issuer` adds more.
    #[must_use]
    pub fn trust_issuer(mut self, jwt: JwtConfig) -> Self {
        self.auth.jwt_issuers.push(jwt);
        self
    }

    /// Scopes that grant others: a caller granted `parent` holds `children` too (a granted
    /// wildcard such as `mcp:tools:*` covers the scopes below it without this).
    /// `--scope-implies` adds more.
    #[must_use]
    pub fn scope_implies<S: Into<String>>(
        mut self,
        parent: impl Into<String>,
        children: impl IntoIterator<Item = S>,
    ) -> Self {
        self.auth.scope_implies =
            std::mem::take(&mut self.auth.scope_implies).imply(parent, children);
        self
    }

    /// Declares a security scheme (for values known only at run time; `#[agent(security(..))]`
    /// declares them in code). It is published in the card and enforced on every request.
    #[must_use]
    pub fn security_scheme(mut self, scheme: NamedScheme) -> Self {
        self.schemes.push(scheme);
        self
    }

    /// Declares `scheme`, verified by `authenticator` (a scheme of the application's own, or a
    /// built-in kind verified differently).
    #[must_use]
    pub fn authenticator(mut self, scheme: NamedScheme, authenticator: impl Authenticator) -> Self {
        self.auth.custom.push((scheme, Arc::new(authenticator)));
        self
    }

    /// Registers a skill explicitly (for targets without link-time registration):
    /// `.skill::<convert>()`.
    #[must_use]
    pub fn skill<S: SkillDef>(mut self) -> Self {
        self.skills.push(S::DESCRIPTOR);
        self
    }

    /// Keeps tasks in `store` instead of the default (a SQLite file under `serve()`, memory
    /// otherwise; see [`ServeConfig::store`]).
    #[must_use]
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// The limits of the default in-memory store (also set by [`limits`](Self::limits):
    /// `max_tasks`, `max_store_bytes`, `task_ttl`).
    #[must_use]
    pub fn memory_store_limits(mut self, limits: MemoryStoreLimits) -> Self {
        self.config.limits.max_tasks = limits.max_tasks;
        self.config.limits.max_store_bytes = limits.max_bytes;
        self.config.limits.task_ttl = limits.ttl;
        self
    }

    /// Sets the whole configuration; `serve()` then reads no flags or environment variables.
    #[must_use]
    pub fn config(mut self, config: ServeConfig) -> Self {
        self.config = config;
        self.config_overridden = true;
        self
    }

    /// Sets every limit at once (flags and environment variables still override them in
    /// `serve()`):
    ///
    /// ```
    /// # use a2a_runtime::server::Limits;
    /// let mut limits = Limits::default();
    /// limits.max_running_per_caller = 10;
    /// limits.shutdown_timeout = std::time::Duration::from_secs(10);
    /// # let _ = limits;
    /// ```
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Sets how push notifications are delivered, or turns them off (flags and environment
    /// variables still override them in `serve()`):
    ///
    /// ```
    /// # use a2a_runtime::server::PushOptions;
    /// let mut push = PushOptions::default();
    /// push.enabled = false; // every push config operation answers -32003
    /// # let _ = push;
    /// ```
    #[must_use]
    pub fn push(mut self, options: PushOptions) -> Self {
        self.config.push = options;
        self
    }

    /// The URL clients reach this agent at (published in the agent card).
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.config.public_url = Some(url.into());
        self
    }

    /// The largest request body accepted (default 1 MiB); larger requests get HTTP 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.config.limits.max_body_bytes = bytes;
        self
    }

    /// Mounts the A2A HTTP+JSON routes under `prefix` (such as `/rest`) instead of the root,
    /// for example to keep them apart from application routes; the agent card names it.
    #[must_use]
    pub fn rest_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.rest_prefix = prefix.into();
        self
    }

    /// Rejects A2A 1.0 requests that carry no `A2A-Version` header (a missing header means 0.3,
    /// which has no such methods); by default they are served as 1.0.
    #[must_use]
    pub fn require_version_header(mut self, require: bool) -> Self {
        self.require_version_header = require;
        self
    }

    /// How long a cancelled skill may keep running before it is stopped (default 5 s).
    #[must_use]
    pub fn cancel_grace(mut self, grace: Duration) -> Self {
        self.config.limits.cancel_grace = grace;
        self
    }

    /// Events buffered per task for stream subscribers (default 256). A subscriber that falls
    /// further behind is not waited for: its stream continues with a fresh task snapshot.
    #[must_use]
    pub fn stream_buffer(mut self, events: usize) -> Self {
        self.config.limits.stream_buffer = events;
        self
    }

    /// How often an idle SSE stream gets a keep-alive comment (default 15 s), so proxies do not
    /// close it.
    #[must_use]
    pub fn sse_keep_alive(mut self, interval: Duration) -> Self {
        self.config.limits.sse_keep_alive = interval;
        self
    }

    /// How long a question from [`TaskContext::ask`](crate::skills::TaskContext::ask) or
    /// [`require_auth`](crate::skills::TaskContext::require_auth) waits for its answer (default 15
    /// minutes). An A2A task still unanswered then fails with a message saying so; the skill's
    /// `ask` returns [`AskError::Expired`](crate::ask::AskError::Expired).
    #[must_use]
    pub fn input_timeout(mut self, timeout: Duration) -> Self {
        self.config.limits.input_timeout = timeout;
        self
    }

    /// The most calls that may wait for answers at once, over both protocols (default
    /// 10 000). A skill asking beyond it gets [`AskError::Capacity`](crate::ask::AskError::Capacity).
    #[must_use]
    pub fn max_waiting_tasks(mut self, max: usize) -> Self {
        self.config.limits.max_waiting_tasks = max;
        self
    }

    /// A handle on this server's tasks for application code, such as an OAuth callback route
    /// that calls [`Tasks::authorize`] for a task waiting in `TASK_STATE_AUTH_REQUIRED`. Take
    /// it before [`router`](Self::router) or [`serve`](Self::serve); it works once the server
    /// is built.
    pub fn tasks(&self) -> Tasks {
        self.handle.clone()
    }

    /// A handle that tells subscribed MCP clients a resource changed
    /// (`notifications/resources/updated`). Usable at any time, from anywhere.
    pub fn resource_updates(&self) -> ResourceUpdates {
        self.resource_updates.clone()
    }

    /// Adds application routes (an OAuth callback that calls [`Tasks::authorize`], a status
    /// page) to the server's own. They are served beside the A2A and MCP endpoints and must not
    /// reuse their paths.
    #[must_use]
    pub fn routes(mut self, routes: Router) -> Self {
        self.routes = self.routes.merge(routes);
        self
    }

    /// How long an MCP `tools/call` may run before the server answers with a task handle, when
    /// the client supports the MCP tasks extension (default 250 ms). Quicker calls are answered
    /// with their result; `Duration::ZERO` makes every such call a task.
    #[must_use]
    pub fn mcp_task_after(mut self, after: Duration) -> Self {
        self.config.limits.mcp_task_after = after;
        self
    }

    /// The application's shutdown token. With [`router`](Self::router), cancel it when your
    /// own server starts its graceful shutdown: open A2A streams and MCP sessions end, which
    /// would otherwise hold that shutdown for as long as their tasks run. With
    /// [`serve`](Self::serve) or [`serve_on`](Self::serve_on), cancelling it starts the same
    /// graceful shutdown as SIGTERM.
    #[must_use]
    pub fn shutdown_signal(mut self, signal: CancellationToken) -> Self {
        self.shutdown = Some(signal);
        self
    }

    /// The A2A and MCP endpoints as an axum router, to serve or to mount in an existing app.
    /// Validates the skill registry and the configuration. Connection limits, timeouts and
    /// graceful shutdown are the serving application's; per-caller limits key on the peer
    /// address when the router is served with
    /// `into_make_service_with_connect_info::<SocketAddr>()`, else all callers share one quota.
    ///
    /// Tasks an earlier run left unfinished in a durable store are settled in the background
    /// (call it inside a Tokio runtime).
    pub fn router(self) -> Result<Router, Error> {
        if let (None, Some(location @ (StoreLocation::Sqlite(_) | StoreLocation::Postgres(_)))) =
            (&self.store, &self.config.store)
        {
            return Err(Error::Config(format!(
                "the store {location} is opened asynchronously: pass \
                 `SqliteTaskStore::open(..).await?` or `PostgresTaskStore::connect(..).await?` to \
                 `.store(..)`, or serve with `serve()` / `serve_on()`"
            )));
        }
        let resources = oauth::single_agent_resources(&self.config.base_url());
        let deployed = match oauth::Plan::of(self.oauth.as_ref(), &self.config.oauth)? {
            Some(plan) => Some(plan.deploy_at_once(
                &self.config,
                resources.clone(),
                self.skill_scopes()?,
                &self.server_auth()?,
            )?),
            None => None,
        };
        let agent_oauth = deployed.as_ref().map(|d| d.for_agent(&resources));
        let shutdown = self.shutdown.clone().unwrap_or_default();
        let app = self.build(shutdown.clone(), agent_oauth.as_ref())?;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let starting = Arc::clone(&app);
            runtime.spawn(async move {
                // Usage records of a router are kept in memory (its store is the caller's).
                let apps = std::slice::from_ref(&starting);
                if let Err(error) = observe::open(apps, None).await {
                    tracing::error!(%error, "the usage store could not be opened");
                }
                if let Err(error) = starting.start().await {
                    tracing::error!(%error, "settling tasks left by an earlier run failed");
                }
            });
            if let Some(deployed) = &deployed {
                deployed.sweep_until(shutdown);
            }
        }
        let guarded = deployed.as_ref().map(oauth::Deployed::router);
        Ok(http::router(app, &self.config, guarded)?.merge(self.routes))
    }

    /// Serves the agent until SIGTERM or Ctrl-C: over HTTP (A2A and MCP), or MCP over stdio
    /// with `--stdio`. Unless [`AgentServer::config`] was called, command-line flags and
    /// environment variables override the builder's settings (`--help` lists them); `--help`
    /// and `--version` print and return. The first signal starts a graceful shutdown bounded by
    /// `--shutdown-timeout`; a second exits at once.
    pub async fn serve(mut self) -> Result<(), Error> {
        if !self.config_overridden {
            let binary = cli::program_name();
            let about = format!("{}: {}", self.agent.name(), self.agent.description());
            match cli::parse(
                std::env::args_os(),
                self.config.clone(),
                binary,
                self.agent.version(),
                about,
            )? {
                cli::Command::Printed => return Ok(()),
                cli::Command::Serve(config) => self.config = *config,
            }
        }
        a2a_runtime_core::logging::init(self.config.stdio);
        if self.store.is_none() {
            // Over stdio each MCP host session is a process of its own (hosts often start
            // several), so its tasks stay in memory unless a store is named.
            let location = match (&self.config.store, self.config.stdio) {
                (None, true) => StoreLocation::Memory,
                _ => self.config.served_store(self.agent.name()),
            };
            if !matches!(location, StoreLocation::Memory) && !self.config.stdio {
                eprintln!("tasks:        {location}");
            }
            self.store = Some(self.open_store(&location).await?);
            self.store_location = Some(location);
        }
        if self.config.stdio {
            let app = self.build(CancellationToken::new(), None)?;
            observe::open(std::slice::from_ref(&app), self.store_location.as_ref()).await?;
            app.start().await?;
            return http::serve_stdio(app).await;
        }
        let listener = tokio::net::TcpListener::bind(self.config.bind)
            .await
            .map_err(|source| Error::Bind {
                addr: self.config.bind,
                source,
            })?;
        listener::check_descriptor_limit(self.config.limits.max_connections);
        let stop = CancellationToken::new();
        shutdown::on_signals(stop.clone())?;
        let served = self.serve_until(listener, stop, true).await;
        shutdown::start_watchdog();
        served
    }

    /// Serves HTTP (A2A and MCP) on `listener` with this builder's configuration (no flags are
    /// read) until the [`shutdown_signal`](Self::shutdown_signal) token is cancelled, then shuts
    /// down gracefully as [`serve`](Self::serve) does. For tests, socket activation, or a port
    /// bound early.
    pub async fn serve_on(mut self, listener: tokio::net::TcpListener) -> Result<(), Error> {
        if let (None, Some(location)) = (&self.store, self.config.store.clone()) {
            self.store = Some(self.open_store(&location).await?);
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
        let resources = oauth::single_agent_resources(&bound.base_url());
        // Scopes and credentials are gathered only for an authorization server.
        let deployed = match oauth::Plan::of(self.oauth.as_ref(), &self.config.oauth)? {
            Some(plan) => {
                let location = self.store_location.as_ref();
                let (scopes, auth) = (self.skill_scopes()?, self.server_auth()?);
                Some(
                    plan.deploy_at(&bound, location, resources.clone(), scopes, &auth)
                        .await?,
                )
            }
            None => None,
        };
        let agent_oauth = deployed.as_ref().map(|d| d.for_agent(&resources));
        let app = self.build(CancellationToken::new(), agent_oauth.as_ref())?;
        observe::open(std::slice::from_ref(&app), self.store_location.as_ref()).await?;
        app.start().await?;
        if let Some(deployed) = &deployed {
            deployed.sweep_until(stop.clone());
            if announce {
                eprintln!("OAuth:        {}", deployed.metadata_url());
            }
        }
        let guarded = deployed.as_ref().map(oauth::Deployed::router);
        http::serve_http(
            app,
            &self.config,
            self.routes,
            guarded,
            listener,
            stop,
            announce,
        )
        .await
    }

    /// Every scope the agent's skills need.
    fn skill_scopes(&self) -> Result<Vec<String>, Error> {
        let registry = self.registry()?;
        Ok(registry.scopes().into_keys().map(str::to_owned).collect())
    }

    /// The server's credentials: the builder's, with the flags' added.
    fn server_auth(&self) -> Result<AuthConfig, Error> {
        let mut auth = self.auth.clone();
        self.config.auth.apply(&mut auth)?;
        auth.client_certificates = self.config.tls.client_ca.is_some();
        Ok(auth)
    }
}
