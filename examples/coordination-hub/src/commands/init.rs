//! `coordination-hub init`: writes the chosen MCP hosts' configuration into the repository, so
//! each of them starts this binary over stdio for the project, all sharing one data directory;
//! with `--hooks`, Claude Code's hooks that hold edits to the reservations.

use std::path::{Path, PathBuf};

use a2a_runtime::serde_json::value::RawValue;
use a2a_runtime::serde_json::{Value, json};

use super::configs::{self, Launch, RawObject, Written};
use crate::repository::{default_project, repository_root};

/// What `--client` names: one MCP host `init` configures, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Client {
    /// Claude Code: `.mcp.json`.
    ClaudeCode,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json`.
    Vscode,
    /// Codex: `.codex/config.toml` (read in trusted projects).
    Codex,
    /// All of them.
    All,
}

/// An MCP host `init` writes the configuration of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    ClaudeCode,
    Cursor,
    Vscode,
    Codex,
}

impl Client {
    fn hosts(self) -> &'static [Host] {
        match self {
            Client::ClaudeCode => &[Host::ClaudeCode],
            Client::Cursor => &[Host::Cursor],
            Client::Vscode => &[Host::Vscode],
            Client::Codex => &[Host::Codex],
            Client::All => &[Host::ClaudeCode, Host::Cursor, Host::Vscode, Host::Codex],
        }
    }
}

/// `init`'s flags.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The project the agents of this repository share [default: the repository's folder name]
    #[arg(long, env = "HUB_PROJECT_ID")]
    project: Option<String>,
    /// The MCP hosts to configure, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "claude-code")]
    client: Vec<Client>,
    /// The data directory the hub processes share [default: the default data directory]
    #[arg(long, env = "HUB_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// The server's name in the configuration files
    #[arg(long, default_value = "coordination-hub")]
    name: String,
    /// Replace an entry (or a file that does not parse) this command did not write
    #[arg(long)]
    force: bool,
    /// Also write Claude Code hooks (`.claude/settings.json`) that block an edit of a file another
    /// agent reserved and announce each edit; needs --session
    #[arg(long, requires = "session")]
    hooks: bool,
    /// The session name the hooks act as (each agent's worktree gets its own)
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
}

/// Runs `init` in the current directory's repository.
pub(crate) fn run(args: InitArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let root = repository_root(&cwd);
    let project = match &args.project {
        Some(project) => project.clone(),
        None => default_project(&root),
    };
    crate::checked("project", &project).map_err(|e| e.message().to_owned())?;
    let binary = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("where this binary is: {e}"))?;
    let data_dir = absolute(&cwd, args.data_dir.clone().unwrap_or_else(default_data_dir));
    let launch = Launch {
        command: binary.display().to_string(),
        args: vec![
            "--stdio".into(),
            "--data-dir".into(),
            data_dir.display().to_string(),
        ],
        env: vec![("HUB_PROJECT_ID".into(), project.clone())],
    };
    // Each host once, in the order named (`--client all,cursor` is all four).
    let mut hosts = Vec::new();
    for host in args.client.iter().flat_map(|client| client.hosts()) {
        if !hosts.contains(host) {
            hosts.push(*host);
        }
    }
    let mut failed = Vec::new();
    for host in hosts {
        let (path, written) = write_host(&root, host, &args, &launch);
        report(&path, written, &mut failed);
    }
    if args.hooks {
        let path = root.join(".claude").join("settings.json");
        let written = write_hooks(&path, &binary, &project, &data_dir, &args);
        report(&path, written, &mut failed);
    }
    println!(
        "\nproject {project}, data in {}\nThe same for Claude Code by hand:\n  {}",
        data_dir.display(),
        claude_mcp_add(&args.name, &launch)
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

fn write_host(
    root: &Path,
    host: Host,
    args: &InitArgs,
    launch: &Launch,
) -> (PathBuf, Result<Written, String>) {
    let (name, force) = (args.name.as_str(), args.force);
    match host {
        Host::ClaudeCode => {
            let path = root.join(".mcp.json");
            let entry = configs::json_entry(launch, false);
            let written = configs::put_json_server(&path, "mcpServers", name, &entry, force);
            (path, written)
        }
        Host::Cursor => {
            let path = root.join(".cursor").join("mcp.json");
            let entry = configs::json_entry(launch, false);
            let written = configs::put_json_server(&path, "mcpServers", name, &entry, force);
            (path, written)
        }
        Host::Vscode => {
            let path = root.join(".vscode").join("mcp.json");
            let entry = configs::json_entry(launch, true);
            let written = configs::put_json_server(&path, "servers", name, &entry, force);
            (path, written)
        }
        Host::Codex => {
            let path = root.join(".codex").join("config.toml");
            let written = configs::put_codex_server(&path, name, launch, force);
            (path, written)
        }
    }
}

fn report(path: &Path, written: Result<Written, String>, failed: &mut Vec<String>) {
    match written {
        Ok(Written::Created) => println!("wrote     {}", path.display()),
        Ok(Written::Updated) => println!("updated   {}", path.display()),
        Ok(Written::Unchanged) => println!("unchanged {}", path.display()),
        Err(error) => {
            eprintln!("skipped   {}: {error}", path.display());
            failed.push(error);
        }
    }
}

/// Puts the pre-edit and post-edit hooks in `.claude/settings.json` at `path`, replacing
/// earlier ones of a coordination hub and keeping every other hook.
fn write_hooks(
    path: &Path,
    binary: &Path,
    project: &str,
    data_dir: &Path,
    args: &InitArgs,
) -> Result<Written, String> {
    let session = args.session.as_deref().unwrap_or_default();
    crate::checked("session", session).map_err(|e| e.message().to_owned())?;
    configs::merge_json(path, args.force, |root| {
        let mut hooks: RawObject = match root.get("hooks") {
            Some(raw) => a2a_runtime::serde_json::from_str(raw.get())
                .map_err(|e| format!("`hooks` is not an object: {e}"))?,
            None => RawObject::new(),
        };
        let mut changed = false;
        for (event, which) in [("PreToolUse", "pre-edit"), ("PostToolUse", "post-edit")] {
            let command = format!(
                "{} hook {which} --project {} --session {} --data-dir {}",
                shell_word(&binary.display().to_string()),
                shell_word(project),
                shell_word(session),
                shell_word(&data_dir.display().to_string()),
            );
            let ours = json!({
                "matcher": "Edit|Write|MultiEdit",
                "hooks": [{ "type": "command", "command": command, "timeout": 15 }],
            });
            let mut groups: Vec<Box<RawValue>> = match hooks.get(event) {
                Some(raw) => a2a_runtime::serde_json::from_str(raw.get())
                    .map_err(|e| format!("`hooks.{event}` is not a list: {e}"))?,
                None => Vec::new(),
            };
            let parsed = |raw: &RawValue| {
                a2a_runtime::serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null)
            };
            if groups.iter().any(|group| parsed(group) == ours) {
                continue;
            }
            groups.retain(|group| !is_hub_hook(&parsed(group), which));
            groups.push(configs::raw(&ours)?);
            hooks.insert(event.to_owned(), configs::raw(&groups)?);
            changed = true;
        }
        if !changed {
            return Ok(false);
        }
        root.insert("hooks".into(), configs::raw(&hooks)?);
        Ok(true)
    })
}

/// Whether a hook group of Claude Code's settings runs a coordination hub's `hook WHICH`.
fn is_hub_hook(group: &Value, which: &str) -> bool {
    let commands = group["hooks"].as_array().into_iter().flatten();
    commands
        .filter_map(|hook| hook["command"].as_str())
        .any(|command| {
            command.contains(&format!("hook {which}"))
                && command
                    .split_whitespace()
                    .next()
                    .is_some_and(|program| program.trim_matches('\'').ends_with("coordination-hub"))
        })
}

/// The `claude mcp add` line that writes the same entry. The server's name comes before any
/// `--env`: Claude Code's `-e/--env` takes every value up to the next option, and would read a
/// name after it as one more (`Invalid environment variable format`); `--` ends the values.
fn claude_mcp_add(name: &str, launch: &Launch) -> String {
    let env: Vec<String> = launch
        .env
        .iter()
        .map(|(k, v)| format!("--env {}", shell_word(&format!("{k}={v}"))))
        .collect();
    let args: Vec<String> = launch.args.iter().map(|a| shell_word(a)).collect();
    format!(
        "claude mcp add --transport stdio --scope project {} {} -- {} {}",
        shell_word(name),
        env.join(" "),
        shell_word(&launch.command),
        args.join(" ")
    )
}

/// `word` quoted for a POSIX shell when it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn default_data_dir() -> PathBuf {
    a2a_runtime::server::ServeConfig::default().data_dir_or_default()
}

fn absolute(cwd: &Path, path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        path
    } else {
        cwd.join(path)
    }
}
