//! The webhook receiver example as a child process, and the deliveries it printed.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

/// A running `webhook-receiver`.
pub struct Receiver {
    /// Where it listens, `http://127.0.0.1:PORT/`.
    pub url: String,
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Receiver {
    /// Starts `binary` (this crate's `webhook-receiver`, `CARGO_BIN_EXE_receiver-under-test`)
    /// with `flags` (besides `--bind`, `127.0.0.1:0` unless given).
    pub async fn start(binary: &str, flags: &[&str]) -> Self {
        let mut args: Vec<&str> = flags.to_vec();
        if !flags.contains(&"--bind") {
            args.extend(["--bind", "127.0.0.1:0"]);
        }
        let mut child = tokio::process::Command::new(binary)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("receiver starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let mut errors = BufReader::new(stderr).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = errors.next_line().await.expect("receiver stderr") {
                if let Some(url) = line.strip_prefix("listening on ") {
                    return url.trim().to_owned();
                }
            }
            panic!("receiver exited before listening");
        })
        .await
        .expect("receiver listening");
        let stdout = child.stdout.take().expect("stdout piped");
        Self {
            url,
            child,
            lines: BufReader::new(stdout).lines(),
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port")
    }

    /// The next delivery it printed (waiting at most 30 s).
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("a delivery within 30 s")
            .expect("receiver stdout")
            .expect("receiver still running");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// The next delivery it prints within `limit`, if any.
    pub async fn next_within(&mut self, limit: Duration) -> Option<Value> {
        let line = tokio::time::timeout(limit, self.lines.next_line())
            .await
            .ok()?
            .expect("receiver stdout")?;
        Some(serde_json::from_str(&line).expect("a JSON line"))
    }

    /// Deliveries it answered 2xx, until one reports a terminal state (included).
    pub async fn accepted_until_terminal(&mut self) -> Vec<Value> {
        let mut accepted = Vec::new();
        loop {
            let delivery = self.next().await;
            if delivery["answered"] != 200 {
                continue;
            }
            let state = delivery["state"].as_str().unwrap_or_default().to_owned();
            accepted.push(delivery);
            if is_terminal(&state) {
                return accepted;
            }
        }
    }

    /// Stops it at once.
    pub async fn kill(&mut self) {
        let _ = self.child.kill().await;
    }
}

/// Whether `state`, in any wire version's spelling, is terminal.
pub fn is_terminal(state: &str) -> bool {
    let state = state.to_ascii_lowercase();
    ["completed", "failed", "canceled", "cancelled", "rejected"]
        .iter()
        .any(|end| state.ends_with(end))
}
