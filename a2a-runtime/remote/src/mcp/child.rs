//! A remote MCP server started as a child process (`npx …`, `uvx …`, `python server.py`): its
//! stdin and stdout are the session, each line of its stderr is logged (bounded), and it is
//! stopped as the MCP stdio transport says: its stdin closed when the session ends, killed if it
//! has not exited shortly after, or when the host goes away first.

use std::process::Stdio;
use std::time::Duration;

use futures::StreamExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};
use tokio_util::sync::{CancellationToken, DropGuard};

/// The longest stderr line logged; the rest of a longer one is dropped.
const MAX_STDERR_LINE: usize = 4096;
/// How long a child whose stdin was closed has to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A started child: its pipes, and the guard whose drop stops it.
pub(crate) struct Started {
    pub(crate) stdout: ChildStdout,
    pub(crate) stdin: ChildStdin,
    pub(crate) stop: DropGuard,
}

/// Starts `command` (program first) for the remote `remote`; the child is watched until it
/// exits (`exited` is then told why, to start it again) or is stopped.
pub(crate) fn start(
    command: &[String],
    remote: &str,
    exited: impl FnOnce(String) + Send + 'static,
) -> Result<Started, String> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| "the command is empty".to_owned())?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("`{program}` could not be started: {e}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("`{program}` was started without its pipes"));
    };
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(log_stderr(remote.to_owned(), stderr));
    }
    let stop = CancellationToken::new();
    tokio::spawn(watch(child, remote.to_owned(), stop.clone(), exited));
    Ok(Started {
        stdout,
        stdin,
        stop: stop.drop_guard(),
    })
}

/// Logs each line the child writes to stderr, under the remote's id.
async fn log_stderr(remote: String, stderr: tokio::process::ChildStderr) {
    let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(MAX_STDERR_LINE));
    while let Some(line) = lines.next().await {
        match line {
            Ok(line) => tracing::info!(remote = %remote, "stderr: {line}"),
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                tracing::info!(remote = %remote, "stderr: (a line longer than {MAX_STDERR_LINE} bytes, dropped)");
            }
            Err(LinesCodecError::Io(_)) => return,
        }
    }
}

/// Waits for the child to exit, telling `exited` why; when `stop` fires first (the session
/// ended, its stdin closed), gives the child [`EXIT_GRACE`] to exit, then kills it.
async fn watch(
    mut child: Child,
    remote: String,
    stop: CancellationToken,
    exited: impl FnOnce(String),
) {
    tokio::select! {
        status = child.wait() => {
            let said = match status {
                Ok(status) => format!("the process exited ({status})"),
                Err(error) => format!("the process could not be waited for: {error}"),
            };
            tracing::warn!(remote = %remote, "{said}");
            exited(said);
        }
        () = stop.cancelled() => {
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
                tracing::warn!(remote = %remote, "the process did not exit when its stdin closed; killed");
                if let Err(error) = child.kill().await {
                    tracing::warn!(remote = %remote, %error, "the process could not be killed");
                }
            }
        }
    }
}
