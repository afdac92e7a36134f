//! `coordination-hub init`: writes the chosen MCP hosts' configuration into the repository, so
//! each of them starts this binary over stdio for the project, all sharing one data directory;
//! with `--hooks`, Claude Code's hooks that hold edits to the reservations; with `--git-hooks`,
//! git's pre-commit hook that refuses a commit touching another agent's files.
//!
//! The hosts' files are meant to be committed, so they hold nothing of this machine: the binary
//! by its name on the `PATH` (unless `--absolute`), no data directory unless one is named (the
//! hub's default is per user, shared by every worktree). The hooks, per person, go into Claude
//! Code's git-ignored `.claude/settings.local.json`.

use std::path::{Path, PathBuf};

use a2a_runtime::serde_json::value::RawValue;
use a2a_runtime::serde_json::{Value, json};

use super::configs::{self, Launch, RawObject, Remote, Written};
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
    /// The project the agents of this repository share [default: the repository's name, which
    /// all its worktrees share]
    #[arg(long, env = "HUB_PROJECT_ID")]
    project: Option<String>,
    /// The MCP hosts to configure, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "claude-code")]
    client: Vec<Client>,
    /// The data directory the hub processes share, written into the files [default: the hub's
    /// per-user data directory, written nowhere]
    #[arg(long, env = "HUB_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// The server's name in the configuration files
    #[arg(long, default_value = "coordination-hub")]
    name: String,
    /// Replace an entry (or a file that does not parse) this command did not write
    #[arg(long)]
    force: bool,
    /// Also write Claude Code hooks (`.claude/settings.local.json`, per person) that block an
    /// edit of a file another agent reserved and announce each edit
    #[arg(long)]
    hooks: bool,
    /// Also install git's pre-commit hook (in the hooks folder every worktree shares), which
    /// refuses a commit touching a file another active agent holds: it covers shell edits and
    /// agents without Claude Code's hooks
    #[arg(long)]
    git_hooks: bool,
    /// The session name the hooks act as [default: each worktree's branch, else its folder]
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
    /// A team's hub served over HTTP (its MCP endpoint, `https://hub.example/mcp`): the hosts
    /// connect to it instead of starting the hub, and the hooks check with it
    #[arg(long, value_parser = hub_url, conflicts_with = "data_dir")]
    hub: Option<String>,
    /// The environment variable each person keeps their bearer token for `--hub` in: the files
    /// name the variable as their host expands it, never the token
    #[arg(long, requires = "hub", value_parser = variable_name)]
    token_env: Option<String>,
    /// Name this binary by its absolute path on this machine rather than by its name on the
    /// `PATH` (files only this machine can use)
    #[arg(long)]
    absolute: bool,
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
    let command = program(args.absolute)?;
    let data_dir = args.data_dir.clone().map(|dir| absolute(&cwd, dir));
    let mut launch_args = vec!["--stdio".to_owned()];
    if let Some(dir) = &data_dir {
        launch_args.extend(["--data-dir".into(), dir.display().to_string()]);
    }
    let launch = Launch {
        command,
        args: launch_args,
        env: vec![("HUB_PROJECT_ID".into(), project.clone())],
    };
    let remote = args.hub.clone().map(|url| Remote {
        url,
        token_env: args.token_env.clone(),
    });
    // Each host once, in the order named (`--client all,cursor` is all four).
    let mut hosts = Vec::new();
    for host in args.client.iter().flat_map(|client| client.hosts()) {
        if !hosts.contains(host) {
            hosts.push(*host);
        }
    }
    let (mut failed, mut shared) = (Vec::new(), Vec::new());
    for host in hosts {
        let (path, written) = write_host(&root, host, &args, &launch, remote.as_ref());
        report(&path, written, &mut failed);
        shared.push(relative(&root, &path));
    }
    if args.hooks {
        let path = root.join(".claude").join("settings.local.json");
        let hooks = Hooks {
            launch: &launch,
            remote: remote.as_ref(),
            project: &project,
            session: args.session.as_deref(),
        };
        let written = write_hooks(&path, &hooks, args.force);
        report(&path, written, &mut failed);
        if let Err(error) = super::git_hooks::exclude(&root, "/.claude/settings.local.json") {
            eprintln!("note: .claude/settings.local.json is not git-ignored: {error}");
        }
    }
    if args.git_hooks {
        // Shared by every worktree (and every session): the committer's session is its own.
        let hooks = Hooks {
            launch: &launch,
            remote: remote.as_ref(),
            project: &project,
            session: None,
        };
        let command = hooks.command("pre-commit");
        let program = shell_word(&launch.command);
        let (path, written) = super::git_hooks::install(&root, &program, &command, args.force);
        report(&path, written, &mut failed);
    }
    summarize(&project, &launch, &shared, &args);
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
    remote: Option<&Remote>,
) -> (PathBuf, Result<Written, String>) {
    let (name, force) = (args.name.as_str(), args.force);
    // Each host's own way to expand an environment variable in a header.
    let entry = |expand: fn(&str) -> String, typed: bool| match remote {
        Some(remote) => configs::http_entry(remote, expand, typed),
        None => configs::json_entry(launch, typed),
    };
    match host {
        Host::ClaudeCode => {
            let path = root.join(".mcp.json");
            let entry = entry(|var| format!("${{{var}}}"), remote.is_some());
            let written = configs::put_json_server(&path, "mcpServers", name, &entry, force);
            (path, written)
        }
        Host::Cursor => {
            let path = root.join(".cursor").join("mcp.json");
            let entry = entry(|var| format!("${{env:{var}}}"), false);
            let written = configs::put_json_server(&path, "mcpServers", name, &entry, force);
            (path, written)
        }
        Host::Vscode => {
            let path = root.join(".vscode").join("mcp.json");
            let entry = entry(|var| format!("${{env:{var}}}"), true);
            let written = configs::put_json_server(&path, "servers", name, &entry, force);
            (path, written)
        }
        Host::Codex => {
            let path = root.join(".codex").join("config.toml");
            let table = match remote {
                Some(remote) => configs::codex_http(remote),
                None => configs::codex_stdio(launch),
            };
            let written = configs::put_codex_server(&path, name, table, force);
            (path, written)
        }
    }
}

/// `--hub`: an `http` or `https` URL.
fn hub_url(text: &str) -> Result<String, String> {
    let scheme_ok = text.starts_with("https://") || text.starts_with("http://");
    if scheme_ok && !text.contains(char::is_whitespace) {
        Ok(text.to_owned())
    } else {
        Err("an http:// or https:// URL of the hub's MCP endpoint".into())
    }
}

/// `--token-env`: an environment variable's name (letters, digits, `_`, not first a digit).
fn variable_name(text: &str) -> Result<String, String> {
    let mut bytes = text.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if first_ok && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        Ok(text.to_owned())
    } else {
        Err("a variable name: letters, digits and `_`, not starting with a digit".into())
    }
}

/// The last words: the project, where its data is, what to commit, the hand-written line.
fn summarize(project: &str, launch: &Launch, shared: &[String], args: &InitArgs) {
    match (&args.hub, &args.data_dir) {
        (Some(url), _) => {
            println!("\nproject {project}, on the team's hub {url}");
            if let Some(var) = &args.token_env {
                println!("Each person sets {var} to their own token; the files name only {var}.");
            }
        }
        (None, Some(_)) => println!("\nproject {project}, data in the data directory named"),
        (None, None) => println!(
            "\nproject {project}, data in {} (this user's default, for every worktree)",
            default_data_dir().display()
        ),
    }
    if !shared.is_empty() && !args.absolute {
        println!(
            "Meant to be committed (no path of this machine in them): {}",
            shared.join(", ")
        );
    }
    if args.hooks {
        println!(
            "The hooks are per person and per worktree: .claude/settings.local.json stays out \
             of git; run init --hooks in each new worktree."
        );
    }
    let started_here = args.hub.is_none() || args.hooks || args.git_hooks;
    if started_here && !args.absolute && !on_path(&launch.command) {
        println!(
            "note: `{}` is not on this PATH, and the hosts start it by that name: install it \
             (cargo install --locked --path examples/coordination-hub) or run init --absolute",
            launch.command
        );
    }
    println!(
        "The same for Claude Code by hand:\n  {}",
        claude_mcp_add(
            &args.name,
            launch,
            args.hub.as_deref(),
            args.token_env.as_deref()
        )
    );
}

/// How the hosts start this binary: its name, which the `PATH` finds (installed by `cargo
/// install`), or with `absolute` its path on this machine.
fn program(absolute: bool) -> Result<String, String> {
    let binary = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("where this binary is: {e}"))?;
    if absolute {
        return Ok(binary.display().to_string());
    }
    binary
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or_else(|| format!("this binary's name: {}", binary.display()))
}

/// Whether `program` is an executable file in a folder of the `PATH`.
fn on_path(program: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let candidate = dir.join(program);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(&candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            candidate.is_file() || candidate.with_extension("exe").is_file()
        }
    })
}

/// `path` relative to `root`, with `/` between its parts, for a person to read.
fn relative(root: &Path, path: &Path) -> String {
    let inside = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
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

/// What the hooks run: the hub as the hosts start it, for `project`, as `session` (else the
/// worktree's).
struct Hooks<'a> {
    launch: &'a Launch,
    /// The team's HTTP hub the hooks check with, instead of the local data directory.
    remote: Option<&'a Remote>,
    project: &'a str,
    session: Option<&'a str>,
}

impl Hooks<'_> {
    /// The command of hook `which`.
    fn command(&self, which: &str) -> String {
        let mut words = vec![
            shell_word(&self.launch.command),
            "hook".into(),
            which.into(),
            "--project".into(),
            shell_word(self.project),
        ];
        if let Some(session) = self.session {
            words.extend(["--session".into(), shell_word(session)]);
        }
        if let Some(remote) = self.remote {
            words.extend(["--hub".into(), shell_word(&remote.url)]);
            if let Some(var) = &remote.token_env {
                words.extend(["--token-env".into(), shell_word(var)]);
            }
            return words.join(" ");
        }
        // The launch's `--data-dir DIR`, if it names one.
        let data_dir = self.launch.args.iter().skip_while(|a| *a != "--data-dir");
        words.extend(data_dir.take(2).map(|word| shell_word(word)));
        words.join(" ")
    }
}

/// Claude Code's hooks `init --hooks` writes: the event, the hub's hook, the tools it runs for.
const HOOKS: [(&str, &str, &str); 3] = [
    ("PreToolUse", "pre-edit", "Edit|Write|MultiEdit"),
    ("PostToolUse", "post-edit", "Edit|Write|MultiEdit"),
    // Every tool: a shell command or a notebook edit changes files the edit hooks never see.
    ("PostToolUse", "post-tool", "*"),
];

/// Puts the pre-edit, post-edit and post-tool hooks in Claude Code's settings file at `path`, replacing
/// earlier ones of a coordination hub and keeping every other hook.
fn write_hooks(path: &Path, hooks_of: &Hooks<'_>, force: bool) -> Result<Written, String> {
    if let Some(session) = hooks_of.session {
        crate::checked("session", session).map_err(|e| e.message().to_owned())?;
    }
    configs::merge_json(path, force, |root| {
        let mut hooks: RawObject = match root.get("hooks") {
            Some(raw) => a2a_runtime::serde_json::from_str(raw.get())
                .map_err(|e| format!("`hooks` is not an object: {e}"))?,
            None => RawObject::new(),
        };
        let mut changed = false;
        for (event, which, matcher) in HOOKS {
            let command = hooks_of.command(which);
            let ours = json!({
                "matcher": matcher,
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
            groups.retain(|group| !is_hub_hook(&parsed(group), which, &hooks_of.launch.command));
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

/// Whether a hook group of Claude Code's settings runs a coordination hub's `hook WHICH` (this
/// binary by `program`, its name or path, or one named `coordination-hub`).
fn is_hub_hook(group: &Value, which: &str, program: &str) -> bool {
    let commands = group["hooks"].as_array().into_iter().flatten();
    commands
        .filter_map(|hook| hook["command"].as_str())
        .any(|command| {
            command.contains(&format!("hook {which}"))
                && command
                    .split_whitespace()
                    .next()
                    .map(|word| word.trim_matches('\''))
                    .is_some_and(|word| word.ends_with("coordination-hub") || word == program)
        })
}

/// The `claude mcp add` line that writes the same entry. The server's name comes before any
/// `--env`: Claude Code's `-e/--env` takes every value up to the next option, and would read a
/// name after it as one more (`Invalid environment variable format`); `--` ends the values.
fn claude_mcp_add(
    name: &str,
    launch: &Launch,
    hub: Option<&str>,
    token_env: Option<&str>,
) -> String {
    if let Some(url) = hub {
        // `--header` takes several values too: it comes after the name and the URL.
        let header = token_env
            .map(|var| {
                format!(
                    " --header {}",
                    shell_word(&format!("Authorization: Bearer ${{{var}}}"))
                )
            })
            .unwrap_or_default();
        return format!(
            "claude mcp add --transport http --scope project {} {}{header}",
            shell_word(name),
            shell_word(url)
        );
    }
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
