//! Push configs belong to their task's caller, and each delivery goes out in the wire version
//! that registered it; deliveries pending at a kill are delivered after the restart.

use super::*;

fn vault() -> AgentServer {
    let keys = ApiKeys::parse(&format!("alice={ALICE_KEY},bob={BOB_KEY}")).unwrap();
    Vault
        .server()
        .api_keys(keys)
        .jwt(JwtConfig::hs256(a2a_tests::tokens::SECRET))
        .push(local_push())
}

async fn rpc_as(server: &TestServer, key: &str, method: &str, params: Value) -> Value {
    server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .header("X-API-Key", key)
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn another_caller_can_neither_see_nor_change_a_tasks_configs() {
    let server = start(vault()).await;
    let started = rpc_as(
        &server,
        ALICE_KEY,
        "SendMessage",
        send_params("hold", json!({}), json!({"returnImmediately": true})),
    )
    .await;
    let task = started["result"]["task"]["id"].as_str().unwrap().to_owned();
    let hook = json!({"taskId": task, "id": "hook", "url": "http://127.0.0.1:9/"});
    let created = rpc_as(
        &server,
        ALICE_KEY,
        "CreateTaskPushNotificationConfig",
        hook.clone(),
    )
    .await;
    assert_eq!(created["result"]["id"], "hook", "{created}");
    let by_id = json!({"taskId": task, "id": "hook"});
    for (method, params) in [
        ("GetTaskPushNotificationConfig", by_id.clone()),
        ("ListTaskPushNotificationConfigs", json!({"taskId": task})),
        ("DeleteTaskPushNotificationConfig", by_id.clone()),
        ("CreateTaskPushNotificationConfig", hook.clone()),
    ] {
        let refused = rpc_as(&server, BOB_KEY, method, params).await;
        assert_eq!(refused["error"]["code"], -32001, "{method}: {refused}");
    }
    let listed = rpc_as(
        &server,
        ALICE_KEY,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    )
    .await;
    assert_eq!(listed["result"]["configs"].as_array().unwrap().len(), 1);
    // The owner deletes it; deleting again changes nothing and succeeds (A2A 1.0.1: the
    // operation is idempotent).
    let deleted = rpc_as(
        &server,
        ALICE_KEY,
        "DeleteTaskPushNotificationConfig",
        by_id.clone(),
    )
    .await;
    assert_eq!(deleted["result"], Value::Null, "{deleted}");
    let again = rpc_as(
        &server,
        ALICE_KEY,
        "DeleteTaskPushNotificationConfig",
        by_id.clone(),
    )
    .await;
    assert_eq!(again["result"], Value::Null, "{again}");
    let listed = rpc_as(
        &server,
        ALICE_KEY,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    )
    .await;
    assert_eq!(listed["result"]["configs"], json!([]));
}

/// A JSON-RPC request in an older dialect (0.3 or the early draft): its response.
async fn legacy(server: &TestServer, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let server = TestServer::at(server.base.clone());
    server.post_raw(body.to_string(), None).await.1
}

/// 0.3 JSON-RPC, inline: 0.3 deliveries.
#[tokio::test]
async fn a_0_3_registration_gets_0_3_deliveries() {
    let mut v03 = Receiver::start(RECEIVER, &[]).await;
    let server = lab().await;
    let sent = legacy(
        &server,
        "message/send",
        json!({
            "message": {"kind": "message", "messageId": "m1", "role": "user",
                        "parts": [{"kind": "data", "data": {"text": "hi"}}],
                        "metadata": {"skill": "echo"}},
            "configuration": {"pushNotificationConfig": {"url": v03.url, "token": "t03"}},
        }),
    )
    .await;
    assert_eq!(sent["result"]["status"]["state"], "completed", "{sent}");
    let delivered = v03.accepted_until_terminal().await;
    assert_eq!(delivered[0]["contentType"], "application/json");
    assert_eq!(delivered[0]["token"], "t03");
    // 0.3 receivers get the task as each event left it, as the 0.3 reference sends it.
    assert!(
        delivered.iter().all(|d| d["body"]["kind"] == "task"),
        "{delivered:?}"
    );
    assert_eq!(delivered[0]["body"]["status"]["state"], "working");
    assert_eq!(delivered[0]["body"]["id"], sent["result"]["id"]);
    let last = &delivered.last().unwrap()["body"];
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["artifacts"][0]["parts"][0]["kind"], "text", "{last}");
    assert_eq!(last["history"][0]["kind"], "message", "{last}");
}

/// The early draft: set on the client's task id, events under that id.
#[tokio::test]
async fn an_early_draft_registration_gets_draft_deliveries() {
    let mut draft = Receiver::start(RECEIVER, &[]).await;
    let server = lab().await;
    let sender = TestServer::at(server.base.clone());
    let send = json!({"id": "my-task", "message": {"role": "user",
           "parts": [{"type": "data", "data": {"millis": 600000}}], "metadata": {"skill": "wait"}}});
    // The draft's send blocks until the task ends: run it alongside.
    let pending = tokio::spawn(async move { legacy(&sender, "tasks/send", send).await });
    let set = loop {
        let set = legacy(
            &server,
            "tasks/pushNotification/set",
            json!({"id": "my-task", "pushNotificationConfig": {"url": draft.url,
                   "authentication": {"schemes": ["Bearer"], "credentials": "dc"}}}),
        )
        .await;
        if set["error"]["code"] != -32001 {
            break set;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(set["result"]["id"], "my-task", "{set}");
    assert_eq!(
        set["result"]["pushNotificationConfig"]["authentication"]["credentials"],
        "********"
    );
    let got = legacy(
        &server,
        "tasks/pushNotification/get",
        json!({"id": "my-task"}),
    )
    .await;
    assert_eq!(
        got["result"]["pushNotificationConfig"]["url"],
        draft.url.as_str()
    );
    let canceled = legacy(&server, "tasks/cancel", json!({"id": "my-task"})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "canceled",
        "{canceled}"
    );
    let delivered = draft.accepted_until_terminal().await;
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["body"]["id"], "my-task");
    assert_eq!(delivered[0]["body"]["final"], true);
    assert_eq!(delivered[0]["authorization"], "Bearer dc");
    let _ = pending.await;
}

/// 1.0 HTTP+JSON: 1.0 deliveries.
#[tokio::test]
async fn an_http_json_registration_gets_1_0_deliveries() {
    let mut rest = Receiver::start(RECEIVER, &[]).await;
    let server = lab().await;
    // 1.0 HTTP+JSON: POST /tasks/{id}/pushNotificationConfigs.
    let task = waiting_task(&server).await;
    let created: Value = server
        .http
        .post(format!(
            "{}tasks/{task}/pushNotificationConfigs",
            server.base
        ))
        .header("content-type", "application/a2a+json")
        .body(json!({"url": rest.url}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["taskId"], json!(task), "{created}");
    let config = created["id"].as_str().unwrap().to_owned();
    server.rpc("CancelTask", json!({"id": task})).await;
    let delivered = rest.accepted_until_terminal().await;
    assert_eq!(delivered[0]["contentType"], "application/a2a+json");
    assert_eq!(
        delivered[0]["body"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_CANCELED"
    );
    let deleted = server
        .http
        .delete(format!(
            "{}tasks/{task}/pushNotificationConfigs/{config}",
            server.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
}

#[tokio::test]
async fn deliveries_pending_at_kill_9_are_delivered_after_the_restart() {
    // A receiver that refuses everything, so deliveries pile up pending.
    let mut refusing = Receiver::start(RECEIVER, &["--fail-first", "1000000"]).await;
    let port = refusing.port();
    let data = a2a_tests::scratch_dir();
    let store = format!("sqlite://{}", data.join("tasks.sqlite3").display());
    let flags = [
        "--store",
        store.as_str(),
        "--push-allow-private",
        "--push-retry",
        "200ms",
        "--push-attempts",
        "1000",
    ];
    let (mut agent, base) = a2a_tests::spawn_served_with(LAB, &flags).await;
    let server = TestServer::at(base);
    let sent = server
        .rpc(
            "SendMessage",
            send_params(
                "tick",
                json!({"times": 2}),
                json!({"taskPushNotificationConfig": {"url": refusing.url, "token": "kept"}}),
            ),
        )
        .await;
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    // The first event was tried twice: every event is queued, and saved, behind it.
    for _ in 0..2 {
        assert_eq!(refusing.next().await["answered"], 500);
    }
    agent.start_kill().unwrap();
    agent.wait().await.unwrap();
    refusing.kill().await;
    let port = port.to_string();
    let mut receiver = Receiver::start(
        RECEIVER,
        &["--bind", &format!("127.0.0.1:{port}"), "--token", "kept"],
    )
    .await;
    let (_agent, _base) = a2a_tests::spawn_served_with(LAB, &flags).await;
    let delivered = receiver.accepted_until_terminal().await;
    let kinds = kinds(&delivered);
    assert_eq!(
        kinds,
        [
            "statusUpdate",
            "statusUpdate",
            "statusUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ],
        "{delivered:#?}"
    );
    assert!(delivered.iter().all(|d| d["taskId"] == json!(task)));
    assert_eq!(delivered.last().unwrap()["state"], "TASK_STATE_COMPLETED");
}
