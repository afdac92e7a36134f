//! The command line.

use a2a_runtime::TaskState;
use a2a_runtime::client::Binding;
use clap::{Args, Parser, Subcommand};

/// Talk to any A2A agent: read and validate its card, send messages, follow tasks, manage push
/// configs; read a server's usage.
#[derive(Debug, Parser)]
#[command(name = "a2a", version)]
pub(crate) struct Cli {
    /// Print A2A 1.0 JSON (one line per stream event) instead of text.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Send `Authorization: Bearer TOKEN`.
    #[arg(long, global = true, env = "A2A_TOKEN")]
    pub(crate) token: Option<String>,
    /// Send an API key header, as NAME=KEY (repeatable).
    #[arg(long = "api-key", global = true, value_parser = header)]
    pub(crate) api_keys: Vec<(String, String)>,
    /// Send a header, as NAME=VALUE (repeatable).
    #[arg(long = "header", global = true, value_parser = header)]
    pub(crate) headers: Vec<(String, String)>,
    /// The longest a request may take, and the longest a stream (`stream`, `subscribe`) may
    /// send nothing, not even a keep-alive.
    #[arg(long, global = true, default_value = "60s")]
    pub(crate) timeout: humantime::Duration,
    /// Call the agent through this binding only (`jsonrpc`, `http-json`, `grpc`) [default: the
    /// card's gRPC interface if it lists it first, else JSON-RPC, HTTP+JSON, then gRPC].
    #[arg(long, global = true, value_parser = binding)]
    pub(crate) binding: Option<Binding>,
    /// Answer a task's questions from standard input even when it is not a terminal (one line
    /// per answer). On a terminal, `send` and `stream` ask anyway.
    #[arg(long, short = 'i', global = true)]
    pub(crate) interactive: bool,
    #[command(subcommand)]
    pub(crate) command: Command,
}

fn header(raw: &str) -> Result<(String, String), String> {
    raw.split_once('=')
        .map(|(name, value)| (name.trim().to_owned(), value.to_owned()))
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| format!("`{raw}` is not NAME=VALUE"))
}

fn binding(raw: &str) -> Result<Binding, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "jsonrpc" | "json-rpc" => Ok(Binding::JsonRpc),
        "http-json" | "http+json" | "rest" => Ok(Binding::HttpJson),
        "grpc" => Ok(Binding::Grpc),
        _ => Err(format!(
            "`{raw}` is not a binding (jsonrpc, http-json, grpc)"
        )),
    }
}

fn state(raw: &str) -> Result<TaskState, String> {
    let wanted = raw.trim().to_ascii_lowercase().replace('_', "-");
    TaskState::ALL
        .into_iter()
        .find(|s| format!("{s:?}").to_ascii_lowercase() == wanted.replace('-', ""))
        .ok_or_else(|| {
            format!("`{raw}` is not a task state (working, completed, input-required …)")
        })
}

/// What to send.
#[derive(Debug, Args)]
pub(crate) struct Input {
    /// The message text.
    pub(crate) text: Option<String>,
    /// A JSON value to send as a data part instead of text.
    #[arg(long, conflicts_with = "text")]
    pub(crate) data: Option<String>,
    /// The skill to call (`metadata.skill`).
    #[arg(long)]
    pub(crate) skill: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Sign in to an agent through its authorization server (found from the agent's 401):
    /// your browser consents, and later commands to that agent send the saved tokens,
    /// refreshed as they expire.
    Login {
        /// The agent's base URL.
        url: String,
        /// The scopes to ask for, space separated [default: every scope the agent lists].
        #[arg(long)]
        scope: Option<String>,
        /// A client registered beforehand (a public client redirecting to
        /// http://127.0.0.1/callback) [default: register one].
        #[arg(long)]
        client_id: Option<String>,
        /// The loopback port the browser comes back to [default: any free one].
        #[arg(long)]
        port: Option<u16>,
        /// Print the URL only; do not open a browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Start a new agent: a crate of its own in folder NAME (`Cargo.toml`, one documented
    /// skill, `src/main.rs` serving it, a test on the runtime's harness, a README, `.gitignore`)
    /// that builds, passes its test and serves with `cargo run`, unedited.
    New {
        /// The package name (letters, digits, - and _); the agent's type is its words
        /// capitalized (`weather-agent` → `WeatherAgent`).
        name: String,
        /// Where to write it [default: ./NAME].
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
        /// For MCP clients: the test calls the agent as an MCP client does, and the README
        /// shows how to add it to one (it serves A2A all the same).
        #[arg(long)]
        mcp_only: bool,
        /// Also a program calling the served agent through its typed client
        /// (`examples/call.rs`).
        #[arg(long)]
        with_client: bool,
        /// Depend on a checkout of the runtime (its root or its a2a-runtime folder) instead of
        /// the published version.
        #[arg(long, value_name = "PATH")]
        runtime_path: Option<std::path::PathBuf>,
        /// Write no Cargo.lock. By default `cargo update` resolves the crate's dependencies
        /// now, with URL host names handled by unicode-rs rather than ICU4X (idna_adapter
        /// 1.1): about twenty crates fewer in the first build.
        #[arg(long)]
        no_lock: bool,
    },
    /// Forget the saved sign-in to an agent.
    Logout {
        /// The agent's base URL.
        url: String,
    },
    /// Print the agent's card.
    Card {
        /// The agent's base URL, or its card's URL.
        url: String,
    },
    /// Check the agent's card against its A2A version; exits 1 if it has errors.
    Validate {
        /// The agent's base URL, or its card's URL.
        url: String,
    },
    /// Send a message and print the settled task (or the agent's reply).
    Send {
        /// The agent's base URL.
        url: String,
        #[command(flatten)]
        input: Input,
        /// Print the task as soon as it exists.
        #[arg(long)]
        no_wait: bool,
    },
    /// Send a message and print its task's events as they happen.
    Stream {
        /// The agent's base URL.
        url: String,
        #[command(flatten)]
        input: Input,
    },
    /// Follow a running task until it settles.
    Subscribe {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
    },
    /// Print a task.
    Get {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
    },
    /// Cancel a task.
    Cancel {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
    },
    /// List your tasks, every page.
    List {
        /// The agent's base URL.
        url: String,
        /// Only tasks in this state.
        #[arg(long, value_parser = state)]
        state: Option<TaskState>,
        /// Only tasks of this conversation.
        #[arg(long)]
        context: Option<String>,
        /// Tasks per request.
        #[arg(long)]
        page_size: Option<usize>,
    },
    /// Manage a task's push notification configs.
    #[command(subcommand)]
    Push(PushCommand),
    /// Print a server's usage (calls, failures, time, bytes) per caller, skill or agent; needs
    /// credentials granted its admin scope (`--token`), or `--mine` for your own.
    Usage {
        /// The server's URL (a host's root, not an agent's path under it).
        url: String,
        /// From this time (RFC 3339) [default: 30 days ago].
        #[arg(long)]
        since: Option<String>,
        /// Until this time (RFC 3339) [default: now].
        #[arg(long)]
        until: Option<String>,
        /// Group by `caller`, `skill`, `agent` or `claim:NAME` (a claim the server keeps with
        /// its rows) [default: caller; skill with --mine].
        #[arg(long)]
        by: Option<String>,
        /// Only your own calls (any signed-in caller may see theirs; no admin scope needed).
        #[arg(long)]
        mine: bool,
        /// Only this agent's calls.
        #[arg(long)]
        agent: Option<String>,
        /// At most this many groups.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Write a server's discovery documents (MCP server cards and `server.json`, SKILL.md
    /// files, the AI Catalog and MCP catalog, agent cards) into a folder, at their paths, for
    /// static hosting or registry publishing: fetched from the running server at URL, or printed
    /// by an agent's binary (`--binary`, which serves nothing).
    Manifest {
        /// The running server's (or a hosted agent's) URL.
        #[arg(required_unless_present = "binary")]
        url: Option<String>,
        /// Where to write them.
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// Replace documents already in DIR (without it, an existing file stops the command
        /// before anything is written).
        #[arg(long)]
        force: bool,
        /// The agent's binary, run with `--print-manifests` and the arguments after `--` (give
        /// `--public-url` the URL it will be served at).
        #[arg(long, value_name = "PATH", conflicts_with = "url")]
        binary: Option<std::path::PathBuf>,
        /// The binary's own flags.
        #[arg(last = true, value_name = "FLAGS")]
        flags: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum PushCommand {
    /// Register a webhook for a task's updates.
    Set {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
        /// Where updates are POSTed.
        webhook: String,
        /// A token the receiver checks.
        #[arg(long)]
        token: Option<String>,
    },
    /// Print one config.
    Get {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
        /// The config.
        id: String,
    },
    /// Print a task's configs.
    List {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
    },
    /// Remove a config.
    Delete {
        /// The agent's base URL.
        url: String,
        /// The task.
        task_id: String,
        /// The config.
        id: String,
    },
}
