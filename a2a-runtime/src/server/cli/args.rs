//! The flags, in groups as `--help` shows them, and the parsers of their sizes and durations.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

/// Push notification delivery.
#[derive(Debug, Args)]
#[command(next_help_heading = "Push notifications")]
pub(super) struct PushArgs {
    /// Do not deliver push notifications (every push config operation answers -32003)
    #[arg(long, env = "A2A_NO_PUSH", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) no_push: bool,
    /// Deliver to loopback and private addresses too (local development and tests; refused by
    /// default as server-side request forgery)
    #[arg(long, env = "A2A_PUSH_ALLOW_PRIVATE", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) push_allow_private: bool,
    /// How long one delivery attempt may take [default: 10s]
    #[arg(long, env = "A2A_PUSH_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    pub(super) push_timeout: Option<Duration>,
    /// Attempts per delivery before it is given up [default: 8]
    #[arg(long, env = "A2A_PUSH_ATTEMPTS", value_name = "N")]
    pub(super) push_attempts: Option<u32>,
    /// The pause before a delivery's first retry; later ones double, up to a minute
    /// [default: 1s]
    #[arg(long, env = "A2A_PUSH_RETRY", value_parser = duration, value_name = "DURATION")]
    pub(super) push_retry: Option<Duration>,
    /// Deliveries queued per push config while its receiver is slow or down; beyond it the
    /// oldest is dropped [default: 1000]
    #[arg(long, env = "A2A_PUSH_QUEUE", value_name = "N")]
    pub(super) push_queue: Option<usize>,
}

/// Metrics and observers.
#[derive(Debug, Args)]
#[command(next_help_heading = "Metrics, traces and usage")]
pub(super) struct ObserveArgs {
    /// Serve Prometheus metrics at /metrics (the `metrics` feature); beyond loopback it needs
    /// --metrics-token or --metrics-bind
    #[arg(long, env = "A2A_METRICS", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) metrics: bool,
    /// The bearer token a scrape of /metrics must present
    #[arg(
        long,
        env = "A2A_METRICS_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub(super) metrics_token: Option<String>,
    /// Serve /metrics on this address instead of the agents'
    #[arg(long, env = "A2A_METRICS_BIND", value_name = "ADDR")]
    pub(super) metrics_bind: Option<SocketAddr>,
    /// Label skill calls with their caller's principal, for at most N principals (the rest are
    /// `other`) [default: 0, no caller label]
    #[arg(long, env = "A2A_METRICS_CALLERS", value_name = "N")]
    pub(super) metrics_callers: Option<usize>,
    /// Records an application's observer may fall behind by before they are dropped (and
    /// counted) [default: 4096]
    #[arg(long, env = "A2A_OBSERVER_QUEUE", value_name = "N")]
    pub(super) observer_queue: Option<usize>,
    /// Export traces over OTLP (HTTP/protobuf) to this collector, at URL/v1/traces (the
    /// `otlp` feature): a span per request and per skill call
    #[arg(long, env = "A2A_OTLP_ENDPOINT", value_name = "URL")]
    pub(super) otlp_endpoint: Option<String>,
    /// A header every export carries, such as a backend's key (repeat, or comma separated)
    #[arg(
        long = "otlp-header",
        env = "A2A_OTLP_HEADERS",
        value_delimiter = ',',
        value_name = "NAME=VALUE",
        value_parser = header,
        hide_env_values = true
    )]
    pub(super) otlp_headers: Vec<(String, String)>,
    /// The share of traces started here (requests without a traceparent) that are sampled,
    /// 0 to 1; a caller's traceparent decides for its own [default: 1]
    #[arg(long, env = "A2A_OTLP_SAMPLE_RATIO", value_name = "RATIO")]
    pub(super) otlp_sample_ratio: Option<f64>,
    /// Record every call as a usage row beside the tasks, with hourly rollups and the
    /// admin-only /usage endpoint (the `usage` feature)
    #[arg(long, env = "A2A_USAGE", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) usage: bool,
    /// How long usage rows are kept [default: 90d]
    #[arg(long, env = "A2A_USAGE_RETENTION", value_parser = duration, value_name = "DURATION")]
    pub(super) usage_retention: Option<Duration>,
    /// How long hourly usage rollups are kept [default: 400d]
    #[arg(long, env = "A2A_USAGE_ROLLUP_RETENTION", value_parser = duration, value_name = "DURATION")]
    pub(super) usage_rollup_retention: Option<Duration>,
    /// A claim of the caller's token kept with each usage row, such as a tenant (repeat, or
    /// comma separated)
    #[arg(
        long = "usage-claim",
        env = "A2A_USAGE_CLAIMS",
        value_delimiter = ',',
        value_name = "CLAIM"
    )]
    pub(super) usage_claims: Vec<String>,
    /// The scope /usage needs [default: a2a:admin]
    #[arg(long, env = "A2A_USAGE_ADMIN_SCOPE", value_name = "SCOPE")]
    pub(super) usage_admin_scope: Option<String>,
    /// Skill calls each authenticated caller may make per calendar month (UTC); past it, calls
    /// are refused as busy until the month ends (needs --usage)
    #[arg(long, env = "A2A_CALL_BUDGET", value_name = "N")]
    pub(super) call_budget: Option<u64>,
}

/// `NAME=VALUE`.
fn header(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))
}

impl ObserveArgs {
    /// Adds what was given to `options`.
    pub(super) fn apply(self, options: &mut crate::server::observe::options::ObserveOptions) {
        options.metrics |= self.metrics;
        if self.metrics_token.is_some() {
            options.metrics_token = self.metrics_token;
        }
        if self.metrics_bind.is_some() {
            options.metrics_bind = self.metrics_bind;
        }
        if let Some(callers) = self.metrics_callers {
            options.metrics_callers = callers;
        }
        if let Some(queue) = self.observer_queue {
            options.observer_queue = queue;
        }
        if self.otlp_endpoint.is_some() {
            options.otlp_endpoint = self.otlp_endpoint;
        }
        options.otlp_headers.extend(self.otlp_headers);
        if let Some(ratio) = self.otlp_sample_ratio {
            options.otlp_sample_ratio = ratio;
        }
        options.usage |= self.usage;
        if let Some(retention) = self.usage_retention {
            options.usage_retention = retention;
        }
        if let Some(retention) = self.usage_rollup_retention {
            options.usage_rollup_retention = retention;
        }
        options.usage_claims.extend(self.usage_claims);
        if let Some(scope) = self.usage_admin_scope {
            options.usage_admin_scope = scope;
        }
        if self.call_budget.is_some() {
            options.call_budget = self.call_budget;
        }
    }
}

/// Where tasks are kept.
#[derive(Debug, Args)]
#[command(next_help_heading = "Storage")]
pub(super) struct StorageArgs {
    /// Where tasks are kept: memory, sqlite://PATH, or postgres://USER:PASSWORD@HOST/DB (shared
    /// by replicas) [default: a SQLite file under --data-dir]
    #[arg(long, env = "A2A_STORE", value_name = "STORE", hide_env_values = true)]
    pub(super) store: Option<crate::server::config::StoreLocation>,
    /// The directory of the default SQLite store [default: $XDG_DATA_HOME/a2a-runtime, else
    /// ~/.local/share/a2a-runtime]
    #[arg(long, env = "A2A_DATA_DIR", value_name = "DIR")]
    pub(super) data_dir: Option<std::path::PathBuf>,
    /// With a Postgres store: how long a replica that stops renewing its lease counts as alive;
    /// then a survivor fails (or re-runs) its unfinished tasks [default: 10s]
    #[arg(long, env = "A2A_REPLICA_LEASE", value_parser = duration, value_name = "DURATION")]
    pub(super) replica_lease: Option<std::time::Duration>,
    /// The secret MCP requestStates are sealed with (at least 32 bytes); give every replica the
    /// same one so a retry may reach any of them [default: random per process]
    #[arg(
        long,
        env = "A2A_STATE_KEY",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub(super) state_key: Option<String>,
}

/// TLS for agents that face the network without a proxy.
#[derive(Debug, Args)]
#[command(next_help_heading = "TLS")]
pub(super) struct TlsArgs {
    /// PEM certificate chain (leaf first); with --tls-key the server speaks HTTPS only
    #[arg(long, env = "A2A_TLS_CERT", value_name = "PATH")]
    pub(super) tls_cert: Option<std::path::PathBuf>,
    /// PEM private key of --tls-cert
    #[arg(long, env = "A2A_TLS_KEY", value_name = "PATH")]
    pub(super) tls_key: Option<std::path::PathBuf>,
    /// PEM CA certificates that issue client certificates (enables the mutual TLS scheme)
    #[arg(long, env = "A2A_TLS_CLIENT_CA", value_name = "PATH")]
    pub(super) tls_client_ca: Option<std::path::PathBuf>,
}

/// Credentials of the built-in security schemes.
#[derive(Debug, Args)]
#[command(next_help_heading = "Authentication")]
pub(super) struct AuthArgs {
    /// API keys as principal=key pairs, comma separated, sent in X-API-Key (prefer the file
    /// form: command lines are visible to other users)
    #[arg(
        long,
        env = "A2A_API_KEYS",
        value_name = "PRINCIPAL=KEY,...",
        hide_env_values = true
    )]
    pub(super) api_keys: Option<String>,
    /// File of principal=key lines
    #[arg(long, env = "A2A_API_KEYS_FILE", value_name = "PATH")]
    pub(super) api_keys_file: Option<std::path::PathBuf>,
    /// HS256 secret of bearer JWTs (32 bytes or more)
    #[arg(
        long,
        env = "A2A_JWT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub(super) jwt_secret: Option<String>,
    /// JWKS URL of RS256/ES256 bearer JWTs (https, or http on loopback)
    #[arg(long, env = "A2A_JWKS_URL", value_name = "URL")]
    pub(super) jwks_url: Option<String>,
    /// The `iss` bearer JWTs must carry
    #[arg(long, env = "A2A_JWT_ISSUER", value_name = "ISSUER")]
    pub(super) jwt_issuer: Option<String>,
    /// An `aud` bearer JWTs must include (repeat, or comma separated: any one)
    #[arg(
        long = "jwt-audience",
        env = "A2A_JWT_AUDIENCE",
        value_delimiter = ',',
        value_name = "AUDIENCE"
    )]
    pub(super) jwt_audience: Vec<String>,
    /// How long a verified bearer JWT is trusted before its signature is checked again (0s:
    /// every request) [default: 60s]
    #[arg(long, env = "A2A_JWT_CACHE_TTL", value_parser = duration, value_name = "DURATION")]
    pub(super) jwt_cache_ttl: Option<Duration>,
    /// Another OpenID Connect issuer whose bearer JWTs are accepted, its keys found by
    /// discovery (repeat, or comma separated; a token goes to the issuer its `iss` names)
    #[arg(
        long = "jwt-trusted-issuer",
        env = "A2A_JWT_TRUSTED_ISSUERS",
        value_delimiter = ',',
        value_name = "ISSUER_URL"
    )]
    pub(super) jwt_trusted_issuers: Vec<String>,
    /// Scopes that grant others: parent=child+child (comma separated)
    #[arg(long, env = "A2A_SCOPE_IMPLIES", value_name = "PARENT=CHILD+...")]
    pub(super) scope_implies: Option<String>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Network")]
pub(super) struct NetworkArgs {
    /// Address to listen on [default: 127.0.0.1:8080; :0 picks a free port]
    #[arg(long, env = "A2A_BIND", value_name = "ADDR:PORT")]
    pub(super) bind: Option<SocketAddr>,
    /// URL published in the agent card; set it behind a proxy or when binding 0.0.0.0
    #[arg(long, env = "A2A_PUBLIC_URL", value_name = "URL")]
    pub(super) public_url: Option<String>,
    /// Also listen here for gRPC alone, and name this port in the card's GRPC interface
    /// (with the grpc feature) [default: gRPC on --bind's port]
    #[arg(long, env = "A2A_GRPC_BIND", value_name = "ADDR:PORT")]
    pub(super) grpc_bind: Option<SocketAddr>,
    /// Serve MCP over stdin/stdout instead of HTTP
    #[arg(long, env = "A2A_STDIO", value_parser = clap::builder::BoolishValueParser::new(), num_args = 0..=1, default_missing_value = "true")]
    pub(super) stdio: Option<bool>,
    /// Print the discovery documents (MCP server cards and registry entries, SKILL.md files,
    /// the catalogs) as one JSON object of path to text, for the URL --public-url gives, and
    /// exit
    #[arg(long)]
    pub(super) print_manifests: bool,
    /// Serve the browser console at /console (and at / for browsers) [default: on loopback
    /// binds only]
    #[arg(long, env = "A2A_CONSOLE", value_parser = clap::builder::BoolishValueParser::new(), num_args = 0..=1, default_missing_value = "true")]
    pub(super) console: Option<bool>,
    /// Serve A2A without streaming: the card says so and the streaming methods are refused as
    /// unsupported (clients and test kits that check a reduced card)
    #[arg(long, env = "A2A_NO_STREAMING", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) no_streaming: bool,
    /// Reverse proxies in front of the server (CIDRs or addresses; repeat, or comma separated):
    /// only from them are Forwarded and X-Forwarded-* believed, for the client's address (rate
    /// limits, quotas, usage) and host; the per-peer connection cap leaves them alone
    #[arg(
        long = "trusted-proxy",
        env = "A2A_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR",
        value_parser = |item: &str| crate::server::transport::proxy_range(item.trim())
    )]
    pub(super) trusted_proxies: Vec<ipnet::IpNet>,
    /// Extra Host header values accepted (repeat, or comma separated) [default: loopback names
    /// on loopback binds, the public URL's host otherwise]
    #[arg(
        long = "allowed-host",
        env = "A2A_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub(super) allowed_hosts: Vec<String>,
    /// Extra browser origins allowed to call the A2A and MCP endpoints (repeat, or comma
    /// separated) [default: local pages on loopback binds]
    #[arg(
        long = "allowed-origin",
        env = "A2A_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub(super) allowed_origins: Vec<String>,
    /// Browser origins allowed to read A2A responses cross-origin (CORS; `*` for any) [default:
    /// none; the agent card is readable from any origin]
    #[arg(
        long = "cors-origin",
        env = "A2A_CORS_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub(super) cors_origins: Vec<String>,
    /// A request header cross-origin callers may send besides the protocols' own (repeat, or
    /// comma separated)
    #[arg(
        long = "cors-header",
        env = "A2A_CORS_HEADERS",
        value_delimiter = ',',
        value_name = "HEADER"
    )]
    pub(super) cors_headers: Vec<String>,
}

/// One flag per limit; `None` keeps the configured value.
#[derive(Debug, Args)]
#[command(next_help_heading = "Limits")]
pub(super) struct LimitArgs {
    /// Largest request body [default: 1MiB]
    #[arg(long, env = "A2A_MAX_BODY_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_body_bytes: Option<usize>,
    /// Most parts in one message [default: 64]
    #[arg(long, env = "A2A_MAX_MESSAGE_PARTS", value_name = "N")]
    pub(super) max_message_parts: Option<usize>,
    /// Largest message part [default: 1MiB]
    #[arg(long, env = "A2A_MAX_PART_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_part_bytes: Option<usize>,
    /// History kept per task; oldest messages are dropped first [default: 4MiB]
    #[arg(long, env = "A2A_MAX_TASK_HISTORY_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_task_history_bytes: Option<usize>,
    /// Artifacts one task may produce [default: 16MiB]
    #[arg(long, env = "A2A_MAX_TASK_ARTIFACT_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_task_artifact_bytes: Option<usize>,
    /// Tasks kept by the in-memory store [default: 10000]
    #[arg(long, env = "A2A_MAX_TASKS", value_name = "N")]
    pub(super) max_tasks: Option<usize>,
    /// Bytes held by the in-memory store [default: 256MiB]
    #[arg(long, env = "A2A_MAX_STORE_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_store_bytes: Option<usize>,
    /// How long finished tasks stay readable [default: 1h]
    #[arg(long, env = "A2A_TASK_TTL", value_parser = duration, value_name = "DURATION")]
    pub(super) task_ttl: Option<Duration>,
    /// Largest ListTasks reply; pages shrink to fit [default: 4MiB]
    #[arg(long, env = "A2A_MAX_LIST_BYTES", value_parser = size, value_name = "SIZE")]
    pub(super) max_list_bytes: Option<usize>,
    /// Tasks one caller may have working at once [default: 100]
    #[arg(long, env = "A2A_MAX_RUNNING_PER_CALLER", value_name = "N")]
    pub(super) max_running_per_caller: Option<usize>,
    /// Tasks one caller may have waiting for answers [default: 100]
    #[arg(long, env = "A2A_MAX_WAITING_PER_CALLER", value_name = "N")]
    pub(super) max_waiting_per_caller: Option<usize>,
    /// Streams one caller may hold open [default: 32]
    #[arg(long, env = "A2A_MAX_STREAMS_PER_CALLER", value_name = "N")]
    pub(super) max_streams_per_caller: Option<usize>,
    /// New tasks per second one caller may start [default: 50]
    #[arg(long, env = "A2A_TASKS_PER_SECOND_PER_CALLER", value_name = "N")]
    pub(super) tasks_per_second_per_caller: Option<u32>,
    /// New tasks one caller may start in a burst [default: 200]
    #[arg(long, env = "A2A_TASK_BURST_PER_CALLER", value_name = "N")]
    pub(super) task_burst_per_caller: Option<u32>,
    /// Calls waiting for answers at once, all callers [default: 10000]
    #[arg(long, env = "A2A_MAX_WAITING_TASKS", value_name = "N")]
    pub(super) max_waiting_tasks: Option<usize>,
    /// How long a question waits for its answer [default: 15m]
    #[arg(long, env = "A2A_INPUT_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    pub(super) input_timeout: Option<Duration>,
    /// How long an idempotency key holds: a repeat under it returns the original outcome
    /// [default: 24h]
    #[arg(long, env = "A2A_IDEMPOTENCY_TTL", value_parser = duration, value_name = "DURATION")]
    pub(super) idempotency_ttl: Option<Duration>,
    /// How long a cancelled skill may run on [default: 5s]
    #[arg(long, env = "A2A_CANCEL_GRACE", value_parser = duration, value_name = "DURATION")]
    pub(super) cancel_grace: Option<Duration>,
    /// Events buffered per task for stream subscribers [default: 256]
    #[arg(long, env = "A2A_STREAM_BUFFER", value_name = "N")]
    pub(super) stream_buffer: Option<usize>,
    /// Keep-alive comment interval on idle SSE streams [default: 15s]
    #[arg(long, env = "A2A_SSE_KEEP_ALIVE", value_parser = duration, value_name = "DURATION")]
    pub(super) sse_keep_alive: Option<Duration>,
    /// MCP calls from task-aware clients running longer become tasks [default: 250ms]
    #[arg(long, env = "A2A_MCP_TASK_AFTER", value_parser = duration, value_name = "DURATION")]
    pub(super) mcp_task_after: Option<Duration>,
    /// MCP sessions open at once [default: 1000]
    #[arg(long, env = "A2A_MAX_MCP_SESSIONS", value_name = "N")]
    pub(super) max_mcp_sessions: Option<usize>,
    /// How long an idle MCP session lives [default: 5m]
    #[arg(long, env = "A2A_MCP_SESSION_IDLE", value_parser = duration, value_name = "DURATION")]
    pub(super) mcp_session_idle: Option<Duration>,
    /// Open connections at once [default: 512]
    #[arg(long, env = "A2A_MAX_CONNECTIONS", value_name = "N")]
    pub(super) max_connections: Option<usize>,
    /// Open connections from one IP address at once [default: 128]
    #[arg(long, env = "A2A_MAX_CONNECTIONS_PER_PEER", value_name = "N")]
    pub(super) max_connections_per_peer: Option<usize>,
    /// HTTP/2 streams (gRPC calls) open at once on one connection [default: 100]
    #[arg(long, env = "A2A_MAX_STREAMS_PER_CONNECTION", value_name = "N")]
    pub(super) max_streams_per_connection: Option<u32>,
    /// Time to send request headers; also the keep-alive idle timeout [default: 15s]
    #[arg(long, env = "A2A_HEADER_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    pub(super) header_timeout: Option<Duration>,
    /// Longest pause while a request body is read [default: 15s]
    #[arg(long, env = "A2A_BODY_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    pub(super) body_timeout: Option<Duration>,
    /// Longest a whole request body may take to arrive [default: 30s]
    #[arg(long, env = "A2A_BODY_DEADLINE", value_parser = duration, value_name = "DURATION")]
    pub(super) body_deadline: Option<Duration>,
    /// Graceful shutdown: time for in-flight work before it is cancelled [default: 30s]
    #[arg(long, env = "A2A_SHUTDOWN_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    pub(super) shutdown_timeout: Option<Duration>,
    /// On SIGTERM or Ctrl-C, keep serving this long with /healthz answering 503 before
    /// stopping: longer than a load balancer takes to see the failed check [default: 0s]
    #[arg(long, env = "A2A_DRAIN_DELAY", value_parser = duration, value_name = "DURATION")]
    pub(super) drain_delay: Option<Duration>,
}

/// `1048576`, `512KiB`, `1MiB`, `2GiB` (also `K`/`M`/`G`, `KB`/`MB`/`GB` as binary units).
pub(super) fn size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: usize = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size like 1048576, 512KiB or 1MiB"))?;
    let scale: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        other => return Err(format!("unknown size unit `{other}`; use KiB, MiB or GiB")),
    };
    number
        .checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// `500ms`, `30s`, `15m`, `1h`, `1h 30m`.
pub(super) fn duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim())
        .map_err(|e| format!("`{text}` is not a duration like 500ms, 30s or 15m: {e}"))
}
