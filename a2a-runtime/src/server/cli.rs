//! The command line of a served agent: every [`ServeConfig`] setting as a flag with an
//! environment variable. A flag or variable that is given overrides what the builder set; one
//! that is not leaves it, so `--help` and the builder never disagree about what runs.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser};

use super::ServeConfig;
use a2a_runtime_core::error::Error;

/// What the command line asked for.
pub(crate) enum Command {
    /// Serve with this configuration.
    Serve(Box<ServeConfig>),
    /// `--help` or `--version`: this text was printed; do not serve.
    Printed,
}

/// What `--help` says after the flags: their units, and which flags need a feature this build
/// leaves out (using one is a startup error naming the feature).
fn after_help() -> String {
    let mut text = "Sizes are bytes, or a number with KiB, MiB or GiB; durations are like 500ms, \
                    30s, 15m or 1h. Every flag has the environment variable shown."
        .to_owned();
    let missing: Vec<&str> = [
        (
            cfg!(not(feature = "jwt")),
            "--jwt-* and --jwks-url need the `jwt` feature",
        ),
        (
            cfg!(not(feature = "tls")),
            "--tls-cert, --tls-key and --tls-client-ca need the `tls` feature",
        ),
        (
            cfg!(not(feature = "sqlite")),
            "--store sqlite://… needs the `sqlite` feature (tasks are kept in memory by default)",
        ),
        (
            cfg!(not(feature = "postgres")),
            "--store postgres://… needs the `postgres` feature",
        ),
    ]
    .into_iter()
    .filter_map(|(left_out, what)| left_out.then_some(what))
    .collect();
    if !missing.is_empty() {
        text.push_str("\n\nThis build leaves features of a2a-runtime out: ");
        text.push_str(&missing.join("; "));
        text.push('.');
    }
    text
}

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    network: NetworkArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    tls: TlsArgs,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    push: PushArgs,
}

/// Push notification delivery.
#[derive(Debug, Args)]
#[command(next_help_heading = "Push notifications")]
struct PushArgs {
    /// Do not deliver push notifications (every push config operation answers -32003)
    #[arg(long, env = "A2A_NO_PUSH", value_parser = clap::builder::FalseyValueParser::new())]
    no_push: bool,
    /// Deliver to loopback and private addresses too (local development and tests; refused by
    /// default as server-side request forgery)
    #[arg(long, env = "A2A_PUSH_ALLOW_PRIVATE", value_parser = clap::builder::FalseyValueParser::new())]
    push_allow_private: bool,
    /// How long one delivery attempt may take [default: 10s]
    #[arg(long, env = "A2A_PUSH_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    push_timeout: Option<Duration>,
    /// Attempts per delivery before it is given up [default: 8]
    #[arg(long, env = "A2A_PUSH_ATTEMPTS", value_name = "N")]
    push_attempts: Option<u32>,
    /// The pause before a delivery's first retry; later ones double, up to a minute
    /// [default: 1s]
    #[arg(long, env = "A2A_PUSH_RETRY", value_parser = duration, value_name = "DURATION")]
    push_retry: Option<Duration>,
    /// Deliveries queued per push config while its receiver is slow or down; beyond it the
    /// oldest is dropped [default: 1000]
    #[arg(long, env = "A2A_PUSH_QUEUE", value_name = "N")]
    push_queue: Option<usize>,
}

/// Where tasks are kept.
#[derive(Debug, Args)]
#[command(next_help_heading = "Storage")]
struct StorageArgs {
    /// Where tasks are kept: memory, sqlite://PATH, or postgres://USER:PASSWORD@HOST/DB (shared
    /// by replicas) [default: a SQLite file under --data-dir]
    #[arg(long, env = "A2A_STORE", value_name = "STORE", hide_env_values = true)]
    store: Option<super::StoreLocation>,
    /// The directory of the default SQLite store [default: $XDG_DATA_HOME/a2a-runtime, else
    /// ~/.local/share/a2a-runtime]
    #[arg(long, env = "A2A_DATA_DIR", value_name = "DIR")]
    data_dir: Option<std::path::PathBuf>,
    /// With a Postgres store: how long a replica that stops renewing its lease counts as alive;
    /// then a survivor fails (or re-runs) its unfinished tasks [default: 10s]
    #[arg(long, env = "A2A_REPLICA_LEASE", value_parser = duration, value_name = "DURATION")]
    replica_lease: Option<std::time::Duration>,
    /// The secret MCP requestStates are sealed with (at least 32 bytes); give every replica the
    /// same one so a retry may reach any of them [default: random per process]
    #[arg(
        long,
        env = "A2A_STATE_KEY",
        value_name = "SECRET",
        hide_env_values = true
    )]
    state_key: Option<String>,
}

/// TLS for agents that face the network without a proxy.
#[derive(Debug, Args)]
#[command(next_help_heading = "TLS")]
struct TlsArgs {
    /// PEM certificate chain (leaf first); with --tls-key the server speaks HTTPS only
    #[arg(long, env = "A2A_TLS_CERT", value_name = "PATH")]
    tls_cert: Option<std::path::PathBuf>,
    /// PEM private key of --tls-cert
    #[arg(long, env = "A2A_TLS_KEY", value_name = "PATH")]
    tls_key: Option<std::path::PathBuf>,
    /// PEM CA certificates that issue client certificates (enables the mutual TLS scheme)
    #[arg(long, env = "A2A_TLS_CLIENT_CA", value_name = "PATH")]
    tls_client_ca: Option<std::path::PathBuf>,
}

/// Credentials of the built-in security schemes.
#[derive(Debug, Args)]
#[command(next_help_heading = "Authentication")]
struct AuthArgs {
    /// API keys as principal=key pairs, comma separated, sent in X-API-Key (prefer the file
    /// form: command lines are visible to other users)
    #[arg(
        long,
        env = "A2A_API_KEYS",
        value_name = "PRINCIPAL=KEY,...",
        hide_env_values = true
    )]
    api_keys: Option<String>,
    /// File of principal=key lines
    #[arg(long, env = "A2A_API_KEYS_FILE", value_name = "PATH")]
    api_keys_file: Option<std::path::PathBuf>,
    /// HS256 secret of bearer JWTs (32 bytes or more)
    #[arg(
        long,
        env = "A2A_JWT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    jwt_secret: Option<String>,
    /// JWKS URL of RS256/ES256 bearer JWTs (https, or http on loopback)
    #[arg(long, env = "A2A_JWKS_URL", value_name = "URL")]
    jwks_url: Option<String>,
    /// The `iss` bearer JWTs must carry
    #[arg(long, env = "A2A_JWT_ISSUER", value_name = "ISSUER")]
    jwt_issuer: Option<String>,
    /// An `aud` bearer JWTs must include (repeat, or comma separated: any one)
    #[arg(
        long = "jwt-audience",
        env = "A2A_JWT_AUDIENCE",
        value_delimiter = ',',
        value_name = "AUDIENCE"
    )]
    jwt_audience: Vec<String>,
    /// How long a verified bearer JWT is trusted before its signature is checked again (0s:
    /// every request) [default: 60s]
    #[arg(long, env = "A2A_JWT_CACHE_TTL", value_parser = duration, value_name = "DURATION")]
    jwt_cache_ttl: Option<Duration>,
    /// Another OpenID Connect issuer whose bearer JWTs are accepted, its keys found by
    /// discovery (repeat, or comma separated; a token goes to the issuer its `iss` names)
    #[arg(
        long = "jwt-trusted-issuer",
        env = "A2A_JWT_TRUSTED_ISSUERS",
        value_delimiter = ',',
        value_name = "ISSUER_URL"
    )]
    jwt_trusted_issuers: Vec<String>,
    /// Scopes that grant others: parent=child+child (comma separated)
    #[arg(long, env = "A2A_SCOPE_IMPLIES", value_name = "PARENT=CHILD+...")]
    scope_implies: Option<String>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Network")]
struct NetworkArgs {
    /// Address to listen on [default: 127.0.0.1:8080; :0 picks a free port]
    #[arg(long, env = "A2A_BIND", value_name = "ADDR:PORT")]
    bind: Option<SocketAddr>,
    /// URL published in the agent card; set it behind a proxy or when binding 0.0.0.0
    #[arg(long, env = "A2A_PUBLIC_URL", value_name = "URL")]
    public_url: Option<String>,
    /// Serve MCP over stdin/stdout instead of HTTP
    #[arg(long, env = "A2A_STDIO", value_parser = clap::builder::BoolishValueParser::new(), num_args = 0..=1, default_missing_value = "true")]
    stdio: Option<bool>,
    /// Extra Host header values accepted (repeat, or comma separated) [default: loopback names
    /// on loopback binds, the public URL's host otherwise]
    #[arg(
        long = "allowed-host",
        env = "A2A_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    allowed_hosts: Vec<String>,
    /// Extra browser origins allowed to call the A2A and MCP endpoints (repeat, or comma
    /// separated) [default: local pages on loopback binds]
    #[arg(
        long = "allowed-origin",
        env = "A2A_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    allowed_origins: Vec<String>,
    /// Browser origins allowed to read A2A responses cross-origin (CORS; `*` for any) [default:
    /// none; the agent card is readable from any origin]
    #[arg(
        long = "cors-origin",
        env = "A2A_CORS_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    cors_origins: Vec<String>,
    /// A request header cross-origin callers may send besides the protocols' own (repeat, or
    /// comma separated)
    #[arg(
        long = "cors-header",
        env = "A2A_CORS_HEADERS",
        value_delimiter = ',',
        value_name = "HEADER"
    )]
    cors_headers: Vec<String>,
}

/// One flag per limit; `None` keeps the configured value.
#[derive(Debug, Args)]
#[command(next_help_heading = "Limits")]
struct LimitArgs {
    /// Largest request body [default: 1MiB]
    #[arg(long, env = "A2A_MAX_BODY_BYTES", value_parser = size, value_name = "SIZE")]
    max_body_bytes: Option<usize>,
    /// Most parts in one message [default: 64]
    #[arg(long, env = "A2A_MAX_MESSAGE_PARTS", value_name = "N")]
    max_message_parts: Option<usize>,
    /// Largest message part [default: 1MiB]
    #[arg(long, env = "A2A_MAX_PART_BYTES", value_parser = size, value_name = "SIZE")]
    max_part_bytes: Option<usize>,
    /// History kept per task; oldest messages are dropped first [default: 4MiB]
    #[arg(long, env = "A2A_MAX_TASK_HISTORY_BYTES", value_parser = size, value_name = "SIZE")]
    max_task_history_bytes: Option<usize>,
    /// Artifacts one task may produce [default: 16MiB]
    #[arg(long, env = "A2A_MAX_TASK_ARTIFACT_BYTES", value_parser = size, value_name = "SIZE")]
    max_task_artifact_bytes: Option<usize>,
    /// Tasks kept by the in-memory store [default: 10000]
    #[arg(long, env = "A2A_MAX_TASKS", value_name = "N")]
    max_tasks: Option<usize>,
    /// Bytes held by the in-memory store [default: 256MiB]
    #[arg(long, env = "A2A_MAX_STORE_BYTES", value_parser = size, value_name = "SIZE")]
    max_store_bytes: Option<usize>,
    /// How long finished tasks stay readable [default: 1h]
    #[arg(long, env = "A2A_TASK_TTL", value_parser = duration, value_name = "DURATION")]
    task_ttl: Option<Duration>,
    /// Largest ListTasks reply; pages shrink to fit [default: 4MiB]
    #[arg(long, env = "A2A_MAX_LIST_BYTES", value_parser = size, value_name = "SIZE")]
    max_list_bytes: Option<usize>,
    /// Tasks one caller may have working at once [default: 100]
    #[arg(long, env = "A2A_MAX_RUNNING_PER_CALLER", value_name = "N")]
    max_running_per_caller: Option<usize>,
    /// Tasks one caller may have waiting for answers [default: 100]
    #[arg(long, env = "A2A_MAX_WAITING_PER_CALLER", value_name = "N")]
    max_waiting_per_caller: Option<usize>,
    /// Streams one caller may hold open [default: 32]
    #[arg(long, env = "A2A_MAX_STREAMS_PER_CALLER", value_name = "N")]
    max_streams_per_caller: Option<usize>,
    /// New tasks per second one caller may start [default: 50]
    #[arg(long, env = "A2A_TASKS_PER_SECOND_PER_CALLER", value_name = "N")]
    tasks_per_second_per_caller: Option<u32>,
    /// New tasks one caller may start in a burst [default: 200]
    #[arg(long, env = "A2A_TASK_BURST_PER_CALLER", value_name = "N")]
    task_burst_per_caller: Option<u32>,
    /// Calls waiting for answers at once, all callers [default: 10000]
    #[arg(long, env = "A2A_MAX_WAITING_TASKS", value_name = "N")]
    max_waiting_tasks: Option<usize>,
    /// How long a question waits for its answer [default: 15m]
    #[arg(long, env = "A2A_INPUT_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    input_timeout: Option<Duration>,
    /// How long a cancelled skill may run on [default: 5s]
    #[arg(long, env = "A2A_CANCEL_GRACE", value_parser = duration, value_name = "DURATION")]
    cancel_grace: Option<Duration>,
    /// Events buffered per task for stream subscribers [default: 256]
    #[arg(long, env = "A2A_STREAM_BUFFER", value_name = "N")]
    stream_buffer: Option<usize>,
    /// Keep-alive comment interval on idle SSE streams [default: 15s]
    #[arg(long, env = "A2A_SSE_KEEP_ALIVE", value_parser = duration, value_name = "DURATION")]
    sse_keep_alive: Option<Duration>,
    /// MCP calls from task-aware clients running longer become tasks [default: 250ms]
    #[arg(long, env = "A2A_MCP_TASK_AFTER", value_parser = duration, value_name = "DURATION")]
    mcp_task_after: Option<Duration>,
    /// MCP sessions open at once [default: 1000]
    #[arg(long, env = "A2A_MAX_MCP_SESSIONS", value_name = "N")]
    max_mcp_sessions: Option<usize>,
    /// How long an idle MCP session lives [default: 5m]
    #[arg(long, env = "A2A_MCP_SESSION_IDLE", value_parser = duration, value_name = "DURATION")]
    mcp_session_idle: Option<Duration>,
    /// Open connections at once [default: 512]
    #[arg(long, env = "A2A_MAX_CONNECTIONS", value_name = "N")]
    max_connections: Option<usize>,
    /// Open connections from one IP address at once [default: 128]
    #[arg(long, env = "A2A_MAX_CONNECTIONS_PER_PEER", value_name = "N")]
    max_connections_per_peer: Option<usize>,
    /// Time to send request headers; also the keep-alive idle timeout [default: 15s]
    #[arg(long, env = "A2A_HEADER_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    header_timeout: Option<Duration>,
    /// Longest pause while a request body is read [default: 15s]
    #[arg(long, env = "A2A_BODY_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    body_timeout: Option<Duration>,
    /// Longest a whole request body may take to arrive [default: 30s]
    #[arg(long, env = "A2A_BODY_DEADLINE", value_parser = duration, value_name = "DURATION")]
    body_deadline: Option<Duration>,
    /// Graceful shutdown: time for in-flight work before it is cancelled [default: 30s]
    #[arg(long, env = "A2A_SHUTDOWN_TIMEOUT", value_parser = duration, value_name = "DURATION")]
    shutdown_timeout: Option<Duration>,
}

/// Reads `args` (with the program name first) and the environment over `config`. `name`,
/// `version` and `about` describe the agent in `--help` and `--version`.
pub(crate) fn parse<I, S>(
    args: I,
    mut config: ServeConfig,
    name: String,
    version: &'static str,
    about: String,
) -> Result<Command, Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let command = Cli::command()
        .name(name)
        .version(version)
        .about(about)
        .after_help(after_help());
    let matches = match command.try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error)
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            // A closed stdout (`--help | head`) is not worth failing over.
            let _ = error.print();
            return Ok(Command::Printed);
        }
        Err(error) => {
            let text = error.render().to_string();
            let text = text.trim_start_matches("error: ").trim_end().to_owned();
            return Err(Error::Config(text));
        }
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| Error::Config(e.to_string()))?;
    cli.apply(&mut config);
    config.validate()?;
    Ok(Command::Serve(Box::new(config)))
}

impl Cli {
    fn apply(self, config: &mut ServeConfig) {
        let network = self.network;
        set(&mut config.bind, network.bind);
        if network.public_url.is_some() {
            config.public_url = network.public_url;
        }
        set(&mut config.stdio, network.stdio);
        if self.storage.store.is_some() {
            config.store = self.storage.store;
        }
        if self.storage.data_dir.is_some() {
            config.data_dir = self.storage.data_dir;
        }
        if self.storage.replica_lease.is_some() {
            config.replica_lease = self.storage.replica_lease;
        }
        if self.storage.state_key.is_some() {
            config.state_key = self.storage.state_key;
        }
        let push = self.push;
        if push.no_push {
            config.push.enabled = false;
        }
        if push.push_allow_private {
            config.push.allow_private = true;
        }
        set(&mut config.push.timeout, push.push_timeout);
        set(&mut config.push.attempts, push.push_attempts);
        set(&mut config.push.first_retry, push.push_retry);
        set(&mut config.push.queue_per_config, push.push_queue);
        config.allowed_hosts.extend(network.allowed_hosts);
        config.allowed_origins.extend(network.allowed_origins);
        config.cors_origins.extend(network.cors_origins);
        config.cors_headers.extend(network.cors_headers);
        let tls = self.tls;
        if tls.tls_cert.is_some() {
            config.tls.cert = tls.tls_cert;
        }
        if tls.tls_key.is_some() {
            config.tls.key = tls.tls_key;
        }
        if tls.tls_client_ca.is_some() {
            config.tls.client_ca = tls.tls_client_ca;
        }
        let auth = self.auth;
        let settings = &mut config.auth;
        if auth.api_keys.is_some() {
            settings.api_keys = auth.api_keys;
        }
        if auth.api_keys_file.is_some() {
            settings.api_keys_file = auth.api_keys_file;
        }
        if auth.jwt_secret.is_some() {
            settings.jwt_secret = auth.jwt_secret;
        }
        if auth.jwks_url.is_some() {
            settings.jwks_url = auth.jwks_url;
        }
        if auth.jwt_issuer.is_some() {
            settings.jwt_issuer = auth.jwt_issuer;
        }
        if !auth.jwt_audience.is_empty() {
            settings.jwt_audience = auth.jwt_audience;
        }
        if auth.jwt_cache_ttl.is_some() {
            settings.jwt_cache_ttl = auth.jwt_cache_ttl;
        }
        if !auth.jwt_trusted_issuers.is_empty() {
            settings.jwt_trusted_issuers = auth.jwt_trusted_issuers;
        }
        if auth.scope_implies.is_some() {
            settings.scope_implies = auth.scope_implies;
        }
        let given = self.limits;
        let limits = &mut config.limits;
        set(&mut limits.max_body_bytes, given.max_body_bytes);
        set(&mut limits.max_message_parts, given.max_message_parts);
        set(&mut limits.max_part_bytes, given.max_part_bytes);
        set(
            &mut limits.max_task_history_bytes,
            given.max_task_history_bytes,
        );
        set(
            &mut limits.max_task_artifact_bytes,
            given.max_task_artifact_bytes,
        );
        set(&mut limits.max_tasks, given.max_tasks);
        set(&mut limits.max_store_bytes, given.max_store_bytes);
        set(&mut limits.task_ttl, given.task_ttl);
        set(&mut limits.max_list_bytes, given.max_list_bytes);
        set(
            &mut limits.max_running_per_caller,
            given.max_running_per_caller,
        );
        set(
            &mut limits.max_waiting_per_caller,
            given.max_waiting_per_caller,
        );
        set(
            &mut limits.max_streams_per_caller,
            given.max_streams_per_caller,
        );
        set(
            &mut limits.tasks_per_second_per_caller,
            given.tasks_per_second_per_caller,
        );
        set(
            &mut limits.task_burst_per_caller,
            given.task_burst_per_caller,
        );
        set(&mut limits.max_waiting_tasks, given.max_waiting_tasks);
        set(&mut limits.input_timeout, given.input_timeout);
        set(&mut limits.cancel_grace, given.cancel_grace);
        set(&mut limits.stream_buffer, given.stream_buffer);
        set(&mut limits.sse_keep_alive, given.sse_keep_alive);
        set(&mut limits.mcp_task_after, given.mcp_task_after);
        set(&mut limits.max_mcp_sessions, given.max_mcp_sessions);
        set(&mut limits.mcp_session_idle, given.mcp_session_idle);
        set(&mut limits.max_connections, given.max_connections);
        set(
            &mut limits.max_connections_per_peer,
            given.max_connections_per_peer,
        );
        set(&mut limits.header_timeout, given.header_timeout);
        set(&mut limits.body_timeout, given.body_timeout);
        set(&mut limits.body_deadline, given.body_deadline);
        set(&mut limits.shutdown_timeout, given.shutdown_timeout);
    }
}

fn set<T>(slot: &mut T, given: Option<T>) {
    if let Some(value) = given {
        *slot = value;
    }
}

/// `1048576`, `512KiB`, `1MiB`, `2GiB` (also `K`/`M`/`G`, `KB`/`MB`/`GB` as binary units).
fn size(text: &str) -> Result<usize, String> {
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
fn duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim())
        .map_err(|e| format!("`{text}` is not a duration like 500ms, 30s or 15m: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve(args: &[&str]) -> Result<ServeConfig, Error> {
        let args = std::iter::once("agent").chain(args.iter().copied());
        match parse(
            args,
            ServeConfig::default(),
            "agent".into(),
            "1.0.0",
            "An agent.".into(),
        )? {
            Command::Serve(config) => Ok(*config),
            Command::Printed => panic!("printed instead of serving"),
        }
    }

    #[test]
    fn flags_set_limits_and_keep_the_rest() {
        let config = serve(&[
            "--max-body-bytes",
            "2MiB",
            "--shutdown-timeout=2s",
            "--bind",
            "127.0.0.1:9001",
        ])
        .expect("valid flags");
        assert_eq!(config.limits.max_body_bytes, 2 << 20);
        assert_eq!(config.limits.shutdown_timeout, Duration::from_secs(2));
        assert_eq!(config.bind.port(), 9001);
        assert_eq!(config.limits.max_tasks, 10_000);
    }

    #[test]
    fn bad_values_are_named() {
        let error = serve(&["--max-body-bytes", "lots"]).expect_err("bad size");
        assert!(error.to_string().contains("--max-body-bytes"), "{error}");
        let error = serve(&["--bnd", "x"]).expect_err("unknown flag");
        assert!(error.to_string().contains("--bnd"), "{error}");
        let error = serve(&["--max-connections", "0"]).expect_err("zero");
        assert!(error.to_string().contains("--max-connections"), "{error}");
    }

    #[test]
    fn sizes_and_durations_read_units() {
        assert_eq!(size("512KiB"), Ok(512 << 10));
        assert_eq!(size("3"), Ok(3));
        assert!(size("1TiB").is_err());
        assert_eq!(duration("1h 30m"), Ok(Duration::from_secs(5400)));
    }

    #[test]
    fn help_lists_every_flag() {
        let help = Cli::command().render_long_help().to_string();
        for arg in Cli::command().get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(help.contains(&format!("--{long}")), "--{long} missing");
            }
        }
    }
}
