//! Ctrl-C on a served agent: open streams end and the process exits, even while a long task runs.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_tests::sse::{SseStream, state_of};
use serde_json::json;

const SERVER: &str = env!("CARGO_BIN_EXE_interop-currency");

#[tokio::test]
async fn ctrl_c_ends_open_streams_and_the_server_exits() {
    let (mut child, base) = a2a_tests::spawn_served(SERVER).await;
    let message = json!({
        "messageId": "long",
        "role": "ROLE_USER",
        "parts": [{"data": {"currencies": ["USD"], "pace_ms": 3_600_000}}],
        "metadata": {"skill": "report"},
    });
    let response = reqwest::Client::new()
        .post(&base)
        .header("A2A-Version", "1.0")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                   "params": {"message": message}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseStream::new(response);
    let first = stream.next_result().await.unwrap();
    assert_eq!(state_of(&first), Some("TASK_STATE_SUBMITTED"));
    let pid = child.id().unwrap().to_string();
    let signalled = tokio::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .unwrap();
    assert!(signalled.success());
    // The stream ends without a final state (clients resubscribe elsewhere) ...
    let rest = tokio::time::timeout(Duration::from_secs(20), stream.rest())
        .await
        .expect("the stream ended");
    assert!(
        rest.iter()
            .all(|e| state_of(e) != Some("TASK_STATE_COMPLETED")),
        "{rest:?}"
    );
    // ... and the process exits (a hang guard, not a timing assertion).
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the server exited")
        .unwrap();
    assert!(status.success(), "{status}");
}
