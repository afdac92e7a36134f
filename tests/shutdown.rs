//! Stopping a served agent as a platform does: SIGTERM (Kubernetes, systemd, `docker stop`) and
//! SIGINT drain in-flight work within `--shutdown-timeout`, then end what is left as FAILED and
//! exit 0; a second signal exits at once. Each test drives a real binary.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_tests::spawn_served_with;
use a2a_tests::sse::{SseStream, state_of};
use serde_json::{Value, json};
use tokio::process::Child;

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");
const LAB: &str = env!("CARGO_BIN_EXE_lab-server");

/// A hang guard, not a timing assertion: generous, only there so a bug fails instead of hanging.
const GUARD: Duration = Duration::from_secs(60);

fn rpc(method: &str, message: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}}).to_string()
}

fn message(id: &str, skill: &str, data: Value) -> Value {
    json!({"messageId": id, "role": "ROLE_USER", "parts": [{"data": data}], "metadata": {"skill": skill}})
}

async fn post(base: &str, body: String) -> reqwest::Response {
    a2a_tests::http()
        .post(base)
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
}

async fn open_stream(base: &str, message: Value) -> SseStream {
    let mut stream = SseStream::new(post(base, rpc("SendStreamingMessage", message)).await);
    let first = stream.next_result().await.unwrap();
    assert_eq!(state_of(&first), Some("TASK_STATE_SUBMITTED"));
    stream
}

async fn signal(child: &Child, name: &str) {
    let pid = child.id().unwrap().to_string();
    let sent = tokio::process::Command::new("kill")
        .args([&format!("-{name}"), &pid])
        .status()
        .await
        .unwrap();
    assert!(sent.success());
}

async fn exit_status(child: &mut Child) -> std::process::ExitStatus {
    tokio::time::timeout(GUARD, child.wait())
        .await
        .expect("the server exited")
        .unwrap()
}

/// The text of the last status message among `events`.
fn shutdown_reason(events: &[Value]) -> &str {
    let last = events.iter().rev().find(|e| state_of(e).is_some());
    last.and_then(|e| e["statusUpdate"]["status"]["message"]["parts"][0]["text"].as_str())
        .unwrap_or_default()
}

fn final_state(events: &[Value]) -> Option<&str> {
    events.iter().rev().find_map(|e| state_of(e))
}

#[tokio::test]
async fn sigterm_finishes_a_blocking_request_and_an_open_stream_then_exits_zero() {
    let (mut child, base) = spawn_served_with(CURRENCY, &["--shutdown-timeout", "50s"]).await;
    let report = |id: &str| {
        message(
            id,
            "report",
            json!({"currencies": ["USD", "JPY", "GBP"], "pace_ms": 400}),
        )
    };
    let mut stream = open_stream(&base, report("streamed")).await;
    let blocking = {
        let (base, body) = (base.clone(), rpc("SendMessage", report("blocking")));
        tokio::spawn(async move { post(&base, body).await })
    };
    // Both are in flight when the signal arrives.
    tokio::time::sleep(Duration::from_millis(300)).await;
    signal(&child, "TERM").await;
    let answered: Value = blocking.await.unwrap().json().await.unwrap();
    assert_eq!(
        answered["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answered}"
    );
    let rest = tokio::time::timeout(GUARD, stream.rest()).await.unwrap();
    assert_eq!(final_state(&rest), Some("TASK_STATE_COMPLETED"), "{rest:?}");
    // No new connections are taken while draining or after.
    let refused = a2a_tests::http().get(format!("{base}healthz")).send().await;
    assert!(refused.is_err(), "served a new request after SIGTERM");
    assert!(exit_status(&mut child).await.success());
}

#[tokio::test]
async fn shutdown_timeout_ends_a_stubborn_task_as_failed_and_exits_zero() {
    let (mut child, base) = spawn_served_with(LAB, &["--shutdown-timeout", "1s"]).await;
    let mut stream = open_stream(
        &base,
        message("s", "stubborn", json!({"millis": 3_600_000})),
    )
    .await;
    signal(&child, "INT").await;
    let rest = tokio::time::timeout(GUARD, stream.rest()).await.unwrap();
    assert_eq!(final_state(&rest), Some("TASK_STATE_FAILED"), "{rest:?}");
    assert!(
        shutdown_reason(&rest).contains("server shut down"),
        "{rest:?}"
    );
    assert!(exit_status(&mut child).await.success());
}

/// A task waiting for an answer cannot finish without its client: a stop does not wait the
/// whole drain for it (an orchestrator would kill the process first), but ends it at once and
/// tells its subscriber why.
#[tokio::test]
async fn sigterm_ends_a_stream_of_a_task_waiting_for_input_at_once_with_a_final_event() {
    let (mut child, base) = spawn_served_with(LAB, &["--shutdown-timeout", "1h"]).await;
    let asked = post(
        &base,
        rpc("SendMessage", message("f", "fragile", json!({}))),
    )
    .await;
    let asked: Value = asked.json().await.unwrap();
    let task = &asked["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    // A subscription stays open until the task ends.
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask",
                           "params": {"id": task["id"]}});
    let mut stream = SseStream::new(post(&base, subscribe.to_string()).await);
    let first = stream.next_result().await.unwrap();
    assert!(first.get("task").is_some(), "the task first: {first}");
    signal(&child, "TERM").await;
    let rest = tokio::time::timeout(GUARD, stream.rest()).await.unwrap();
    assert_eq!(final_state(&rest), Some("TASK_STATE_FAILED"), "{rest:?}");
    assert!(
        shutdown_reason(&rest).contains("server shut down"),
        "{rest:?}"
    );
    assert!(exit_status(&mut child).await.success());
}

#[tokio::test]
async fn a_skill_blocking_its_thread_does_not_hold_the_exit() {
    let (mut child, base) = spawn_served_with(LAB, &["--shutdown-timeout", "1s"]).await;
    let stream = open_stream(&base, message("b", "block", json!({"millis": 120_000}))).await;
    signal(&child, "TERM").await;
    // The process exits long before the skill's two minutes are up.
    assert!(exit_status(&mut child).await.success());
    drop(stream);
}

#[tokio::test]
async fn a_second_signal_exits_at_once() {
    let (mut child, base) = spawn_served_with(LAB, &["--shutdown-timeout", "1h"]).await;
    let _stream = open_stream(&base, message("w", "wait", json!({"millis": 3_600_000}))).await;
    signal(&child, "TERM").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    signal(&child, "TERM").await;
    let status = exit_status(&mut child).await;
    assert_eq!(status.code(), Some(143), "{status}");
}

#[tokio::test]
async fn help_lists_every_flag_and_version_names_the_agent() {
    let help = tokio::process::Command::new(CURRENCY)
        .arg("--help")
        .output()
        .await
        .unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--bind",
        "--public-url",
        "--stdio",
        "--allowed-host",
        "--allowed-origin",
        "--cors-origin",
        "--max-body-bytes",
        "--max-message-parts",
        "--max-part-bytes",
        "--max-task-history-bytes",
        "--max-task-artifact-bytes",
        "--max-tasks",
        "--max-store-bytes",
        "--task-ttl",
        "--max-list-bytes",
        "--max-running-per-caller",
        "--max-waiting-per-caller",
        "--max-streams-per-caller",
        "--tasks-per-second-per-caller",
        "--task-burst-per-caller",
        "--max-waiting-tasks",
        "--input-timeout",
        "--cancel-grace",
        "--stream-buffer",
        "--sse-keep-alive",
        "--mcp-task-after",
        "--max-mcp-sessions",
        "--mcp-session-idle",
        "--max-connections",
        "--max-connections-per-peer",
        "--header-timeout",
        "--body-timeout",
        "--body-deadline",
        "--shutdown-timeout",
        "A2A_SHUTDOWN_TIMEOUT",
    ] {
        assert!(text.contains(flag), "{flag} missing from --help:\n{text}");
    }
    let version = tokio::process::Command::new(CURRENCY)
        .arg("--version")
        .output()
        .await
        .unwrap();
    assert!(version.status.success());
    assert!(String::from_utf8_lossy(&version.stdout).contains("1.2.0"));
    let bad = tokio::process::Command::new(CURRENCY)
        .args(["--max-connections", "none"])
        .output()
        .await
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--max-connections"));
}
