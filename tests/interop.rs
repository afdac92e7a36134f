//! Interop with the official Python clients users have: `a2a-sdk` (1.x) and `mcp` (2.x).
//!
//! The servers are the example binaries (currency, booking) started through `serve()` with
//! `--bind 127.0.0.1:0`, exactly as a user runs them. Python comes from `A2A_TEST_PYTHON` (set by
//! `scripts/test`, which installs the packages) or `python3`; if the packages are missing the
//! tests fail and say how to install them.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

const SERVER: &str = env!("CARGO_BIN_EXE_interop-currency");

fn python() -> String {
    std::env::var("A2A_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("interop")
        .join(name)
}

async fn require_packages() {
    let status = Command::new(python())
        .args(["-c", "import a2a.client, mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .expect("python runs");
    assert!(
        status.success(),
        "the official Python clients are not installed for `{}`; run `scripts/test` (it installs them), \
         or `pip install -r tests/interop/requirements.txt` and set A2A_TEST_PYTHON",
        python()
    );
}

/// Starts the example with `serve()` on an ephemeral port; returns the child and its base URL.
async fn start_server() -> (Child, String) {
    a2a_tests::spawn_served(SERVER).await
}

async fn run_python(args: &[&str]) {
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        Command::new(python())
            .args(args)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("python client finished in time")
    .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "python {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[tokio::test]
async fn official_a2a_client_sends_streams_resubscribes_and_cancels() {
    require_packages().await;
    let (_server, base) = start_server().await;
    run_python(&[script("a2a_client.py").to_str().unwrap(), &base]).await;
}

#[tokio::test]
async fn official_mcp_client_calls_tools_with_progress_over_streamable_http() {
    require_packages().await;
    let (_server, base) = start_server().await;
    run_python(&[
        script("mcp_client.py").to_str().unwrap(),
        "http",
        &format!("{base}mcp"),
    ])
    .await;
}

#[tokio::test]
async fn official_mcp_client_calls_tools_with_progress_over_stdio() {
    require_packages().await;
    run_python(&[script("mcp_client.py").to_str().unwrap(), "stdio", SERVER]).await;
}

const BOOKING: &str = env!("CARGO_BIN_EXE_interop-booking");

#[tokio::test]
async fn official_a2a_client_completes_questions_and_sign_in() {
    require_packages().await;
    let (_server, base) = a2a_tests::spawn_served(BOOKING).await;
    run_python(&[script("a2a_ask.py").to_str().unwrap(), &base]).await;
}

#[tokio::test]
async fn official_mcp_client_answers_questions_by_elicitation_and_input_required_retry() {
    require_packages().await;
    let (_server, base) = a2a_tests::spawn_served(BOOKING).await;
    run_python(&[
        script("mcp_ask.py").to_str().unwrap(),
        "http",
        &format!("{base}mcp"),
    ])
    .await;
}

#[tokio::test]
async fn official_mcp_client_answers_questions_by_elicitation_over_stdio() {
    require_packages().await;
    run_python(&[script("mcp_ask.py").to_str().unwrap(), "stdio", BOOKING]).await;
}
