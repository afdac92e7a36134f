//! Restarts over a real process: the currency agent on its default SQLite store is killed with
//! SIGKILL mid-work and started again on the same data directory.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::{TestServer, spawn_served_with};
use serde_json::{Value, json};

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");

async fn connect(base: String) -> TestServer {
    TestServer {
        addr: base
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap(),
        base,
        http: reqwest::Client::new(),
    }
}

fn convert(amount: u32) -> Value {
    json!({"message": {"messageId": format!("m{amount}"), "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": amount, "currency": "USD"}, "to": "EUR"}}],
        "metadata": {"skill": "convert"}}})
}

#[tokio::test]
async fn finished_tasks_survive_kill_9_and_running_ones_fail_with_the_reason() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (mut first, base) = spawn_served_with(CURRENCY, &["--data-dir", dir]).await;
    let server = connect(base).await;
    let mut finished = Vec::new();
    for amount in 1..=5 {
        let body = server.rpc("SendMessage", convert(amount)).await;
        let task = &body["result"]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
        finished.push(task.clone());
    }
    let running = server
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "slow", "role": "ROLE_USER",
                "parts": [{"data": {"currencies": ["USD", "JPY"], "pace_ms": 60000}}],
                "metadata": {"skill": "report"}},
                "configuration": {"returnImmediately": true}}),
        )
        .await;
    let running_id = running["result"]["task"]["id"].as_str().unwrap().to_owned();
    server
        .wait_for_state(&running_id, "TASK_STATE_WORKING")
        .await;

    first.start_kill().unwrap();
    first.wait().await.unwrap();

    let (_second, base) = spawn_served_with(CURRENCY, &["--data-dir", dir]).await;
    let server = connect(base).await;
    for before in &finished {
        let id = before["id"].as_str().unwrap();
        let after = server.rpc("GetTask", json!({"id": id})).await;
        assert_eq!(
            &after["result"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{after}"
        );
        assert_eq!(
            after["result"]["artifacts"], before["artifacts"],
            "artifacts intact"
        );
        assert_eq!(after["result"]["contextId"], before["contextId"]);
    }
    let interrupted = server.rpc("GetTask", json!({"id": running_id})).await;
    let status = &interrupted["result"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{interrupted}");
    assert!(
        status["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("interrupted by a restart"),
        "{interrupted}"
    );
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    assert_eq!(listed["result"]["totalSize"], 6, "{listed}");
    let _ = std::fs::remove_dir_all(data_dir);
}
