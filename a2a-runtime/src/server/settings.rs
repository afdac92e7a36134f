//! A server's own settings, apart from its agents': its configuration, store, credentials,
//! application routes, shutdown, observers and authorization server. [`AgentServer`] and
//! [`Host`] each hold one, and share the builder methods that set it (`server_builder!`).
//!
//! [`AgentServer`]: super::AgentServer
//! [`Host`]: super::Host

use std::sync::Arc;

use axum::Router;
use tokio_util::sync::CancellationToken;

use super::config::ServeConfig;
use super::oauth;
use super::storage::Storage;
use a2a_runtime_core::auth::AuthConfig;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::CallObserver;
use a2a_runtime_core::task::TaskStore;

/// See the module docs.
#[derive(Default)]
pub(crate) struct ServerSettings {
    pub(crate) config: ServeConfig,
    /// The whole configuration was given: `serve()` reads no flags.
    pub(crate) config_overridden: bool,
    /// Where tasks are kept, when the application gives the store itself.
    pub(crate) store: Option<Arc<dyn TaskStore>>,
    /// What the lifecycle opened where the configuration keeps tasks (the server's other
    /// records go beside them).
    pub(crate) storage: Option<Arc<Storage>>,
    /// Credentials every agent of the server accepts; they also authenticate its
    /// administrators.
    pub(crate) auth: AuthConfig,
    /// Application routes at the server's root.
    pub(crate) routes: Router,
    pub(crate) shutdown: Option<CancellationToken>,
    /// The application's authorization server, if it configures one.
    pub(crate) oauth: Option<oauth::AuthorizationServer>,
    /// The application's observers of every agent's calls, tasks and operations.
    pub(crate) observers: Vec<Arc<dyn CallObserver>>,
}

/// What [`AgentServer::serve`](crate::server::AgentServer::serve),
/// [`AgentServer::serve_on`](crate::server::AgentServer::serve_on) and their
/// [`Host`](crate::server::Host) twins return:
/// `.await` it, or spawn it (it is `Send`). Boxed where it is made, so the server's whole
/// connection loop is compiled once, in this crate: an `async fn` here would be compiled again
/// in every agent's crate that awaits it, which doubled an agent's rebuild after a one-line
/// edit.
pub type Serving = a2a_runtime_types::util::BoxFuture<'static, Result<(), Error>>;

/// The builder methods of a server's own settings, for a type with a `server: ServerSettings`
/// field.
macro_rules! server_builder {
    () => {
        /// Serves metrics and queues observers as `options` say (flags and environment
        /// variables still override them in `serve()`):
        ///
        /// ```
        /// # use a2a_runtime::server::ObserveOptions;
        /// let mut observe = ObserveOptions::default();
        /// observe.metrics = true; // `/metrics`, for Prometheus (the `metrics` feature)
        /// # let _ = observe;
        /// ```
        #[must_use]
        pub fn observe_options(
            mut self,
            options: $crate::server::observe::options::ObserveOptions,
        ) -> Self {
            self.server.config.observe = options;
            self
        }

        /// Reports every call, task state change, operation, store write and push delivery of
        /// every agent to `observer`, on a thread of its own behind a bounded queue (see
        /// [`CallObserver`](crate::observe::CallObserver)): what the server does,
        /// for billing, audit or analytics of the application's own. Each record names its
        /// agent.
        #[must_use]
        pub fn observe(mut self, observer: impl a2a_runtime_core::observe::CallObserver) -> Self {
            self.server.observers.push(std::sync::Arc::new(observer));
            self
        }

        /// Accepts these API keys for every agent (in the `X-API-Key` header unless a declared
        /// `ApiKey` scheme names another place). `A2A_API_KEYS` / `--api-keys` add to them.
        #[must_use]
        pub fn api_keys(mut self, keys: a2a_runtime_core::auth::ApiKeys) -> Self {
            self.server.auth.api_keys.extend(keys);
            self
        }

        /// Verifies bearer JWTs this way for every agent (for a declared `Bearer`, `OAuth2` or
        /// `OpenIdConnect` scheme, or a `bearer` scheme added for it). `A2A_JWT_SECRET` /
        /// `A2A_JWKS_URL` and their flags replace it.
        #[must_use]
        pub fn jwt(mut self, jwt: a2a_runtime_core::auth::JwtConfig) -> Self {
            self.server.auth.jwt = Some(jwt);
            self
        }

        /// Also accepts bearer JWTs of another issuer, for the same schemes: a token is
        /// verified with the keys of the issuer its `iss` names, so `jwt` must set its
        /// [`issuer`](crate::auth::JwtConfig::issuer). `--jwt-trusted-issuer` adds
        /// more.
        #[must_use]
        pub fn trust_issuer(mut self, jwt: a2a_runtime_core::auth::JwtConfig) -> Self {
            self.server.auth.jwt_issuers.push(jwt);
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
            let implies = std::mem::take(&mut self.server.auth.scope_implies);
            self.server.auth.scope_implies = implies.imply(parent, children);
            self
        }

        /// Keeps every agent's tasks in `store` instead of the default (a SQLite file under
        /// `serve()`, memory otherwise; see
        /// [`ServeConfig::store`](crate::server::ServeConfig::store)); each task knows its
        /// agent.
        #[must_use]
        pub fn store(mut self, store: impl a2a_runtime_core::task::TaskStore) -> Self {
            self.server.store = Some(std::sync::Arc::new(store));
            self
        }

        /// Sets the whole configuration; `serve()` then reads no flags or environment
        /// variables.
        #[must_use]
        pub fn config(mut self, config: $crate::server::config::ServeConfig) -> Self {
            self.server.config = config;
            self.server.config_overridden = true;
            self
        }

        /// Sets every limit at once: the server's (connections, shutdown, per-caller quotas)
        /// and every agent's without limits of its own (flags and environment variables still
        /// override them in `serve()`):
        ///
        /// ```
        /// # use a2a_runtime::server::Limits;
        /// let mut limits = Limits::default();
        /// limits.max_running_per_caller = 10;
        /// limits.shutdown_timeout = std::time::Duration::from_secs(10);
        /// # let _ = limits;
        /// ```
        #[must_use]
        pub fn limits(mut self, limits: a2a_runtime_core::limits::Limits) -> Self {
            self.server.config.limits = limits;
            self
        }

        /// The URL clients reach the server at (agent cards name it, or URLs below it).
        #[must_use]
        pub fn public_url(mut self, url: impl Into<String>) -> Self {
            self.server.config.public_url = Some(url.into());
            self
        }

        /// Adds application routes (an OAuth callback that calls
        /// [`Tasks::authorize`](crate::server::Tasks::authorize), a status page) to the
        /// server's own. They are served beside the A2A and MCP endpoints and must not reuse
        /// their paths.
        #[must_use]
        pub fn routes(mut self, routes: axum::Router) -> Self {
            self.server.routes = std::mem::take(&mut self.server.routes).merge(routes);
            self
        }

        /// The application's shutdown token. With `router()`, cancel it when your own server
        /// starts its graceful shutdown: open A2A streams and MCP sessions end, which would
        /// otherwise hold that shutdown for as long as their tasks run. With `serve()` or
        /// `serve_on()`, cancelling it starts the same graceful shutdown as SIGTERM.
        #[must_use]
        pub fn shutdown_signal(mut self, signal: tokio_util::sync::CancellationToken) -> Self {
            self.server.shutdown = Some(signal);
            self
        }

        /// Serves an OAuth 2.1 authorization server beside the agents, each of which accepts
        /// its tokens for its own resources (as an `oauth2` scheme, unless the agent declares a
        /// scheme that takes JWTs): hosted assistants and MCP clients register, send the user
        /// to sign in and consent, and call the agents with the tokens. The `--oauth-*` flags
        /// add to these settings.
        ///
        /// ```no_run
        /// # use a2a_runtime::prelude::*;
        /// use a2a_runtime::oauth::OAuthServer;
        /// # /// Doc.
        /// # #[agent(security(bearer))] struct Notes;
        /// # /// Reads.
        /// # #[skill(agent = Notes, scopes = ["notes:read"])] async fn read(id: u32) -> String { id.to_string() }
        /// # async fn run() -> Result<(), a2a_runtime::Error> {
        /// Notes
        ///     .server()
        ///     .authorization_server(OAuthServer::dev_user("alice"))
        ///     .serve()
        ///     .await
        /// # }
        /// ```
        #[cfg(feature = "oauth-server")]
        #[must_use]
        pub fn authorization_server(mut self, server: a2a_runtime_oauth::OAuthServer) -> Self {
            self.server.oauth = Some(server);
            self
        }

        /// The endpoints of every agent as an axum router, to serve or to mount in an existing
        /// app. Validates the skill registries and the configuration. Connection limits,
        /// timeouts and graceful shutdown are the serving application's; per-caller limits key
        /// on the peer address when the router is served with
        /// `into_make_service_with_connect_info::<SocketAddr>()`, else all callers share one
        /// quota.
        ///
        /// Tasks an earlier run left unfinished in a durable store are settled in the
        /// background (call it inside a Tokio runtime).
        pub fn router(self) -> Result<axum::Router, $crate::Error> {
            self.into_lifecycle().router()
        }

        /// Serves until SIGTERM or Ctrl-C: over HTTP (A2A and MCP), or MCP over stdio with
        /// `--stdio`. Unless `config()` was called, command-line flags and environment
        /// variables override the builder's settings (`--help` lists them); `--help` and
        /// `--version` print and return. The first signal starts a graceful shutdown bounded
        /// by `--shutdown-timeout`; a second exits at once.
        pub fn serve(self) -> $crate::server::settings::Serving {
            Box::pin(self.into_lifecycle().serve())
        }

        /// Serves HTTP (A2A and MCP) on `listener` with this builder's configuration (no flags
        /// are read) until the `shutdown_signal` token is cancelled, then shuts down gracefully
        /// as `serve()` does. For tests, socket activation, or a port bound early.
        pub fn serve_on(
            self,
            listener: tokio::net::TcpListener,
        ) -> $crate::server::settings::Serving {
            Box::pin(self.into_lifecycle().serve_on(listener))
        }
    };
}

pub(crate) use server_builder;
