//! A server's one lifecycle, whatever its agents: read the command line, open the store,
//! deploy the authorization server, build every agent, open the usage store, settle what an
//! earlier run left, assemble the routes, announce them, serve until told to stop.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio_util::sync::CancellationToken;

use super::config::StoreLocation;
use super::mcp::Agents;
use super::mounts::Mounts;
use super::settings::ServerSettings;
use super::storage::Storage;
use super::transport::{self, Front};
use super::{cli, http, oauth, observe, routes};
use a2a_runtime_core::app::{App, start_all};
use a2a_runtime_core::auth::AuthConfig;
use a2a_runtime_core::error::Error;
use a2a_runtime_mcp::McpHandler;

/// A server on its way to serving: its own settings and its agents where they sit.
pub(crate) struct Lifecycle {
    server: ServerSettings,
    mounts: Mounts,
}

impl Lifecycle {
    /// `server` serving `mounts`.
    pub(crate) fn new(server: ServerSettings, mounts: Mounts) -> Self {
        Self { server, mounts }
    }

    /// The routes of `mounts`, to serve or to mount in an existing app (see
    /// `AgentServer::router`).
    pub(crate) fn router(self) -> Result<Router, Error> {
        let mounts = &self.mounts;
        if let (None, Some(location @ (StoreLocation::Sqlite(_) | StoreLocation::Postgres(_)))) =
            (&self.server.store, &self.server.config.store)
        {
            return Err(Error::Config(format!(
                "the store {location} is opened asynchronously: pass \
                 `SqliteTaskStore::open(..).await?` or `PostgresTaskStore::connect(..).await?` to \
                 `.store(..)`, or serve with `serve()` / `serve_on()`"
            )));
        }
        let base = self.server.config.base_url();
        let deployed = match oauth::Plan::of(self.server.oauth.as_ref(), &self.server.config.oauth)?
        {
            Some(plan) => {
                let (scopes, admins) = (mounts.skill_scopes()?, self.admin_auth()?);
                let resources = mounts.resources(&base);
                Some(plan.deploy_at_once(&self.server.config, resources, scopes, &admins)?)
            }
            None => None,
        };
        let shutdown = self.server.shutdown.clone().unwrap_or_default();
        let apps = mounts.build(&self.server, shutdown.clone(), deployed.as_ref(), &base)?;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let starting = apps.clone();
            runtime.spawn(async move {
                // Usage records of a router are kept in memory (its store is the caller's).
                if let Err(error) = observe::open(&starting, None).await {
                    tracing::error!(%error, "the usage store could not be opened");
                }
                if let Err(error) = start_all(&starting).await {
                    tracing::error!(%error, "settling tasks left by an earlier run failed");
                }
            });
            if let Some(deployed) = &deployed {
                deployed.sweep_until(shutdown);
            }
        }
        // A router's application decides when it stops serving; its health check never drains.
        let serving = routes::Serving::default();
        let config = &self.server.config;
        let assembled = routes::assemble(mounts, &apps, config, deployed.as_ref(), &serving)?;
        Ok(assembled.router.merge(self.server.routes))
    }

    /// Serves `mounts` until SIGTERM or Ctrl-C, reading flags and environment variables
    /// unless the whole configuration was given (see `AgentServer::serve`).
    pub(crate) async fn serve(mut self) -> Result<(), Error> {
        if !self.server.config_overridden {
            let identity = self.mounts.identity();
            let args = std::env::args_os();
            let defaults = self.server.config.clone();
            let (program, version) = (identity.program, identity.version);
            match cli::parse(args, defaults, program, version, identity.about)? {
                cli::Command::Printed => return Ok(()),
                cli::Command::Serve(config) => self.server.config = *config,
            }
        }
        self.mounts.mount_remotes(&self.server.config.remotes)?;
        if self.server.config.print_manifests {
            return self.print_manifests();
        }
        a2a_runtime_core::logging::init(self.server.config.stdio);
        if self.server.store.is_none() {
            // Over stdio each MCP host session is a process of its own (hosts often start
            // several), so its tasks stay in memory unless a store is named.
            let location = match (&self.server.config.store, self.server.config.stdio) {
                (None, true) => StoreLocation::Memory,
                _ => self
                    .server
                    .config
                    .served_store(&self.mounts.identity().name),
            };
            if !matches!(location, StoreLocation::Memory) && !self.server.config.stdio {
                eprintln!("tasks:        {location}");
            }
            self.open_storage(&location).await?;
        }
        if self.server.config.stdio {
            return self.serve_stdio().await;
        }
        let bind = self.server.config.bind;
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .map_err(|source| Error::Bind { addr: bind, source })?;
        transport::check_descriptor_limit(self.server.config.limits.max_connections);
        let draining = CancellationToken::new();
        transport::on_signals(draining.clone())?;
        let listeners = http::Listeners::beside(listener, &self.server.config).await?;
        let served = self.serve_until(listeners, draining, true).await;
        transport::start_watchdog();
        served
    }

    /// Serves `mounts` on `listener` with this configuration (no flags are read) until the
    /// shutdown signal.
    pub(crate) async fn serve_on(mut self, listener: tokio::net::TcpListener) -> Result<(), Error> {
        if let (None, Some(location)) = (&self.server.store, self.server.config.store.clone()) {
            self.open_storage(&location).await?;
        }
        let listeners = http::Listeners::beside(listener, &self.server.config).await?;
        self.serve_until(listeners, CancellationToken::new(), false)
            .await
    }

    /// Opens what the server keeps at `location`: its task store, and the records beside it.
    async fn open_storage(&mut self, location: &StoreLocation) -> Result<(), Error> {
        let config = &self.server.config;
        let storage = Storage::open(location, &config.limits, config.replica_lease).await?;
        self.server.store = Some(storage.tasks());
        self.server.storage = Some(Arc::new(storage));
        Ok(())
    }

    /// Prints the discovery documents `mounts` would serve at the configured URL: one JSON
    /// object of path (from the server's root) → text. Nothing is opened or bound.
    fn print_manifests(self) -> Result<(), Error> {
        let mounts = &self.mounts;
        let base = self.server.config.base_url();
        let apps = mounts.build(&self.server, CancellationToken::new(), None, &base)?;
        let serving = routes::Serving::default();
        let assembled = routes::assemble(mounts, &apps, &self.server.config, None, &serving)?;
        let files: serde_json::Map<String, serde_json::Value> = assembled
            .documents
            .iter()
            .map(|(path, doc)| {
                let text = String::from_utf8_lossy(doc.bytes()).into_owned();
                (path.clone(), serde_json::Value::String(text))
            })
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({ "files": files }))
            .map_err(|e| Error::Config(format!("the documents could not be written: {e}")))?;
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}").map_err(|e| Error::Config(format!("stdout: {e}")))
    }

    /// MCP over stdin and stdout: the agent, or a host's agents as its shared endpoint has them.
    async fn serve_stdio(self) -> Result<(), Error> {
        let mounts = &self.mounts;
        let base = self.server.config.base_url();
        let apps = mounts.build(&self.server, CancellationToken::new(), None, &base)?;
        observe::open(&apps, self.server.storage.as_deref()).await?;
        start_all(&apps).await?;
        let handler = stdio_handler(mounts, &apps, &base)?;
        http::serve_stdio(handler, self.server.config.limits.max_body_bytes).await
    }

    /// Serves until `draining` is cancelled (a signal, or the application's shutdown token),
    /// then for the drain delay with the health check failing, then stops.
    async fn serve_until(
        self,
        listeners: http::Listeners,
        draining: CancellationToken,
        announce: bool,
    ) -> Result<(), Error> {
        if let Some(signal) = self.server.shutdown.clone() {
            let draining = draining.clone();
            tokio::spawn(async move {
                signal.cancelled().await;
                draining.cancel();
            });
        }
        let stop = CancellationToken::new();
        let delay = self.server.config.limits.drain_delay;
        tokio::spawn(stop_after_drain(draining.clone(), stop.clone(), delay));
        let bound = http::bound_config(&self.server.config, &listeners)?;
        let base = bound.base_url();
        // Remotes are read first: the scopes their skills need are the server's to grant.
        self.mounts.prepare().await;
        // Scopes and credentials are gathered only for an authorization server.
        let deployed = match oauth::Plan::of(self.server.oauth.as_ref(), &self.server.config.oauth)?
        {
            Some(plan) => {
                let storage = self.server.storage.as_deref();
                let (scopes, admins) = (self.mounts.skill_scopes()?, self.admin_auth()?);
                let resources = self.mounts.resources(&base);
                let deploying = plan.deploy_at(&bound, storage, resources, scopes, &admins);
                Some(deploying.await?)
            }
            None => None,
        };
        let apps = self.mounts.build(
            &self.server,
            CancellationToken::new(),
            deployed.as_ref(),
            &base,
        )?;
        observe::open(&apps, self.server.storage.as_deref()).await?;
        start_all(&apps).await?;
        if let Some(deployed) = &deployed {
            deployed.sweep_until(stop.clone());
        }
        let serving = routes::Serving {
            draining,
            mcp_sessions: self.kept_mcp_sessions().await?,
        };
        let assembled = routes::assemble(&self.mounts, &apps, &bound, deployed.as_ref(), &serving)?;
        let router = assembled.router.merge(self.server.routes);
        let front = Front::new(router, assembled.guard, assembled.direct);
        http::warn_if_open(&apps, &bound, announce);
        if announce {
            super::banner::announce(&self.mounts, &apps, &bound, deployed.as_ref());
        }
        http::serve_front(&apps, &bound, front, listeners, stop).await
    }

    /// Where MCP sessions are kept for other replicas and restarts to continue: the records
    /// beside a stored task store (none beside memory, where nothing outlives the process).
    async fn kept_mcp_sessions(
        &self,
    ) -> Result<
        Option<Arc<dyn rmcp::transport::streamable_http_server::session::SessionStore>>,
        Error,
    > {
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(storage) = &self.server.storage
            && !matches!(storage.location, StoreLocation::Memory)
        {
            let records = storage.records().await?;
            return Ok(Some(super::mcp_sessions::RecordSessions::shared(records)));
        }
        Ok(None)
    }

    /// The credentials of the server's administrators (of the authorization server's clients,
    /// of usage): the server's own with the flags', and those of an agent at the root, which
    /// is the server.
    fn admin_auth(&self) -> Result<AuthConfig, Error> {
        let mounts = &self.mounts;
        let mut auth = self.server.auth.clone();
        if mounts.hosting.is_none()
            && let Some(root) = mounts.agents.first()
        {
            auth.custom.extend(root.agent.auth.custom.iter().cloned());
        }
        self.server.config.auth.apply(&mut auth)?;
        auth.client_certificates = self.server.config.tls.client_ca.is_some();
        Ok(auth)
    }
}

/// Cancels `stop` once `draining` is and `delay` has passed: meanwhile the server answers as
/// before, its health check failing, so a balancer stops sending it requests before it stops
/// accepting them.
async fn stop_after_drain(draining: CancellationToken, stop: CancellationToken, delay: Duration) {
    draining.cancelled().await;
    if !delay.is_zero() {
        eprintln!(
            "draining: /healthz answers 503; serving for {} more before stopping",
            humantime::format_duration(delay)
        );
        tokio::time::sleep(delay).await;
    }
    stop.cancel();
}

/// The MCP server stdio serves: the root agent's own, or a host's shared one.
fn stdio_handler(mounts: &Mounts, apps: &[Arc<App>], base: &str) -> Result<McpHandler, Error> {
    let mut discovery = super::discovery::Discovery::of_agents(mounts, apps, base);
    let skills = discovery.all_skills_shelf();
    // The documents kept up to date as remotes change, as over HTTP.
    discovery.publish();
    let Some(hosting) = &mounts.hosting else {
        let app = apps
            .first()
            .ok_or_else(|| Error::Config("no agent to serve".into()))?;
        return Agents::One(app).handler(skills);
    };
    if !hosting.shared_mcp {
        return Err(Error::Config(
            "--stdio serves a host's agents as its shared MCP endpoint does, which \
             shared_mcp(false) turns off"
                .into(),
        ));
    }
    let description = mounts.shared_description();
    mounts.shared_agents(apps, &description).handler(skills)
}
