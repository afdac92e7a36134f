//! `coordination-hub preflight`: before merging (or at any step), which files this worktree's
//! branch changes that another active agent changes too, on its branch or in its worktree, or
//! holds — as the `check_branch` tool answers, for any hub (an HTTP one too) and in scripts.
//! Exits 0 when nothing overlaps, 1 when something does (the report on stdout), 2 when it
//! cannot tell.

use std::process::ExitCode;

use super::access::HubArgs;
use crate::repository::Checkout;
use crate::{BranchCheck, branch_overlaps};

/// `preflight`'s flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PreflightArgs {
    #[command(flatten)]
    hub: HubArgs,
    /// The session whose branch this worktree is [default: the worktree's branch, else its
    /// folder]
    #[arg(long, env = "HUB_SESSION")]
    session: Option<String>,
    /// Print the answer as JSON (`check_branch`'s)
    #[arg(long)]
    json: bool,
}

/// Runs the check in the current directory's worktree.
pub(crate) async fn run(args: PreflightArgs) -> ExitCode {
    match check(&args).await {
        Ok(check) => {
            if args.json {
                let text = a2a_runtime::serde_json::to_string_pretty(&check);
                println!("{}", text.unwrap_or_default());
            } else {
                print!("{}", report(&check));
            }
            ExitCode::from(u8::from(!check.overlaps.is_empty()))
        }
        Err(error) => {
            eprintln!("coordination-hub preflight: {error}");
            ExitCode::from(2)
        }
    }
}

async fn check(args: &PreflightArgs) -> Result<BranchCheck, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let checkout = Checkout::find(&cwd)
        .ok_or("not in a git repository: preflight compares this worktree's branch with others")?;
    let project = args.hub.project(&checkout.root);
    let session = args.session.clone().unwrap_or_else(|| checkout.session());
    crate::checked("session", &session).map_err(|e| e.message().to_owned())?;
    let hub = args.hub.open(&project).await.map_err(|r| r.message)?;
    let overview = hub.overview(&project).await.map_err(|r| r.message)?;
    let branches = branch_overlaps(&checkout, &session, &overview.agents).await?;
    let held = hub
        .held(&project, &session, branches.changed.clone())
        .await
        .map_err(|r| r.message)?;
    Ok(branches.with_reservations(&session, &held))
}

/// The answer for a person: a line per overlapping file.
fn report(check: &BranchCheck) -> String {
    let branch = check.branch.as_deref().unwrap_or("a detached HEAD");
    let mut text = format!(
        "{} on {branch}: {} changed file(s)\n",
        check.session_name, check.changed_files
    );
    if check.overlaps.is_empty() {
        text.push_str("no other agent changes or holds any of them\n");
        return text;
    }
    for overlap in &check.overlaps {
        let whose = match &overlap.branch {
            Some(branch) => format!("{} (branch {branch})", overlap.session_name),
            None => overlap.session_name.clone(),
        };
        let how = match &overlap.reservation {
            Some(reservation) => format!("reserved as {}", reservation.file_path),
            None => format!("{} there too", overlap.how),
        };
        text.push_str(&format!("  {}  {whose}: {how}\n", overlap.file_path));
    }
    text.push_str("Talk it over with them (query_agent) before either of you merges.\n");
    text
}
