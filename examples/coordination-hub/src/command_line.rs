//! Serving the hub from the command line: the server's flags, and the hub's own.

use std::time::Duration;

use a2a_runtime::Agent as _;
use a2a_runtime::server::ServeConfig;

use crate::{Hub, Settings};

/// The hub's own flags, beside the server's.
#[derive(Debug, clap::Args)]
struct HubFlags {
    /// An agent that sends no heartbeat for this long is reaped and its reservations released
    /// [default: 2m]
    #[arg(long, env = "HUB_HEARTBEAT_TTL", value_parser = humantime::parse_duration)]
    heartbeat_ttl: Option<Duration>,
    /// How long a file reservation lasts unless announced again [default: 1h]
    #[arg(long, env = "HUB_RESERVATION_TTL", value_parser = humantime::parse_duration)]
    reservation_ttl: Option<Duration>,
    /// The longest a `query_agent` may wait for its answer [default: 10m]
    #[arg(long, env = "HUB_MAX_WAIT", value_parser = humantime::parse_duration)]
    max_wait: Option<Duration>,
    /// Compare reserved paths without regard to case, for teams on case-insensitive file
    /// systems (macOS, Windows): `Src/X.rs` and `src/x.rs` are one file
    #[arg(long, env = "HUB_PATHS_CASE_INSENSITIVE")]
    paths_case_insensitive: bool,
    /// How many messages an inbox holds; when it is full, read messages make room and unread
    /// ones are never dropped (a sender is refused instead) [default: 500]
    #[arg(long, env = "HUB_INBOX_SIZE")]
    inbox_size: Option<usize>,
    /// The most todos one agent holds in a project [default: 1000]
    #[arg(long, env = "HUB_MAX_TODOS_PER_SESSION")]
    max_todos_per_session: Option<usize>,
    /// The most todos a project holds [default: 10000]
    #[arg(long, env = "HUB_MAX_TODOS_PER_PROJECT")]
    max_todos_per_project: Option<usize>,
}

impl HubFlags {
    fn settings(&self) -> Settings {
        let defaults = Settings::default();
        Settings {
            heartbeat_ttl: self.heartbeat_ttl.unwrap_or(defaults.heartbeat_ttl),
            reservation_ttl: self.reservation_ttl.unwrap_or(defaults.reservation_ttl),
            max_wait: self.max_wait.unwrap_or(defaults.max_wait),
            paths: crate::PathRules {
                case_insensitive: self.paths_case_insensitive,
            },
            inbox_size: self.inbox_size.unwrap_or(defaults.inbox_size),
            max_todos_per_session: self
                .max_todos_per_session
                .unwrap_or(defaults.max_todos_per_session),
            max_todos_per_project: self
                .max_todos_per_project
                .unwrap_or(defaults.max_todos_per_project),
        }
    }
}

/// Serves the hub as the command line and environment say (`--help` lists the flags), its
/// records where the configuration keeps the agent's tasks, until SIGTERM or Ctrl-C.
pub async fn serve_from_command_line() -> Result<(), a2a_runtime::Error> {
    let Some((config, flags)) = ServeConfig::from_command_line::<Hub, HubFlags>()? else {
        return Ok(());
    };
    let records = config.open_records(Hub::descriptor().name()).await?;
    let hub = Hub::new(records, flags.settings());
    let server = hub.clone().server().config(config);
    crate::follow(&hub, server.resource_updates());
    server.serve().await
}
