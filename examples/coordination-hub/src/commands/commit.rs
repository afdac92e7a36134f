//! `coordination-hub hook pre-commit`: git's `pre-commit` hook (installed by `init
//! --git-hooks`), which refuses a commit that touches a file another active agent holds. It
//! covers what the edit hooks cannot see — a shell's `sed -i`, and every agent without such
//! hooks (Cursor, VS Code, Codex) — at the latest moment before the change leaves the worktree.
//!
//! Git runs it in the worktree being committed; a non-zero exit aborts the commit. A hook that
//! fails itself (no `git`, no hub) lets the commit through with a warning: a person's commit is
//! never held hostage by a broken hook.

use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncReadExt as _;

use super::access::HubArgs;
use crate::repository::Checkout;

/// The most of `git diff`'s list of staged files read.
const MAX_LIST: u64 = 64 << 20;

/// How long `git diff` may take.
const GIT_WAIT: Duration = Duration::from_secs(30);

/// The hook's flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PreCommitArgs {
    #[command(flatten)]
    hub: HubArgs,
    /// The session committing [default: the worktree's branch, else its folder]
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
}

/// One staged file another agent holds.
struct Held {
    path: String,
    holder: String,
    pattern: String,
}

/// Runs the hook in the current directory's worktree: 0 lets the commit through, 1 refuses it.
pub(crate) async fn run(args: PreCommitArgs) -> u8 {
    let Ok(cwd) = std::env::current_dir() else {
        return broken("the current directory cannot be read");
    };
    let Some(checkout) = Checkout::find(&cwd) else {
        return broken("not in a git repository");
    };
    let staged = match staged_files(&checkout.root).await {
        Ok(staged) => staged,
        Err(error) => return broken(&error),
    };
    if staged.is_empty() {
        return 0;
    }
    let project = args.hub.project(&checkout.root);
    let session = args.session.clone().unwrap_or_else(|| checkout.session());
    let hub = match args.hub.open().await {
        Ok(hub) => hub,
        Err(refusal) => return broken(&refusal.message),
    };
    let mut held = Vec::new();
    for path in staged {
        match hub.check_file(&project, &session, &path).await {
            Ok(_) => {}
            Err(refusal) if refusal.status() == Some("conflict") => {
                let lock = refusal.data.as_ref().map(|data| &data["lock_info"]);
                let text = |field: &str| {
                    lock.and_then(|lock| lock[field].as_str())
                        .unwrap_or("?")
                        .to_owned()
                };
                held.push(Held {
                    holder: text("session"),
                    pattern: text("file_path"),
                    path,
                });
            }
            Err(refusal) => return broken(&refusal.message),
        }
    }
    if held.is_empty() {
        return 0;
    }
    eprintln!(
        "coordination-hub: this commit touches {} file(s) other agents of project {project} \
         hold (committing as {session}):",
        held.len()
    );
    for file in &held {
        eprintln!(
            "  {}  held by {} ({})",
            file.path, file.holder, file.pattern
        );
    }
    eprintln!(
        "Ask the holder first (query_agent), or leave those files out of this commit \
         (git restore --staged FILE)."
    );
    1
}

/// The paths the index changes against `HEAD`, relative to the worktree: each side of a
/// rename, as a deletion and an addition.
async fn staged_files(root: &Path) -> Result<Vec<String>, String> {
    let mut git = tokio::process::Command::new("git")
        .args(["diff", "--cached", "--name-only", "-z", "--no-renames"])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("git cannot be run: {e}"))?;
    let mut listed = Vec::new();
    let stdout = git.stdout.take().ok_or("git's output")?;
    let read = async {
        stdout.take(MAX_LIST).read_to_end(&mut listed).await?;
        git.wait().await
    };
    let status = tokio::time::timeout(GIT_WAIT, read)
        .await
        .map_err(|_| format!("git diff took over {GIT_WAIT:?}"))?
        .map_err(|e| format!("git diff: {e}"))?;
    if !status.success() {
        return Err(format!("git diff --cached failed ({status})"));
    }
    Ok(listed
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect())
}

/// A failure of the hook itself: said, and the commit goes ahead.
fn broken(message: &str) -> u8 {
    eprintln!("coordination-hub hook pre-commit: {message}; the commit is not checked");
    0
}
