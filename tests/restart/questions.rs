//! Questions across a restart: an MCP task waiting for input is answered after kill -9, an
//! authorization is asked again, and unusable answers do not grow what a waiting task stores.

use super::*;

#[tokio::test]
async fn an_mcp_task_waiting_for_input_is_answered_after_kill_9() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (first, base) = spawn_served_with(CURRENCY, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let capabilities =
        json!({ "extensions": { "io.modelcontextprotocol/tasks": {} }, "elicitation": {} });
    let (_, created) = server
        .mcp_modern(
            "tools/call",
            json!({"name": "exchange",
                   "arguments": {"money": {"amount": 5, "currency": "GBP"}, "to": "CHF"}}),
            capabilities.clone(),
        )
        .await;
    let created = a2a_tests::response_from(&created);
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let asked = server
        .poll_mcp_task(&task, |t| t["status"] == "input_required")
        .await;
    let key = asked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();

    let (_second, server) = kill_and_restart(first, CURRENCY, dir).await;
    // The question survives the restart under the same key, and its answer resumes the call.
    let still = server
        .poll_mcp_task(&task, |t| t["status"] == "input_required")
        .await;
    assert!(
        still["inputRequests"]
            .as_object()
            .unwrap()
            .contains_key(&key),
        "{still}"
    );
    server
        .answer_mcp_input(&task, &key, "ACME-1", &capabilities)
        .await;
    let confirm = server
        .poll_mcp_task(&task, |t| {
            t["status"] == "input_required"
                && t["inputRequests"]
                    .as_object()
                    .is_some_and(|r| !r.contains_key(&key))
        })
        .await;
    let next = confirm["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    server
        .answer_mcp_input(&task, next, "yes", &capabilities)
        .await;
    let done = server
        .poll_mcp_task(&task, |t| t["status"] == "completed")
        .await;
    assert_eq!(
        done["result"]["structuredContent"]["account"], "ACME-1",
        "{done}"
    );
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn an_authorization_is_asked_again_after_a_restart_and_what_followed_it_too() {
    use a2a_runtime::auth::Caller;
    let data_dir = a2a_tests::scratch_dir();
    let path = data_dir.join("tasks.sqlite3");
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let (thread, base, tasks) = teller_in_own_runtime(path.clone(), stopped);
    let server = TestServer::at(base);
    let sent = server.rpc("SendMessage", lab_call("payout")).await;
    let task = sent["result"]["task"].clone();
    let id = task["id"].as_str().unwrap().to_owned();
    server.wait_for_state(&id, "TASK_STATE_AUTH_REQUIRED").await;
    tasks
        .authorize(&id, &Caller::anonymous(), json!("ada"))
        .await
        .unwrap();
    server
        .wait_for_state(&id, "TASK_STATE_INPUT_REQUIRED")
        .await;
    let _ = stop.send(());
    thread.join().unwrap();
    // The handle holds the old server's store (and its file) until dropped.
    drop(tasks);

    let options = a2a_runtime::store::SqliteStoreOptions::default();
    let store = a2a_runtime::store::SqliteTaskStore::open(&path, options)
        .await
        .unwrap();
    let agent = teller::Teller.server().store(store);
    let tasks = agent.tasks();
    let server = a2a_tests::start(agent).await;
    let waiting = server
        .wait_for_state(&id, "TASK_STATE_INPUT_REQUIRED")
        .await;
    assert_eq!(status_text(&waiting), "How much?", "{waiting}");
    // The credential was never stored: the resumed skill asks for it again ...
    let mut first = answer(&task, "5");
    first["configuration"] = json!({"returnImmediately": true});
    server.rpc("SendMessage", first).await;
    server.wait_for_state(&id, "TASK_STATE_AUTH_REQUIRED").await;
    tasks
        .authorize(&id, &Caller::anonymous(), json!("bea"))
        .await
        .unwrap();
    // ... and the question after it too (the answer given before it no longer applies).
    let again = server
        .wait_for_state(&id, "TASK_STATE_INPUT_REQUIRED")
        .await;
    assert_eq!(status_text(&again), "How much?", "{again}");
    let done = server.rpc("SendMessage", answer(&task, "7")).await;
    let done = &done["result"]["task"];
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(
        done["artifacts"][0]["parts"][0]["text"], "paid 7 to \"bea\"",
        "{done}"
    );
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn unusable_answers_do_not_grow_what_a_waiting_task_stores() {
    let store = TroubledDisk::new(false);
    let largest = Arc::clone(&store.largest);
    let server = a2a_tests::start(booking::Booking::default().server().store(store)).await;
    let started = server
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "b1", "role": "ROLE_USER",
                "parts": [{"data": {"restaurant": "Luigi's", "guests": 2}}]}}),
        )
        .await;
    let task = started["result"]["task"].clone();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{started}"
    );
    // 60 unusable answers of 100 kB: 6 MB in all, more than a task's history may hold (4 MiB).
    let filler = "x".repeat(100_000);
    for n in 0..60 {
        let mut wrong = answer(&task, &format!("not a date {n} {filler}"));
        wrong["message"]["messageId"] = json!(format!("wrong-{n}"));
        let wrong = server.rpc("SendMessage", wrong).await;
        let state = &wrong["result"]["task"]["status"]["state"];
        assert_eq!(state, "TASK_STATE_INPUT_REQUIRED", "{n}: {wrong}");
    }
    let stored = largest.load(Ordering::SeqCst);
    assert!(
        stored < 5 * 1024 * 1024,
        "the task as stored grew to {stored} bytes: its checkpoint kept every unusable answer"
    );
    // The usable answer still takes it on, and the booking completes.
    let dated = server.rpc("SendMessage", answer(&task, "2999-03-01")).await;
    let confirmed = server
        .rpc("SendMessage", answer(&dated["result"]["task"], "yes"))
        .await;
    assert_eq!(
        confirmed["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{confirmed}"
    );
}
