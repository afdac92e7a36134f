//! The configuration of a served agent: where it listens, which hosts and origins it accepts,
//! and its [`Limits`]. The builder, the flags and the environment all set this one type.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use super::remotes::RemoteDecl;
use super::transport::{TlsSettings, TrustedProxies};
use a2a_runtime_core::auth::{ApiKeys, AuthConfig, JwtConfig, ScopeImplications};
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_types::model::Binding;

/// The default request body limit for A2A and MCP requests.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// Where and how a server listens, and its limits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServeConfig {
    /// Address to listen on (`--bind`, `A2A_BIND`; default `127.0.0.1:8080`).
    pub bind: SocketAddr,
    /// The URL clients use to reach the agent (`--public-url`, `A2A_PUBLIC_URL`). Defaults to
    /// `http://<bind>/`; required in practice when binding to all interfaces.
    pub public_url: Option<String>,
    /// A port of gRPC's own (`--grpc-bind`, `A2A_GRPC_BIND`; with the `grpc` feature): it
    /// answers gRPC alone, and the card's `GRPC` interface names it (the public URL's host at
    /// this port). `None`: gRPC is served on `bind` with every other binding.
    pub grpc_bind: Option<SocketAddr>,
    /// Serve MCP over stdin/stdout instead of HTTP (`--stdio`, `A2A_STDIO=1`).
    pub stdio: bool,
    /// Print the discovery documents (server cards, registry entries, `SKILL.md`s, catalogs)
    /// as one JSON object of path → text, and exit instead of serving (`--print-manifests`):
    /// what `a2a manifest` writes out for static hosting and registry publishing.
    pub print_manifests: bool,
    /// The browser console at `/console`, and at `/` for a browser asking for HTML
    /// (`--console`, `A2A_CONSOLE`). `None`: served on a loopback bind only.
    pub console: Option<bool>,
    /// A2A streaming (on unless `--no-streaming`, `A2A_NO_STREAMING`). Off, the card says
    /// `capabilities.streaming: false` and the streaming methods of every A2A version
    /// (`SendStreamingMessage`, `SubscribeToTask`, 0.3's `message/stream` and
    /// `tasks/resubscribe`) are refused as unsupported operations; MCP is unaffected.
    pub streaming: bool,
    /// Extra `Host` values accepted (`--allowed-host`, `A2A_ALLOWED_HOSTS`, comma separated).
    /// Loopback names are always accepted on loopback binds, and the public URL's host always.
    pub allowed_hosts: Vec<String>,
    /// Extra browser origins (`scheme://host[:port]`, `*` as the port for any) allowed to call
    /// the agent (`--allowed-origin`, `A2A_ALLOWED_ORIGINS`). Requests without `Origin`
    /// (non-browser clients) are unaffected.
    pub allowed_origins: Vec<String>,
    /// Origins allowed to read A2A and MCP responses cross-origin (CORS; `--cors-origin`,
    /// `A2A_CORS_ORIGINS`; `*` for any). The agent card is readable from any origin regardless.
    pub cors_origins: Vec<String>,
    /// Request headers those origins may send besides the protocols' own (`--cors-header`,
    /// `A2A_CORS_HEADERS`): what a browser client adds, such as a tracing header.
    pub cors_headers: Vec<String>,
    /// Remote A2A agents and MCP servers a host serves beside its own (`--remote-agent`,
    /// `--remote-mcp`, `--remote-mcp-stdio`, `--remotes FILE`; feature `remote`): see
    /// `Host::remote_agent` and `Host::remote_mcp`.
    pub remotes: Vec<RemoteDecl>,
    /// The reverse proxies in front of the server, whose `Forwarded` and `X-Forwarded-*`
    /// headers are believed (`--trusted-proxy`, `A2A_TRUSTED_PROXIES`; none by default).
    pub trusted_proxies: TrustedProxies,
    /// Limits on requests, tasks, callers, connections and shutdown.
    pub limits: Limits,
    /// Credentials the built-in security schemes verify.
    pub auth: AuthSettings,
    /// TLS: serve HTTPS, and verify client certificates.
    pub tls: TlsSettings,
    /// Where tasks are kept (`--store`, `A2A_STORE`). `None`: in memory for
    /// [`router`](crate::AgentServer::router) and [`serve_on`](crate::AgentServer::serve_on),
    /// and a SQLite file under [`data_dir`](Self::data_dir) for
    /// [`serve`](crate::AgentServer::serve) over HTTP (over `--stdio`, memory: each MCP host
    /// session is a process of its own).
    pub store: Option<StoreLocation>,
    /// Where `serve()` keeps its SQLite file when no `--store` is given (`--data-dir`,
    /// `A2A_DATA_DIR`; default `$XDG_DATA_HOME/a2a-runtime`, else
    /// `~/.local/share/a2a-runtime`): `<data-dir>/<agent name>/tasks.sqlite3`.
    pub data_dir: Option<PathBuf>,
    /// With a store replicas share (Postgres): how long a replica that stops renewing its lease
    /// counts as alive before survivors settle its tasks (`--replica-lease`; default 10 s).
    pub replica_lease: Option<std::time::Duration>,
    /// The secret MCP `requestState`s are sealed with (`--state-key`, at least 32 bytes). Give
    /// every replica the same one, so a retry may reach any of them; without it each process
    /// seals with a random key of its own.
    pub state_key: Option<String>,
    /// Push notifications: whether and how task updates are POSTed to webhooks.
    pub push: PushOptions,
    /// The authorization server for MCP connectors (the `oauth-server` feature).
    pub oauth: super::oauth::OAuthOptions,
    /// Metrics and the application's observers.
    pub observe: super::observe::options::ObserveOptions,
}

/// Push notification delivery (`capabilities.pushNotifications`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushOptions {
    /// Whether the agent delivers push notifications (default on; `--no-push`, `A2A_NO_PUSH=1`
    /// turns it off, and every push config operation then answers -32003).
    pub enabled: bool,
    /// Deliver to loopback, private, link-local and other internal addresses too
    /// (`--push-allow-private`; off by default: the SSRF guard refuses them). For local
    /// development and tests.
    pub allow_private: bool,
    /// How long one delivery attempt may take (`--push-timeout`; default 10 s).
    pub timeout: std::time::Duration,
    /// Attempts per delivery before it is given up (`--push-attempts`; default 8).
    pub attempts: u32,
    /// The pause before the first retry; later ones double, up to a minute, with jitter
    /// (`--push-retry`; default 1 s).
    pub first_retry: std::time::Duration,
    /// The most push configs one task may hold (default 10).
    pub max_configs_per_task: usize,
    /// Deliveries queued per config while its receiver is slow or down; beyond it the oldest
    /// is dropped (`--push-queue`; default 1000).
    pub queue_per_config: usize,
}

impl Default for PushOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            allow_private: false,
            timeout: std::time::Duration::from_secs(10),
            attempts: 8,
            first_retry: std::time::Duration::from_secs(1),
            max_configs_per_task: 10,
            queue_per_config: 1000,
        }
    }
}

/// Where tasks are kept.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreLocation {
    /// In memory, bounded; lost on restart (`--store memory`).
    Memory,
    /// In this SQLite file (`--store sqlite://PATH`), kept across restarts.
    Sqlite(PathBuf),
    /// In the PostgreSQL database at this URL (`--store postgres://…`), kept across restarts
    /// and shared by every replica on it.
    Postgres(String),
}

impl std::fmt::Debug for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("Memory"),
            Self::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Self::Postgres(_) => f.debug_tuple("Postgres").field(&self.to_string()).finish(),
        }
    }
}

/// Shows where tasks are kept, a database password left out.
impl std::fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str("memory"),
            Self::Sqlite(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => match url::Url::parse(url) {
                Ok(mut url) => {
                    if url.password().is_some() {
                        let _ = url.set_password(Some("***"));
                    }
                    write!(f, "{url}")
                }
                Err(_) => f.write_str("postgres://(unparsable URL)"),
            },
        }
    }
}

impl std::str::FromStr for StoreLocation {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "memory" {
            return Ok(Self::Memory);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return match url::Url::parse(text) {
                Ok(url) if url.host_str().is_some() => Ok(Self::Postgres(text.to_owned())),
                _ => Err(format!(
                    "`{}` is not a PostgreSQL URL: use postgres://USER:PASSWORD@HOST:PORT/DATABASE",
                    text.split('@').next_back().unwrap_or_default()
                )),
            };
        }
        let path = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"));
        match path {
            Some(path) if !path.is_empty() => Ok(Self::Sqlite(PathBuf::from(path))),
            _ => Err(format!(
                "`{text}` is not a task store: use `memory`, `sqlite://PATH` (a file, created if \
                 missing) or `postgres://USER:PASSWORD@HOST/DATABASE`"
            )),
        }
    }
}

impl ServeConfig {
    /// Whether the browser console is served: as configured, else on a loopback bind.
    pub fn console_enabled(&self) -> bool {
        self.console.unwrap_or_else(|| self.bind.ip().is_loopback())
    }

    /// The data directory: [`data_dir`](Self::data_dir), else the default
    /// (`$XDG_DATA_HOME/a2a-runtime`, else `~/.local/share/a2a-runtime`), for a tool that
    /// writes it into a configuration so the processes it starts agree on it.
    pub fn data_dir_or_default(&self) -> PathBuf {
        self.data_dir
            .clone()
            .unwrap_or_else(a2a_runtime_core::data_dir::default_data_dir)
    }

    /// Where `serve()` keeps tasks: the configured store, else `tasks.sqlite3` in a directory
    /// named after the agent under the data directory (in memory when the build leaves the
    /// `sqlite` feature out).
    pub(crate) fn served_store(&self, agent_name: &str) -> StoreLocation {
        if let Some(store) = &self.store {
            return store.clone();
        }
        if cfg!(not(feature = "sqlite")) {
            return StoreLocation::Memory;
        }
        StoreLocation::Sqlite(
            a2a_runtime_core::data_dir::agent_data_dir(self.data_dir.clone(), agent_name)
                .join("tasks.sqlite3"),
        )
    }
}

/// Credentials for the built-in security schemes, from flags and environment variables, so an
/// operator can secure an agent without changing its code. Secrets are redacted from `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthSettings {
    /// API keys, `principal=key` pairs separated by commas (`--api-keys`, `A2A_API_KEYS`);
    /// sent in the `X-API-Key` header unless the agent declares another place.
    pub api_keys: Option<String>,
    /// A file of `principal=key` lines (`--api-keys-file`, `A2A_API_KEYS_FILE`).
    pub api_keys_file: Option<PathBuf>,
    /// The HS256 secret of bearer JWTs (`--jwt-secret`, `A2A_JWT_SECRET`; 32 bytes or more).
    pub jwt_secret: Option<String>,
    /// The JWKS of RS256/ES256 bearer JWTs (`--jwks-url`, `A2A_JWKS_URL`).
    pub jwks_url: Option<String>,
    /// The `iss` bearer JWTs must carry (`--jwt-issuer`, `A2A_JWT_ISSUER`).
    pub jwt_issuer: Option<String>,
    /// The `aud` bearer JWTs must include, any one of (`--jwt-audience`, `A2A_JWT_AUDIENCE`).
    pub jwt_audience: Vec<String>,
    /// How long a verified bearer JWT is trusted before its signature is checked again
    /// (`--jwt-cache-ttl`, `A2A_JWT_CACHE_TTL`; default 60 s, `0s` checks every request).
    pub jwt_cache_ttl: Option<std::time::Duration>,
    /// More issuers whose bearer JWTs are accepted, each an OpenID Connect provider's issuer
    /// URL whose discovery document names its keys (`--jwt-trusted-issuer`,
    /// `A2A_JWT_TRUSTED_ISSUERS`); a token goes to the issuer its `iss` names.
    pub jwt_trusted_issuers: Vec<String>,
    /// Scopes that grant others, `parent=child child,…` (`--scope-implies`,
    /// `A2A_SCOPE_IMPLIES`).
    pub scope_implies: Option<String>,
}

impl std::fmt::Debug for AuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |set: bool| if set { "(redacted)" } else { "(none)" };
        f.debug_struct("AuthSettings")
            .field("api_keys", &redacted(self.api_keys.is_some()))
            .field("api_keys_file", &self.api_keys_file)
            .field("jwt_secret", &redacted(self.jwt_secret.is_some()))
            .field("jwks_url", &self.jwks_url)
            .field("jwt_issuer", &self.jwt_issuer)
            .field("jwt_audience", &self.jwt_audience)
            .field("jwt_cache_ttl", &self.jwt_cache_ttl)
            .field("jwt_trusted_issuers", &self.jwt_trusted_issuers)
            .field("scope_implies", &self.scope_implies)
            .finish()
    }
}

impl AuthSettings {
    /// The API keys and JWT verification these settings describe, over what the builder set
    /// (settings given here win).
    pub(crate) fn apply(&self, config: &mut AuthConfig) -> Result<(), Error> {
        let keys_error = |e: a2a_runtime_core::auth::ApiKeysError| Error::Config(e.to_string());
        if let Some(list) = &self.api_keys {
            config
                .api_keys
                .extend(ApiKeys::parse(list).map_err(keys_error)?);
        }
        if let Some(path) = &self.api_keys_file {
            config
                .api_keys
                .extend(ApiKeys::from_file(path).map_err(keys_error)?);
        }
        let keys = match (&self.jwt_secret, &self.jwks_url) {
            (Some(_), Some(_)) => {
                return Err(Error::Config(
                    "set one of --jwt-secret (A2A_JWT_SECRET) and --jwks-url (A2A_JWKS_URL), \
                     not both"
                        .into(),
                ));
            }
            (Some(secret), None) => Some(JwtConfig::hs256(secret)),
            (None, Some(url)) => Some(JwtConfig::jwks(url)),
            (None, None) => None,
        };
        if let Some(keys) = keys {
            config.jwt = Some(keys);
        }
        for issuer in &self.jwt_trusted_issuers {
            let issuer = issuer.trim_end_matches('/');
            let discovery = format!("{issuer}/.well-known/openid-configuration");
            config
                .jwt_issuers
                .push(JwtConfig::discover(discovery).issuer(issuer));
        }
        if let Some(text) = &self.scope_implies {
            let parsed = ScopeImplications::parse(text)
                .map_err(|reason| Error::Config(format!("--scope-implies: {reason}")))?;
            config.scope_implies.extend(&parsed);
        }
        // The verified-token cache applies to every bearer JWT verified: the keys configured
        // here, the trusted issuers', the authorization server's (`server/oauth/`).
        if let Some(ttl) = self.jwt_cache_ttl {
            for jwt in config.jwt.iter_mut().chain(config.jwt_issuers.iter_mut()) {
                jwt.cache_ttl = ttl;
            }
        }
        if self.jwt_issuer.is_some() || !self.jwt_audience.is_empty() {
            let Some(jwt) = config.jwt.as_mut() else {
                return Err(Error::Config(
                    "--jwt-issuer / --jwt-audience need --jwt-secret or --jwks-url".into(),
                ));
            };
            if let Some(issuer) = &self.jwt_issuer {
                jwt.issuer = Some(issuer.clone());
            }
            if !self.jwt_audience.is_empty() {
                jwt.audience = self.jwt_audience.clone();
            }
        }
        Ok(())
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080),
            public_url: None,
            grpc_bind: None,
            stdio: false,
            print_manifests: false,
            console: None,
            streaming: true,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            cors_origins: Vec::new(),
            cors_headers: Vec::new(),
            remotes: Vec::new(),
            trusted_proxies: TrustedProxies::default(),
            limits: Limits::default(),
            auth: AuthSettings::default(),
            tls: TlsSettings::default(),
            store: None,
            data_dir: None,
            replica_lease: None,
            state_key: None,
            push: PushOptions::default(),
            oauth: super::oauth::OAuthOptions::default(),
            observe: super::observe::options::ObserveOptions::default(),
        }
    }
}

/// A public URL every discovery URL is made from: http(s), a host, and nothing after the
/// path (a query or a fragment would end up in the middle of every URL made from it).
fn check_public_url(url: &str) -> Result<(), Error> {
    let refused = |why: &str| Err(Error::Config(format!("public URL `{url}` {why}")));
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return refused("must start with http:// or https://");
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return refused("is not a URL");
    };
    if parsed.host_str().is_none_or(str::is_empty) {
        return refused("names no host");
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return refused(
            "must not have a query (`?…`) or a fragment (`#…`): every discovery URL is made \
             by adding paths to it",
        );
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return refused("must not carry credentials (`user:password@`)");
    }
    Ok(())
}

impl ServeConfig {
    /// Checks the configuration; the error names the setting at fault.
    pub fn validate(&self) -> Result<(), Error> {
        self.observe.validate(self.bind)?;
        if let Some(url) = &self.public_url {
            check_public_url(url)?;
        }
        for origin in self.allowed_origins.iter().chain(&self.cors_origins) {
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            let well_formed = origin == "*"
                || authority.is_some_and(|a| !a.is_empty() && !a.contains(['/', ' ']));
            if !well_formed {
                return Err(Error::Config(format!(
                    "origin `{origin}` must look like https://app.example or http://localhost:3000"
                )));
            }
        }
        if let Some(name) = self
            .cors_headers
            .iter()
            .find(|name| http::HeaderName::from_bytes(name.trim().as_bytes()).is_err())
        {
            return Err(Error::Config(format!(
                "--cors-header `{name}` is not an HTTP header name"
            )));
        }
        match (&self.tls.cert, &self.tls.key) {
            (Some(_), None) => return Err(Error::Config("--tls-cert needs --tls-key".into())),
            (None, Some(_)) => return Err(Error::Config("--tls-key needs --tls-cert".into())),
            _ => {}
        }
        if self.grpc_bind.is_some() && !a2a_runtime_a2a::bindings::serves(Binding::Grpc) {
            return Err(Error::Config(
                "--grpc-bind serves gRPC, which this build leaves out: build a2a-runtime with \
                 its `grpc` feature"
                    .into(),
            ));
        }
        if self.tls.client_ca.is_some() && !self.tls.is_enabled() {
            return Err(Error::Config(
                "--tls-client-ca needs TLS: set --tls-cert and --tls-key".into(),
            ));
        }
        if self.push.attempts == 0 {
            return Err(Error::Config(
                "--push-attempts must be at least 1, or nothing would be delivered".into(),
            ));
        }
        if self.push.queue_per_config == 0 || self.push.max_configs_per_task == 0 {
            return Err(Error::Config(
                "--push-queue and the push configs per task must be at least 1".into(),
            ));
        }
        self.limits.validate()
    }

    /// The agent's base URL (ending in `/`): the public URL, or one derived from the bind
    /// address, never an unspecified address such as `0.0.0.0`.
    pub(crate) fn base_url(&self) -> String {
        if let Some(url) = &self.public_url {
            return if url.ends_with('/') {
                url.clone()
            } else {
                format!("{url}/")
            };
        }
        let ip = match self.bind.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip => ip,
        };
        let scheme = if self.tls.is_enabled() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}/", SocketAddr::new(ip, self.bind.port()))
    }

    /// Where the card sends gRPC clients: the base URL, or with a port of gRPC's own, the base
    /// URL's host at that port.
    pub(crate) fn grpc_url(&self) -> String {
        let base = self.base_url();
        let Some(grpc) = self.grpc_bind else {
            return base;
        };
        let Ok(mut url) = url::Url::parse(&base) else {
            return base;
        };
        match url.set_port(Some(grpc.port())) {
            Ok(()) => url.to_string(),
            Err(()) => base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_bind_never_reaches_the_card() {
        let config = ServeConfig {
            bind: "0.0.0.0:8080".parse().expect("address"),
            ..ServeConfig::default()
        };
        assert_eq!(config.base_url(), "http://127.0.0.1:8080/");
    }

    #[test]
    fn store_locations_parse_and_default_under_the_data_dir() {
        assert_eq!("memory".parse::<StoreLocation>(), Ok(StoreLocation::Memory));
        assert_eq!(
            "sqlite:///var/lib/a.db".parse::<StoreLocation>(),
            Ok(StoreLocation::Sqlite("/var/lib/a.db".into()))
        );
        let postgres = "postgres://a2a:secret@db:5432/tasks"
            .parse::<StoreLocation>()
            .unwrap();
        assert_eq!(
            postgres,
            StoreLocation::Postgres("postgres://a2a:secret@db:5432/tasks".into())
        );
        assert_eq!(postgres.to_string(), "postgres://a2a:***@db:5432/tasks");
        assert!(!format!("{postgres:?}").contains("secret"));
        assert!("postgres://".parse::<StoreLocation>().is_err());
        assert!("mysql://x".parse::<StoreLocation>().is_err());
        let config = ServeConfig {
            data_dir: Some("/data".into()),
            ..ServeConfig::default()
        };
        assert_eq!(
            config.served_store("Currency Agent"),
            StoreLocation::Sqlite("/data/currency-agent/tasks.sqlite3".into())
        );
    }

    #[test]
    fn malformed_origins_are_named() {
        let config = ServeConfig {
            allowed_origins: vec!["evil.example".into()],
            ..ServeConfig::default()
        };
        let error = config.validate().expect_err("no scheme").to_string();
        assert!(error.contains("evil.example"), "{error}");
    }

    #[test]
    fn push_settings_that_would_deliver_nothing_are_refused() {
        let no_attempts = ServeConfig {
            push: PushOptions {
                attempts: 0,
                ..PushOptions::default()
            },
            ..ServeConfig::default()
        };
        let error = no_attempts.validate().expect_err("no attempts").to_string();
        assert!(error.contains("--push-attempts"), "{error}");
        let no_queue = ServeConfig {
            push: PushOptions {
                queue_per_config: 0,
                ..PushOptions::default()
            },
            ..ServeConfig::default()
        };
        let error = no_queue.validate().expect_err("no queue").to_string();
        assert!(error.contains("--push-queue"), "{error}");
    }
}
