//! `coordination-hub hook pre-edit|post-edit`: Claude Code's `PreToolUse` and `PostToolUse`
//! hooks for `Edit`, `Write` and `MultiEdit`, which make reservations binding. Claude Code runs
//! the command with the tool call as JSON on stdin; exit code 2 blocks the call (after it ran,
//! for `PostToolUse`) and shows stderr to the model as the reason; 0 lets it through; any other
//! code is an error shown to the person, not the model, and does not block.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use a2a_runtime::serde_json::Value;
use a2a_runtime::tokio;
use a2a_runtime::tokio::io::AsyncReadExt;

use super::access::{HubArgs, Refusal};
use crate::Announcement;
use crate::model::ReservationMode;

/// The most a hook reads of its input: a `Write` carries the whole file.
const MAX_INPUT: u64 = 64 << 20;

/// How long a hook waits for its input.
const INPUT_WAIT: Duration = Duration::from_secs(10);

/// Lets the call through.
pub(crate) const ALLOW: u8 = 0;
/// Blocks the call; stderr tells the model why.
pub(crate) const BLOCK: u8 = 2;
/// A failure of the hook itself: shown to the person, the call goes ahead.
pub(crate) const BROKEN: u8 = 1;

/// Which hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Before the edit: blocks it if another agent holds the file, else reserves it.
    PreEdit,
    /// After the edit: announces it (renewing the reservation, recording the change).
    PostEdit,
}

/// A hook's flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HookArgs {
    #[command(flatten)]
    pub(crate) hub: HubArgs,
    /// The session name this agent registered with [default: the worktree's branch, else its
    /// folder]
    #[arg(long, env = "HUB_SESSION")]
    pub(crate) session: Option<String>,
}

/// Runs the hook on the tool call on stdin: the exit code Claude Code acts on.
pub(crate) async fn run(moment: Moment, args: HookArgs) -> u8 {
    let input = match read_input().await {
        Ok(input) => input,
        Err(error) => return broken(&error),
    };
    let Some((root, path)) = edited_file(&input) else {
        // Not a file in this repository (or not a file edit): nothing to hold.
        return ALLOW;
    };
    let project = args.hub.project(&root);
    let session = args
        .session
        .clone()
        .unwrap_or_else(|| crate::repository::default_session(&root));
    let hub = match args.hub.open(&project).await {
        Ok(hub) => hub,
        Err(refusal) => return broken(&refusal.message),
    };
    let tool = input["tool_name"].as_str().unwrap_or("an edit");
    let check = hub.check_file(&project, &session, &path).await;
    let covered_by_glob = match check {
        Ok(check) => check
            .reservation
            .is_some_and(|r| r.file_path != check.file_path),
        Err(refusal) => return refused(&refusal, &path, &session),
    };
    if covered_by_glob {
        return ALLOW;
    }
    let announcement = Announcement {
        project,
        session: session.clone(),
        // The file's own name, as a pattern naming it alone (`app/[[]id[]]/page.tsx`).
        file_path: crate::glob::escape(&path),
        change_type: "modify".into(),
        description: match moment {
            Moment::PreEdit => format!("editing with {tool}"),
            Moment::PostEdit => format!("edited with {tool}"),
        },
        mode: ReservationMode::Exclusive,
        ttl: None,
    };
    match hub.announce(announcement).await {
        Ok(_) => ALLOW,
        Err(refusal) => refused(&refusal, &path, &session),
    }
}

/// The exit code and stderr for a refusal: another agent's reservation or an unregistered
/// session blocks; anything else is the hook's own failure.
fn refused(refusal: &Refusal, path: &str, session: &str) -> u8 {
    match refusal.status() {
        Some("conflict") => {
            let data = refusal.data.as_ref();
            let holder = data
                .and_then(|d| d["lock_info"]["session"].as_str())
                .unwrap_or("another agent");
            let pattern = data
                .and_then(|d| d["lock_info"]["file_path"].as_str())
                .unwrap_or(path);
            let suggestion = data
                .and_then(|d| d["suggestion"].as_str())
                .unwrap_or("wait, or ask that agent");
            eprintln!(
                "{path} is reserved by {holder} ({pattern}); do not edit it now. {suggestion}: \
                 call query_agent with to_session `{holder}`, or work on another file first."
            );
            BLOCK
        }
        Some("not_found") => {
            eprintln!(
                "The coordination hub does not know session `{session}`: {}. Call \
                 register_agent with session_name `{session}` (this repository's hooks act as \
                 it), then edit {path}.",
                refusal.message.trim_end_matches('.')
            );
            BLOCK
        }
        _ => broken(&refusal.message),
    }
}

/// Ends the hook's process with `code` at once. Returning from `main` would wait for the
/// runtime's blocking threads, and one may still be reading a stdin its writer never closed:
/// the hook said it gave up, and must then end.
pub(crate) fn exit(code: u8) -> ! {
    use std::io::Write as _;
    let _ = std::io::stderr().flush();
    let _ = std::io::stdout().flush();
    std::process::exit(i32::from(code))
}

fn broken(message: &str) -> u8 {
    eprintln!("coordination-hub hook: {message}");
    BROKEN
}

/// The hook's input: one JSON object on stdin, bounded in size and time.
pub(crate) async fn read_input() -> Result<Value, String> {
    let mut text = Vec::new();
    let mut stdin = tokio::io::stdin().take(MAX_INPUT);
    let read = stdin.read_to_end(&mut text);
    match tokio::time::timeout(INPUT_WAIT, read).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(format!("reading stdin: {e}")),
        Err(_) => return Err(format!("no input on stdin within {INPUT_WAIT:?}")),
    }
    a2a_runtime::serde_json::from_slice(&text).map_err(|e| format!("stdin is not JSON: {e}"))
}

/// The repository and the repository-relative path (with `/`) of the file the tool call
/// edits, if it edits one inside the repository.
pub(crate) fn edited_file(input: &Value) -> Option<(PathBuf, String)> {
    let tool_input = &input["tool_input"];
    let file = tool_input["file_path"]
        .as_str()
        .or_else(|| tool_input["notebook_path"].as_str())?;
    let cwd = call_folder(input)?;
    let root = crate::repository::repository_root(&cwd);
    // Through the links of its folders: a folder linked into the repository makes one file two
    // names, and both must be the one file (a link leading out of it, none of the hub's).
    let file = resolved(&lexical(&cwd.join(file)));
    let relative = file.strip_prefix(resolved(&lexical(&root))).ok()?;
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| (root, parts.join("/")))
}

/// The folder the tool call ran in: its `cwd`, else Claude Code's project folder, else this
/// process's.
pub(crate) fn call_folder(input: &Value) -> Option<PathBuf> {
    input["cwd"]
        .as_str()
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())
}

/// `path` with the symbolic links of its longest existing part resolved (the file itself may
/// not exist yet: what follows that part is kept as written).
fn resolved(path: &Path) -> PathBuf {
    for existing in path.ancestors() {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let rest = path.strip_prefix(existing).unwrap_or(Path::new(""));
            return if rest.as_os_str().is_empty() {
                real
            } else {
                real.join(rest)
            };
        }
    }
    path.to_path_buf()
}

/// `path` with `.` and `..` resolved by their names (the file may not exist yet).
fn lexical(path: &Path) -> PathBuf {
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            other => resolved.push(other),
        }
    }
    resolved
}
