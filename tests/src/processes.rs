//! The project's own binaries as processes: served over HTTP on an ephemeral port, or over
//! stdio as an MCP host starts them; their data directories and memory.

/// Starts a binary that serves an agent through `serve()` on an ephemeral loopback port (with
/// `--bind 127.0.0.1:0`); returns the child (killed when dropped) and its A2A base URL, read
/// from the URLs it prints. Its stderr keeps being drained so it never blocks on a full pipe.
pub async fn spawn_served(binary: &str) -> (tokio::process::Child, String) {
    spawn_served_with(binary, &[]).await
}

/// A server process speaking MCP over its stdin and stdout, as an MCP host starts one.
pub struct StdioServer {
    /// The process (killed when this is dropped).
    pub child: tokio::process::Child,
    /// Its standard input: write one JSON-RPC message a line.
    pub stdin: tokio::process::ChildStdin,
    /// Its standard output, a line at a time.
    pub stdout: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

/// Starts `binary` with `args` (which include `--stdio`), its stderr discarded.
pub fn spawn_stdio<S: AsRef<std::ffi::OsStr>>(binary: &str, args: &[S]) -> StdioServer {
    let mut command = tokio::process::Command::new(binary);
    command.args(args);
    spawn_stdio_command(command)
}

/// Starts `command` (a stdio server, in the folder and environment it names) with its stdin and
/// stdout piped, its stderr discarded.
pub fn spawn_stdio_command(mut command: tokio::process::Command) -> StdioServer {
    use tokio::io::AsyncBufReadExt as _;
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("a stdio server starts");
    let stdin = child.stdin.take().expect("stdin piped");
    let stdout = tokio::io::BufReader::new(child.stdout.take().expect("stdout piped")).lines();
    StdioServer {
        child,
        stdin,
        stdout,
    }
}

/// Runs `command` to its end with `input` on its standard input (closed after it), within a
/// minute: its output, both streams captured.
pub async fn run_with_input(
    mut command: tokio::process::Command,
    input: &str,
) -> std::process::Output {
    use std::process::Stdio;
    use tokio::io::AsyncWriteExt as _;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the command starts");
    let mut stdin = child.stdin.take().expect("stdin piped");
    // A command that exits without reading all of it closes the pipe: not this helper's error.
    let _ = stdin.write_all(input.as_bytes()).await;
    drop(stdin);
    tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the command ends within a minute")
        .expect("its output is read")
}

/// Like [`spawn_served`], with extra command-line flags. Unless they name a store, the server
/// keeps its tasks in its default SQLite file, under a data directory of its own.
pub async fn spawn_served_with(binary: &str, flags: &[&str]) -> (tokio::process::Child, String) {
    spawn_served_with_env(binary, flags, &[]).await
}

/// Like [`spawn_served_with`], with these environment variables set.
pub async fn spawn_served_with_env(
    binary: &str,
    flags: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let names_store = flags.iter().any(|f| *f == "--store" || *f == "--data-dir");
    let data_dir = crate::scratch_dir();
    let mut defaults = vec!["--bind", "127.0.0.1:0"];
    if !names_store {
        defaults.extend(["--data-dir", data_dir.to_str().expect("UTF-8 temp path")]);
    }
    spawn_with(binary, &defaults, flags, env).await
}

async fn spawn_with(
    binary: &str,
    defaults: &[&str],
    flags: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let mut child = tokio::process::Command::new(binary)
        .args(defaults)
        .args(flags)
        .envs(env.iter().copied())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let base = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.expect("server stderr") {
            if let Some(url) = line.strip_prefix("A2A JSON-RPC: ") {
                return url.trim().to_owned();
            }
        }
        panic!("server exited before printing its URLs");
    })
    .await
    .expect("server printed its URLs");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, base)
}

/// The resident memory of process `pid`, in kB (from `/proc/<pid>/status`; benchmarks only).
pub fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("proc status")
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .expect("VmRSS")
}

/// This process's `PATH` with `folder` first, as a person's is once `cargo install` put a
/// binary there: what finds a program by its bare name (the hub's hooks, git's hooks).
pub fn path_with(folder: &std::path::Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(folder.to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("a PATH of folders without separators in their names")
}

/// Runs `program` with `args` to its end within `limit`, asserting that it succeeded; its
/// standard output. A failure shows both streams.
pub async fn run_to_success(program: &str, args: &[&str], limit: std::time::Duration) -> String {
    run_to_success_with(program, args, &[], limit).await
}

/// [`run_to_success`] with these environment variables set.
pub async fn run_to_success_with(
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
    limit: std::time::Duration,
) -> String {
    let ran = tokio::time::timeout(
        limit,
        tokio::process::Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .unwrap_or_else(|_| panic!("{program} {args:?} did not finish within {limit:?}"))
    .unwrap_or_else(|error| panic!("{program} runs: {error}"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr),
    );
    assert!(
        ran.status.success(),
        "{program} {args:?}:\n{stdout}\n{stderr}"
    );
    stdout.into_owned()
}
