//! `coordination-hub hook pre-commit`: git's `pre-commit` hook (installed by `init
//! --git-hooks`), which refuses a commit that touches a file another active agent holds. It
//! covers what the edit hooks cannot see — a shell's `sed -i`, and every agent without such
//! hooks (Cursor, VS Code, Codex) — at the latest moment before the change leaves the worktree.
//!
//! Git runs it in the worktree being committed; a non-zero exit aborts the commit. A hook that
//! fails itself (no `git`, no hub) lets the commit through with a warning: a person's commit is
//! never held hostage by a broken hook.

use super::access::HubArgs;
use crate::repository::Checkout;

/// The hook's flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PreCommitArgs {
    #[command(flatten)]
    hub: HubArgs,
    /// The session committing [default: the worktree's branch, else its folder]
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
}

/// Runs the hook in the current directory's worktree: 0 lets the commit through, 1 refuses it.
pub(crate) async fn run(args: PreCommitArgs) -> u8 {
    let Ok(cwd) = std::env::current_dir() else {
        return broken("the current directory cannot be read");
    };
    let Some(checkout) = Checkout::find(&cwd) else {
        return broken("not in a git repository");
    };
    let staged = match crate::git::staged_files(&checkout.root).await {
        Ok(staged) => staged,
        Err(error) => return broken(&error),
    };
    if staged.is_empty() {
        return 0;
    }
    let project = args.hub.project(&checkout.root);
    let session = args.session.clone().unwrap_or_else(|| checkout.session());
    let hub = match args.hub.open(&project).await {
        Ok(hub) => hub,
        Err(refusal) => return broken(&refusal.message),
    };
    let held = match hub.held(&project, &session, staged).await {
        Ok(held) => held,
        Err(refusal) => return broken(&refusal.message),
    };
    if held.is_empty() {
        return 0;
    }
    eprintln!(
        "coordination-hub: this commit touches {} file(s) other agents of project {project} \
         hold (committing as {session}):",
        held.len()
    );
    eprint!("{}", super::post_tool::held_list(&held));
    eprintln!(
        "Ask the holder first (query_agent), or leave those files out of this commit \
         (git restore --staged FILE)."
    );
    1
}

/// A failure of the hook itself: said, and the commit goes ahead.
fn broken(message: &str) -> u8 {
    eprintln!("coordination-hub hook pre-commit: {message}; the commit is not checked");
    0
}
