//! `coordination-hub hook post-tool`: Claude Code's `PostToolUse` hook for every tool, which
//! catches what the edit hooks cannot see — a `Bash` command's `sed -i`, `>`, `tee`, `mv` or
//! `git checkout -- FILE`, a `NotebookEdit`, a tool of another MCP server. After each tool it
//! compares the worktree's uncommitted files (`git status`) with the reservations: when this
//! agent's worktree changes a file another agent holds, it exits 2 naming the holder, which
//! Claude shows to the model (the change is made: the model is told to undo it or ask).
//!
//! One worktree per agent is what makes its uncommitted files the agent's own changes; in a
//! checkout several agents share, each is told of all of them.

use super::access::HubArgs;
use super::hook::{ALLOW, BLOCK, BROKEN, HookArgs, call_folder, read_input};
use crate::HeldFile;
use crate::repository::Checkout;

/// Claude Code's tools that change no file: the hook lets them through without asking git.
const READ_ONLY_TOOLS: [&str; 8] = [
    "Read",
    "Glob",
    "Grep",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
];

/// Runs the hook on the tool call on stdin: the exit code Claude Code acts on.
pub(crate) async fn run(args: HookArgs) -> u8 {
    let input = match read_input().await {
        Ok(input) => input,
        Err(error) => return broken(&error),
    };
    if input["tool_name"]
        .as_str()
        .is_some_and(|tool| READ_ONLY_TOOLS.contains(&tool))
    {
        return ALLOW;
    }
    let Some(checkout) = call_folder(&input).and_then(|folder| Checkout::find(&folder)) else {
        // Outside any repository there is no worktree to compare.
        return ALLOW;
    };
    let changed = match crate::git::uncommitted_files(&checkout.root).await {
        Ok(changed) => changed,
        Err(error) => return broken(&error),
    };
    if changed.is_empty() {
        return ALLOW;
    }
    let hub: &HubArgs = &args.hub;
    let project = hub.project(&checkout.root);
    let session = args.session.unwrap_or_else(|| checkout.session());
    let held = match hub.open(&project).await {
        Ok(access) => access.held(&project, &session, changed).await,
        Err(refusal) => return broken(&refusal.message),
    };
    let held = match held {
        Ok(held) => held,
        Err(refusal) => return broken(&refusal.message),
    };
    if held.is_empty() {
        return ALLOW;
    }
    eprintln!(
        "This worktree changes {} file(s) other agents hold (you are {session}):",
        held.len()
    );
    eprint!("{}", held_list(&held));
    eprintln!(
        "Do not go on changing them. Undo your change (`git restore FILE`, or `git clean -f \
         FILE` for a new one) or ask the holder with query_agent before going on."
    );
    BLOCK
}

/// One line per held file: the file, its holder, and the reservation's pattern.
pub(crate) fn held_list(held: &[HeldFile]) -> String {
    held.iter()
        .map(|file| {
            format!(
                "  {}  held by {} ({})\n",
                file.file_path, file.reservation.session, file.reservation.file_path
            )
        })
        .collect()
}

fn broken(message: &str) -> u8 {
    eprintln!("coordination-hub hook post-tool: {message}");
    BROKEN
}
