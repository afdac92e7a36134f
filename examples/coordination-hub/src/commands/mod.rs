//! The hub's commands beside serving it: `init` writes MCP hosts' configuration into a
//! repository, `hook` makes reservations binding from Claude Code's hooks, `status` shows the
//! project to the person overseeing its agents.

mod access;
mod commit;
mod configs;
mod git_hooks;
mod hook;
mod init;
mod jsonc;
mod post_tool;
mod preflight;
mod status;

use std::process::ExitCode;

use clap::Parser as _;

/// The commands.
#[derive(Debug, clap::Parser)]
#[command(name = "coordination-hub", version)]
enum Command {
    /// Writes the MCP configuration of Claude Code, Cursor, VS Code or Codex into this
    /// repository: each starts this binary over stdio for the project, sharing one data
    /// directory
    Init(init::InitArgs),
    /// Claude Code hooks that make file reservations binding
    #[command(subcommand)]
    Hook(HookCommand),
    /// Compares this worktree's branch with every other active agent's branch, worktree and
    /// reservations: each file both change, before anyone merges
    Preflight(preflight::PreflightArgs),
    /// Shows the project's agents, their reservations, open todos and unanswered questions
    Status(status::StatusArgs),
}

/// `hook pre-edit` and `hook post-edit`.
#[derive(Debug, clap::Subcommand)]
enum HookCommand {
    /// Before Edit/Write/MultiEdit (`PreToolUse`): exits 2, naming the holder, when another
    /// agent holds the file; otherwise reserves it for the session
    PreEdit(hook::HookArgs),
    /// After Edit/Write/MultiEdit (`PostToolUse`): announces the change
    PostEdit(hook::HookArgs),
    /// After any tool (`PostToolUse`): exits 2, naming the holders, when the worktree changes
    /// a file another agent holds (a shell's `sed -i`, a notebook edit)
    PostTool(hook::HookArgs),
    /// Git's pre-commit hook (`init --git-hooks`): refuses a commit that touches a file
    /// another active agent holds
    PreCommit(commit::PreCommitArgs),
}

/// Runs what the command line asks for: one of the commands, else the hub served (until it is
/// stopped); the process's exit code.
pub async fn run_from_command_line() -> ExitCode {
    if is_command() {
        return run_command().await;
    }
    match crate::serve_from_command_line().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("coordination-hub: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Whether the command line names one of the commands (else it serves the hub).
pub fn is_command() -> bool {
    let first = std::env::args_os().nth(1);
    matches!(
        first.as_ref().and_then(|a| a.to_str()),
        Some("init" | "hook" | "preflight" | "status")
    )
}

/// Runs the command the command line names.
pub async fn run_command() -> ExitCode {
    let command = match Command::try_parse() {
        Ok(command) => command,
        Err(error) => {
            let _ = error.print();
            // Never 2, which a hook's caller reads as "block": a mistyped hook must not stop
            // every edit.
            return ExitCode::from(u8::from(error.use_stderr()));
        }
    };
    let done = match command {
        Command::Init(args) => init::run(args),
        Command::Status(args) => status::run(args).await,
        Command::Preflight(args) => return preflight::run(args).await,
        Command::Hook(HookCommand::PreEdit(args)) => {
            hook::exit(hook::run(hook::Moment::PreEdit, args).await);
        }
        Command::Hook(HookCommand::PostEdit(args)) => {
            hook::exit(hook::run(hook::Moment::PostEdit, args).await);
        }
        Command::Hook(HookCommand::PostTool(args)) => hook::exit(post_tool::run(args).await),
        Command::Hook(HookCommand::PreCommit(args)) => hook::exit(commit::run(args).await),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("coordination-hub: {error}");
            ExitCode::FAILURE
        }
    }
}
