//! Git, asked through the `git` binary a person has (its plumbing's `-z` lists, which quote
//! nothing): which files a worktree changed, which a branch changed, where the worktrees are.
//! Every run is bounded in what is read of it and in time, and a failing `git` says which
//! command failed and git's own first line of why.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt as _;

/// The most of one command's output read: a list of paths, even of a huge repository.
const MAX_OUTPUT: u64 = 64 << 20;

/// The most of git's complaint kept.
const MAX_COMPLAINT: u64 = 4096;

/// How long one command may take.
const GIT_WAIT: Duration = Duration::from_secs(30);

/// Runs `git args…` in `dir`: its output, or why it failed.
pub(crate) async fn output(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let command = || format!("git {}", args.join(" "));
    let mut git = tokio::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        // Never a pager, never a prompt: nobody is there to answer.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("git cannot be run: {e}"))?;
    let (Some(stdout), Some(stderr)) = (git.stdout.take(), git.stderr.take()) else {
        return Err(format!("{}: no output", command()));
    };
    let (mut out, mut complaint) = (Vec::new(), Vec::new());
    let read = async {
        let mut stdout = stdout.take(MAX_OUTPUT + 1);
        let mut stderr = stderr.take(MAX_COMPLAINT);
        let (read_out, read_err) = tokio::join!(
            stdout.read_to_end(&mut out),
            stderr.read_to_end(&mut complaint),
        );
        read_out?;
        read_err?;
        if out.len() as u64 > MAX_OUTPUT {
            return Err(std::io::Error::other(format!(
                "its output is over {MAX_OUTPUT} bytes"
            )));
        }
        // The rest of a long complaint, unread, would leave git blocked writing it.
        tokio::io::copy(&mut stderr.into_inner(), &mut tokio::io::sink()).await?;
        git.wait().await
    };
    let status = tokio::time::timeout(GIT_WAIT, read)
        .await
        .map_err(|_| format!("{} took over {GIT_WAIT:?}", command()))?
        .map_err(|e| format!("{}: {e}", command()))?;
    if !status.success() {
        let complaint = String::from_utf8_lossy(&complaint);
        let why = complaint.lines().next().unwrap_or("no reason given");
        return Err(format!("{} failed ({status}): {why}", command()));
    }
    Ok(out)
}

/// The names of a `-z` list.
pub(crate) fn names(listed: &[u8]) -> Vec<String> {
    listed
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect()
}

/// The files the index changes against `HEAD`, relative to the worktree: each side of a
/// rename, as a deletion and an addition.
pub(crate) async fn staged_files(root: &Path) -> Result<Vec<String>, String> {
    let args = ["diff", "--cached", "--name-only", "-z", "--no-renames"];
    Ok(names(&output(root, &args).await?))
}

/// The files the worktree at `root` changed and has not committed: modified, added, deleted,
/// and new files git does not ignore, relative to the worktree.
pub(crate) async fn uncommitted_files(root: &Path) -> Result<Vec<String>, String> {
    let args = [
        "status",
        "--porcelain=v1",
        "-z",
        "--no-renames",
        "--untracked-files=all",
    ];
    let listed = output(root, &args).await?;
    // Each entry is `XY path`: two status letters and a space before the path.
    Ok(names(&listed)
        .into_iter()
        .filter_map(|entry| entry.get(3..).map(str::to_owned))
        .collect())
}
