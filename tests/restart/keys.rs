//! Idempotency keys across SIGKILL: a keyed send whose process dies before it answers is sent
//! again, under its key, to the restarted server; the same task comes back and the skill's
//! side effect (a charge, recorded by key) happened once.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{LAB, kill_and_restart};
use a2a_tests::{TestServer, spawn_served_with};

fn charge(ledger: &Path, hold: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": format!("charge-{hold}"), "role": "ROLE_USER",
            "parts": [{"data": {"ledger": ledger, "amount": 42, "hold": hold}}],
            "metadata": {"skill": "charge"}}}})
}

/// A keyed blocking send of `body`, as a client that lost the first answer sends it again.
async fn keyed_send(server: &TestServer, body: &Value, key: &str) -> reqwest::Result<Value> {
    server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("idempotency-key", key)
        .body(body.to_string())
        .send()
        .await?
        .json()
        .await
}

/// Waits until the skill holds (its `.held` file exists).
async fn held(ledger: &Path) {
    for _ in 0..200 {
        let holding = std::fs::read_dir(ledger)
            .map(|mut entries| {
                entries.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "held")))
            })
            .unwrap_or(false);
        if holding {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the skill never held");
}

fn charges(ledger: &Path) -> Vec<String> {
    std::fs::read_to_string(ledger.join("charges"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_keyed_send_killed_before_or_after_its_side_effect_is_one_task_and_one_charge() {
    for hold in ["after", "before"] {
        let data_dir = a2a_tests::scratch_dir();
        let ledger = a2a_tests::scratch_dir();
        let dir = data_dir.to_str().unwrap();
        let key = format!("pay-{hold}");
        let (first, base) = spawn_served_with(LAB, &["--data-dir", dir]).await;
        let server = TestServer::at(base);
        let body = charge(&ledger, hold);
        // The first attempt: the process is killed while the skill holds, so it never answers.
        let attempt = {
            let (server, body, key) = (
                TestServer::at(server.base.clone()),
                body.clone(),
                key.clone(),
            );
            tokio::spawn(async move { keyed_send(&server, &body, &key).await })
        };
        held(&ledger).await;
        let (_second, server) = kill_and_restart(first, LAB, dir).await;
        assert!(
            attempt.await.unwrap().is_err(),
            "the first attempt got no answer"
        );
        // The retry, under the same key, gets the task the first attempt created, finished.
        let retried = keyed_send(&server, &body, &key).await.unwrap();
        let task = &retried["result"]["task"];
        assert_eq!(
            task["status"]["state"], "TASK_STATE_COMPLETED",
            "{hold}: {retried}"
        );
        let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
        assert_eq!(
            listed["result"]["totalSize"], 1,
            "{hold}: one task: {listed}"
        );
        assert_eq!(
            listed["result"]["tasks"][0]["id"], task["id"],
            "{hold}: {listed}"
        );
        let again = keyed_send(&server, &body, &key).await.unwrap();
        assert_eq!(again["result"]["task"]["id"], task["id"], "{hold}: {again}");
        assert_eq!(
            charges(&ledger),
            [format!("{key} 42")],
            "{hold}: charged once"
        );
        let _ = std::fs::remove_dir_all(data_dir);
        let _ = std::fs::remove_dir_all(ledger);
    }
}
