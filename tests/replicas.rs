//! Three replicas of the currency agent on one PostgreSQL database, requests spread over them
//! with no affinity: whichever replica a request reaches serves it, whichever replica runs the
//! task. Skipped, saying so, without `DATABASE_URL`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::receiver::Receiver;
use a2a_tests::sse::state_of;
use a2a_tests::{TestServer, response_from, spawn_served_with};
use serde_json::{Value, json};

#[path = "replicas/cluster.rs"]
mod cluster;
#[path = "replicas/faults.rs"]
mod faults;
#[path = "replicas/keys.rs"]
mod keys;
#[path = "replicas/load.rs"]
mod load;

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The MCP request-state key every replica is given.
const STATE_KEY: &str = "replicas-share-this-32-byte-secret!";

/// Starts `count` replicas on the database `url`, each with a one-second lease.
async fn replicas(url: &str, count: usize) -> Vec<(tokio::process::Child, TestServer)> {
    replicas_with(url, count, &[]).await
}

/// [`replicas`], each with `extra` flags too.
async fn replicas_with(
    url: &str,
    count: usize,
    extra: &[&str],
) -> Vec<(tokio::process::Child, TestServer)> {
    let mut started = Vec::new();
    for _ in 0..count {
        let mut flags = vec![
            "--store",
            url,
            "--replica-lease",
            "1s",
            "--state-key",
            STATE_KEY,
        ];
        flags.extend(extra);
        let (child, base) = spawn_served_with(CURRENCY, &flags).await;
        started.push((child, TestServer::at(base)));
    }
    started
}

fn report(pace_ms: u64) -> Value {
    json!({"message": {"messageId": format!("report-{pace_ms}"), "role": "ROLE_USER",
        "parts": [{"data": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": pace_ms}}],
        "metadata": {"skill": "report"}},
        "configuration": {"returnImmediately": true}})
}

fn answer(task: &Value, text: &str) -> Value {
    json!({"message": {"messageId": format!("answer-{text}"), "role": "ROLE_USER",
        "taskId": task["id"], "contextId": task["contextId"], "parts": [{"text": text}]}})
}

#[tokio::test]
async fn any_replica_serves_any_task() {
    let Some(url) = a2a_tests::postgres::fresh_database("replicas").await else {
        return;
    };
    let replicas = replicas(&url, 3).await;
    let (a, b, c) = (&replicas[0].1, &replicas[1].1, &replicas[2].1);

    a_stream_on_b_follows_as_task_on_a(a, b, c).await;
    a_cancel_on_c_stops_a_skill_on_a(a, b, c).await;
    answers_through_b_and_c_reach_a_question_on_a(a, b, c).await;
    an_mcp_task_on_a_is_polled_and_answered_on_c(a, b, c).await;
}

/// Sent on A, streamed from B: every event A's skill reports, in order, to the end; C reads it as A finished it.
async fn a_stream_on_b_follows_as_task_on_a(a: &TestServer, b: &TestServer, c: &TestServer) {
    // Sent on A, streamed from B: every event A's skill reports, in order, to the end.
    let sent = a.rpc("SendMessage", report(300)).await;
    let task = sent["result"]["task"].clone();
    let id = task["id"].as_str().unwrap();
    let mut stream = b.subscribe(id).await.expect("B subscribes to A's task");
    let items = stream.rest().await;
    let last = items.last().unwrap();
    assert_eq!(state_of(last), Some("TASK_STATE_COMPLETED"), "{items:?}");
    let sections: Vec<&str> = items
        .iter()
        .filter_map(|item| item["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .filter(|text| text.starts_with("## "))
        .map(|text| &text[3..6])
        .collect();
    assert_eq!(sections, ["USD", "JPY", "GBP"], "in order: {items:?}");
    // And C reads it as A finished it.
    let read = c.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(read["result"]["status"]["state"], "TASK_STATE_COMPLETED");
}

/// Sent on A, canceled on C: A's skill stops.
async fn a_cancel_on_c_stops_a_skill_on_a(a: &TestServer, b: &TestServer, c: &TestServer) {
    // Sent on A, canceled on C: A's skill stops.
    let slow = a.rpc("SendMessage", report(60_000)).await;
    let slow_id = slow["result"]["task"]["id"].as_str().unwrap().to_owned();
    a.wait_for_state(&slow_id, "TASK_STATE_WORKING").await;
    let canceled = c.rpc("CancelTask", json!({"id": slow_id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    a.wait_for_state(&slow_id, "TASK_STATE_CANCELED").await;
    let again = b.rpc("CancelTask", json!({"id": slow_id})).await;
    assert_eq!(again["error"]["code"], -32002, "already canceled: {again}");
}

/// Asked on A, answered through B, then through C.
async fn answers_through_b_and_c_reach_a_question_on_a(
    a: &TestServer,
    b: &TestServer,
    c: &TestServer,
) {
    // Asked on A, answered through B, then through C.
    let asked = a
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "xchg", "role": "ROLE_USER",
                "parts": [{"data": {"money": {"amount": 50, "currency": "GBP"}, "to": "JPY"}}],
                "metadata": {"skill": "exchange"}}}),
        )
        .await;
    let waiting = asked["result"]["task"].clone();
    assert_eq!(
        waiting["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let second = b.rpc("SendMessage", answer(&waiting, "ACME-7")).await;
    let second = &second["result"]["task"];
    assert_eq!(
        second["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{second}"
    );
    let history = second["history"].as_array().unwrap();
    assert!(
        history.iter().any(|m| m["parts"][0]["text"] == "ACME-7"),
        "B reports the task with the answer it forwarded: {second}"
    );
    let done = c.rpc("SendMessage", answer(&waiting, "yes")).await;
    let done = &done["result"]["task"];
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(
        done["artifacts"][1]["parts"][0]["data"]["account"],
        "ACME-7"
    );
    // The skill ran on A throughout (had another replica run it again, A's would still wait).
    let on_a = a.rpc("GetTask", json!({"id": waiting["id"]})).await;
    assert_eq!(on_a["result"]["status"]["state"], "TASK_STATE_COMPLETED");
}

/// An MCP task called on A, polled and answered on C, finished as A ran it.
async fn an_mcp_task_on_a_is_polled_and_answered_on_c(
    a: &TestServer,
    b: &TestServer,
    c: &TestServer,
) {
    // An MCP task called on A, polled and answered on C, finished as A ran it.
    let capabilities = json!({ "extensions": { TASKS: {} }, "elicitation": {} });
    let (_, created) = a
        .mcp_modern(
            "tools/call",
            json!({"name": "exchange",
                   "arguments": {"money": {"amount": 10, "currency": "EUR"}, "to": "USD"}}),
            capabilities.clone(),
        )
        .await;
    let created = response_from(&created);
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let mcp_task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let polled = c
        .poll_mcp_task(&mcp_task, |t| t["status"] == "input_required")
        .await;
    let (key, request) = polled["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_eq!(
        request["params"]["message"],
        "Which account should be debited?"
    );
    c.answer_mcp_input(&mcp_task, key, "ACME-9", &capabilities)
        .await;
    let confirm = c
        .poll_mcp_task(&mcp_task, |t| {
            t["status"] == "input_required"
                && t["inputRequests"]
                    .as_object()
                    .is_some_and(|r| !r.contains_key(key.as_str()))
        })
        .await;
    let key = confirm["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    b.answer_mcp_input(&mcp_task, key, "yes", &capabilities)
        .await;
    let finished = c
        .poll_mcp_task(&mcp_task, |t| t["status"] == "completed")
        .await;
    assert_eq!(
        finished["result"]["structuredContent"]["account"], "ACME-9",
        "{finished}"
    );
    let on_a = a.rpc("GetTask", json!({"id": mcp_task})).await;
    assert_eq!(on_a["result"]["status"]["state"], "TASK_STATE_COMPLETED");
}

/// A stateless MCP `tools/call` (or retry) of `exchange` on `server`.
async fn exchange_over_mrtr(server: &TestServer, extra: Value) -> Value {
    let mut params = json!({"name": "exchange",
        "arguments": {"money": {"amount": 20, "currency": "CHF"}, "to": "EUR"}});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    let capabilities = json!({ "elicitation": { "form": {} } });
    let (_, body) = server.mcp_modern("tools/call", params, capabilities).await;
    response_from(&body)
}

/// The retry fields answering the one input request of `result` with `answer`.
fn mrtr_answer(result: &Value, answer: &str) -> Value {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let key = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    json!({"requestState": result["requestState"],
           "inputResponses": { key: {"action": "accept", "content": {"answer": answer}}}})
}

#[tokio::test]
async fn an_mcp_retry_may_reach_any_replica() {
    let Some(url) = a2a_tests::postgres::fresh_database("mrtr").await else {
        return;
    };
    let replicas = replicas(&url, 3).await;
    let (a, b, c) = (&replicas[0].1, &replicas[1].1, &replicas[2].1);
    let first = exchange_over_mrtr(a, json!({})).await;
    let asked = &first["result"];
    let question = asked["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(
        question["params"]["message"],
        "Which account should be debited?"
    );
    // Retried on B: B makes the call again from the sealed state, with the answer.
    let second = exchange_over_mrtr(b, mrtr_answer(asked, "ACME-3")).await;
    let confirm = &second["result"];
    let question = confirm["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!(
        question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("debited from ACME-3"),
        "{second}"
    );
    // And on C, with both answers carried in the state.
    let done = exchange_over_mrtr(c, mrtr_answer(confirm, "yes")).await;
    assert_eq!(
        done["result"]["structuredContent"]["account"], "ACME-3",
        "{done}"
    );
    // A state sealed with another key is refused.
    let (stranger, base) = spawn_served_with(CURRENCY, &["--store", &url]).await;
    let forged = exchange_over_mrtr(&TestServer::at(base), mrtr_answer(confirm, "yes")).await;
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    drop(stranger);
}

#[tokio::test]
async fn a_survivor_fails_the_tasks_of_a_replica_killed_mid_work_after_its_lease() {
    let Some(url) = a2a_tests::postgres::fresh_database("replica_death").await else {
        return;
    };
    let mut replicas = replicas(&url, 2).await;
    let (mut doomed, a) = replicas.remove(0);
    let b = &replicas[0].1;
    let sent = a.rpc("SendMessage", report(60_000)).await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    a.wait_for_state(&id, "TASK_STATE_WORKING").await;
    // B follows it while A dies.
    let mut stream = b.subscribe(&id).await.expect("B follows A's task");
    doomed.start_kill().unwrap();
    doomed.wait().await.unwrap();

    let failed = b.wait_for_state(&id, "TASK_STATE_FAILED").await;
    let reason = failed["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(reason.starts_with("interrupted by a restart"), "{failed}");
    // The stream B held ends with the task's final state.
    let items = stream.rest().await;
    assert_eq!(
        items.last().and_then(state_of),
        Some("TASK_STATE_FAILED"),
        "{items:?}"
    );
}

const RECEIVER: &str = env!("CARGO_BIN_EXE_receiver-under-test");

#[tokio::test]
async fn the_push_deliveries_of_a_killed_replica_are_made_once_by_one_survivor() {
    let Some(url) = a2a_tests::postgres::fresh_database("replicas_push").await else {
        return;
    };
    // A receiver refusing everything: the task's deliveries stay pending on its replica.
    let mut refusing = Receiver::start(RECEIVER, &["--fail-first", "1000000"]).await;
    let port = refusing.port().to_string();
    let push = [
        "--push-allow-private",
        "--push-retry",
        "200ms",
        "--push-attempts",
        "1000",
    ];
    let mut replicas = replicas_with(&url, 3, &push).await;
    let a = &replicas[0].1;
    let mut send = report(20);
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": refusing.url}});
    let sent = a.rpc("SendMessage", send).await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    // The first event was tried twice: the rest are queued, and saved, behind it.
    for _ in 0..2 {
        assert_eq!(refusing.next().await["answered"], 500);
    }
    let (mut doomed, _) = replicas.remove(0);
    doomed.start_kill().unwrap();
    doomed.wait().await.unwrap();
    refusing.kill().await;
    let mut receiver = Receiver::start(RECEIVER, &["--bind", &format!("127.0.0.1:{port}")]).await;
    // After A's lease, B and C both look for its deliveries; each is made once, in order.
    let delivered = receiver.accepted_until_terminal().await;
    assert!(delivered.iter().all(|d| d["taskId"] == json!(task)));
    assert_eq!(
        delivered[0]["state"], "TASK_STATE_WORKING",
        "{delivered:#?}"
    );
    let mut bodies: Vec<String> = delivered.iter().map(|d| d["body"].to_string()).collect();
    let count = bodies.len();
    bodies.sort();
    bodies.dedup();
    assert_eq!(bodies.len(), count, "no delivery twice: {delivered:#?}");
    let sections = delivered
        .iter()
        .filter_map(|d| d["body"]["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .filter(|text| text.starts_with("## "))
        .count();
    assert_eq!(sections, 3, "{delivered:#?}");
    // Nothing more comes: the other survivor did not deliver them again.
    let late = receiver
        .next_within(std::time::Duration::from_secs(3))
        .await;
    assert!(late.is_none(), "delivered again: {late:?}");
}

/// A replica's lease is `--replica-lease` long, and renewed on a connection of its own: while
/// requests hold every connection of its pool (each waiting on a lock another session holds on
/// the tasks), its one-second lease does not lapse, so no replica starting meanwhile would take
/// its running tasks for abandoned.
#[tokio::test]
async fn a_replicas_lease_holds_while_requests_hold_its_whole_pool() {
    use sqlx::Connection as _;
    let Some(url) = a2a_tests::postgres::fresh_database("lease").await else {
        return;
    };
    let replicas = replicas(&url, 1).await;
    let a = &replicas[0].1;
    let mut locker = sqlx::PgConnection::connect(&url).await.unwrap();
    let mut lock = locker.begin().await.unwrap();
    sqlx::query("LOCK TABLE a2a_tasks IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let mut watcher = sqlx::PgConnection::connect(&url).await.unwrap();
    let lease: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM max(lease_until) - now())::float8 FROM a2a_replicas",
    )
    .fetch_one(&mut watcher)
    .await
    .unwrap();
    assert!(
        lease <= 1.0,
        "the lease is --replica-lease's 1 s, not {lease} s"
    );
    // More reads than the pool has connections (16): every one is taken, the rest queue.
    let reads = futures::future::join_all(
        (0..40).map(|i| a.rpc("GetTask", json!({"id": format!("held-{i}")}))),
    );
    let watch = async {
        // Two and a half leases: a renewal waiting for a pooled connection would have lapsed.
        tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
        let alive: bool =
            sqlx::query_scalar("SELECT bool_and(lease_until > now()) FROM a2a_replicas")
                .fetch_one(&mut watcher)
                .await
                .unwrap();
        lock.rollback().await.unwrap();
        alive
    };
    let (answers, alive) = tokio::join!(reads, watch);
    assert!(alive, "the lease lapsed while requests held the pool");
    for answer in answers {
        assert_eq!(answer["error"]["code"], -32001, "{answer}");
    }
}
