//! Serving the hub from the command line: the server's flags, and the hub's own.

use std::time::Duration;

use a2a_runtime::Agent as _;
use a2a_runtime::server::ServeConfig;
use a2a_runtime::tokio;

use crate::{Hub, Settings};

/// The hub's own flags, beside the server's.
#[derive(Debug, clap::Args)]
#[command(after_help = "Commands (`coordination-hub COMMAND --help`):
  init       write the MCP configuration of Claude Code, Cursor, VS Code or Codex into this repository
  hook       Claude Code's hooks (pre-edit, post-edit, post-tool) and git's (pre-commit)
  preflight  compare this worktree's branch with the other agents' before anyone merges
  status     show the project's agents, their reservations, todos and unanswered questions")]
struct HubFlags {
    /// The project of calls that name none: an MCP host starts the hub for one repository, so
    /// its agents need not repeat it [default over `--stdio`: the repository's name, which all
    /// its worktrees share]
    #[arg(long, env = "HUB_PROJECT_ID")]
    project: Option<String>,
    /// The session name the agent this stdio hub serves should register with, which the
    /// instructions tell it (the hooks act as the same name) [default: the worktree's branch,
    /// else its folder]
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
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
/// records where the configuration keeps the agent's tasks, until SIGTERM or Ctrl-C (over
/// `--stdio`, until the host closes stdin: then the sessions registered through this process
/// are released, as [`Hub::tethered_to_process`] says).
pub async fn serve_from_command_line() -> Result<(), a2a_runtime::Error> {
    let Some((config, flags)) = ServeConfig::from_command_line::<Hub, HubFlags>()? else {
        return Ok(());
    };
    let records = config.open_records(Hub::descriptor().name()).await?;
    let mut hub = Hub::new(records, flags.settings());
    let stdio = config.stdio;
    // Over stdio an MCP host starts the hub in the repository it works on (its worktree):
    // calls naming no project are that repository's, whichever worktree started it.
    let checkout = std::env::current_dir()
        .ok()
        .filter(|_| stdio)
        .and_then(|cwd| crate::repository::Checkout::find(&cwd));
    let project = flags
        .project
        .clone()
        .or_else(|| checkout.as_ref().map(|checkout| checkout.project()));
    // The session this worktree's hooks act as, so the agent registers as that one.
    let session = match &flags.session {
        Some(session) => Some(session.clone()),
        None => checkout.as_ref().map(|checkout| checkout.session()),
    };
    if let Some(project) = &project {
        if stdio {
            // For this repository's hooks, which run without these flags.
            if let Err(error) = hub.settings().save(hub.records(), project).await {
                a2a_runtime::tracing::warn!(%error, "the settings could not be left for the hooks");
            }
        }
        hub = hub
            .with_default_project(project)
            .map_err(|e| a2a_runtime::Error::Config(format!("--project: {}", e.message())))?;
    }
    if stdio {
        hub = hub.tethered_to_process();
    }
    if let Some(checkout) = checkout {
        hub = hub.in_checkout(checkout);
    }
    // The overseer's page goes where the SDK's console goes (loopback by default, `--console`).
    let page = !stdio && config.console_enabled();
    let mut server = hub.clone().server().config(config);
    if let Some(session) = session.filter(|_| stdio) {
        let instructions = crate::guidance::instructions_for_session(&session);
        server = server.instructions(instructions);
    }
    if page {
        server = server.routes(crate::overview_page());
    }
    crate::follow(&hub, server.resource_updates());
    if !stdio {
        return server.serve().await;
    }
    let served = tokio::select! {
        served = server.serve() => served,
        () = hub.keep_tethered_alive() => Ok(()),
        () = terminated() => Ok(()),
    };
    hub.release_tethered().await;
    served
}

/// SIGTERM or Ctrl-C: an MCP host that does not close stdin stops its server with them.
async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
