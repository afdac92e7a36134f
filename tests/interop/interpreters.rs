//! The official Python clients' interpreters (the 1.x and 0.3 generations, from the venvs
//! `scripts/test` makes), checks that their packages are installed, and running a script with
//! them to success.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

pub(crate) fn python() -> String {
    std::env::var("A2A_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

pub(crate) fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("interop")
        .join(name)
}

pub(crate) fn python03() -> String {
    std::env::var("A2A_TEST_PYTHON03").unwrap_or_else(|_| ".venv03/bin/python".into())
}

pub(crate) async fn require_packages() {
    require(
        &python(),
        "import a2a.client, mcp, grpc",
        "tests/interop/requirements.txt",
    )
    .await;
}

pub(crate) async fn require_v03_client() {
    require(
        &python03(),
        "import importlib.metadata as m; assert m.version('a2a-sdk').startswith('0.3.'); import uvicorn, fastapi",
        "tests/interop/requirements-v03.txt",
    )
    .await;
}

pub(crate) async fn require(python: &str, probe: &str, requirements: &str) {
    let status = Command::new(python)
        .args(["-c", probe])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .expect("python runs");
    assert!(
        status.success(),
        "the official Python clients are not installed for `{python}`; run `scripts/test` (it \
         installs them), or `pip install -r {requirements}` into a virtualenv and set \
         A2A_TEST_PYTHON / A2A_TEST_PYTHON03"
    );
}

pub(crate) async fn run_python(args: &[&str]) -> String {
    run_interpreter(&python(), args).await
}

/// Runs a script to success; its standard output.
pub(crate) async fn run_interpreter(python: &str, args: &[&str]) -> String {
    run_interpreter_with(python, args, &[]).await
}

/// Runs a script to success with `env` set besides: its standard output.
pub(crate) async fn run_interpreter_with(
    python: &str,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> String {
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        Command::new(python)
            .args(args)
            // A server the script starts itself (stdio) keeps its tasks apart from others'.
            .env("A2A_DATA_DIR", a2a_tests::scratch_dir())
            .envs(env.iter().copied())
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
    stdout.into_owned()
}
