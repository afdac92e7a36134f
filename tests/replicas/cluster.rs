//! The agent host as an operator runs it past one machine: three replicas behind HAProxy
//! (`scripts/cluster`), round-robin with no stickiness, every request through the balancer.

use a2a_runtime::client::{A2aClient, Binding, StreamEvent};
use a2a_runtime::futures::StreamExt;
use a2a_runtime::{Message, Part, TaskState};
use a2a_tests::client_kit::{artifacts_of, no_wait, task_of};
use a2a_tests::cluster::{ALICE, Cluster};
use serde_json::{Value, json};

const HOST: &str = env!("CARGO_BIN_EXE_interop-host");

/// A cluster of three on a fresh database, or `None` (said) without `DATABASE_URL` or HAProxy.
pub(crate) async fn three(name: &str, extra: &[&str]) -> Option<Cluster> {
    if !Cluster::available(name) {
        return None;
    }
    let url = a2a_tests::postgres::fresh_database(name).await?;
    Some(Cluster::up(HOST, &url, 3, extra))
}

/// A message calling currency's `skill` with `input`.
fn call(skill: &str, input: Value) -> Message {
    let mut message = Message::user(vec![Part::data(input)]);
    message.metadata = json!({ "skill": skill }).as_object().cloned();
    message
}

/// A reply of `text` to the task `to` waits on.
fn reply(to: &a2a_runtime::Task, text: &str) -> Message {
    let mut message = Message::user_text(text);
    message.task_id = Some(to.id.clone());
    message.context_id = Some(to.context_id.clone());
    message
}

fn report(pace_ms: u64) -> Message {
    call(
        "report",
        json!({"currencies": ["USD", "JPY", "GBP"], "pace_ms": pace_ms}),
    )
}

/// The report's sections, in the order `events` build them (each artifact's parts).
fn sections(events: &[StreamEvent]) -> Vec<String> {
    artifacts_of(events)
        .values()
        .flatten()
        .filter_map(|text| text.strip_prefix("## ").map(|s| s[..3].to_owned()))
        .collect()
}

/// Alice's client of the currency agent through the balancer over `binding` alone.
async fn currency_over(cluster: &Cluster, binding: Binding) -> A2aClient {
    A2aClient::builder(format!("{}currency/", cluster.url))
        .only(binding)
        .api_key("X-API-Key", ALICE)
        .connect()
        .await
        .expect("the balancer serves currency's card")
}

#[tokio::test]
async fn every_binding_sends_streams_answers_and_cancels_through_a_balancer_without_affinity() {
    let Some(cluster) = three("cluster_bindings", &[]).await else {
        return;
    };
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        let client = currency_over(&cluster, binding.clone()).await;
        assert_eq!(client.interface().binding, binding);

        // A stream, from whichever replica runs the report, every section once and in order.
        let stream = client.send_streaming(report(50)).await.unwrap();
        let events: Vec<_> = stream.map(|e| e.unwrap()).collect().await;
        assert_eq!(sections(&events), ["USD", "JPY", "GBP"], "{binding}");

        // A question asked on one replica, answered through whichever two others come next.
        let asked = call(
            "exchange",
            json!({"money": {"amount": 50, "currency": "GBP"}, "to": "JPY"}),
        );
        let waiting = task_of(client.send(asked).await.unwrap());
        assert_eq!(waiting.status.state, TaskState::InputRequired, "{binding}");
        let second = task_of(client.send(reply(&waiting, "ACME-7")).await.unwrap());
        assert_eq!(second.status.state, TaskState::InputRequired, "{binding}");
        let done = task_of(client.send(reply(&waiting, "yes")).await.unwrap());
        assert_eq!(
            done.status.state,
            TaskState::Completed,
            "{binding}: {done:?}"
        );

        // A slow report canceled through another replica than the one running it.
        let slow = task_of(client.send_with(report(60_000), no_wait()).await.unwrap());
        let canceled = client.cancel_task(&slow.id).await.unwrap();
        assert_eq!(canceled.status.state, TaskState::Canceled, "{binding}");
        let read = client.get_task(&slow.id, None).await.unwrap();
        assert_eq!(read.status.state, TaskState::Canceled, "{binding}");
    }
    let spread = cluster.requests_per_replica();
    assert!(
        spread.iter().all(|&n| n > 3),
        "every replica served: {spread:?}"
    );
    over_tls_at_the_balancer(&cluster).await;
}

/// TLS ends at the balancer (a test CA's certificate): a call over HTTPS there.
async fn over_tls_at_the_balancer(cluster: &Cluster) {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    let ca = CertificateDer::from_pem_file(&cluster.ca).expect("the cluster's CA");
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "x-api-key",
        reqwest::header::HeaderValue::from_static(ALICE),
    );
    let https = a2a_runtime_types::https::client_builder_trusting(&[ca])
        .unwrap()
        .default_headers(headers)
        .build()
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message":
        {"messageId": "over-tls", "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}});
    let answered = https
        .post(format!("{}hello/", cluster.tls_url))
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let answer: Value = answered.json().await.unwrap();
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
}

#[tokio::test]
async fn a_stream_cut_by_its_replicas_death_resumes_on_another_with_nothing_lost_or_repeated() {
    let Some(cluster) = three("cluster_stream_cut", &[]).await else {
        return;
    };
    // Each report runs on replica 0 (sent to it directly), slowly enough to cut it midway.
    let runner = A2aClient::builder(format!("{}currency/", cluster.replica_url(0)))
        .api_key("X-API-Key", ALICE)
        .connect()
        .await
        .unwrap();
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        let task = task_of(runner.send_with(report(700), no_wait()).await.unwrap());
        let client = currency_over(&cluster, binding.clone()).await;
        let (events, serving) = follow_through_a_kill(&cluster, &client, &task.id).await;
        assert_eq!(
            sections(&events),
            ["USD", "JPY", "GBP"],
            "{binding}: {events:?}"
        );
        let last = events.last().unwrap();
        assert!(
            matches!(last, StreamEvent::Status(s) if s.status.state == TaskState::Completed),
            "{binding}: {last:?}"
        );
        // The replica comes back and the balancer sends it requests again.
        cluster.start(serving);
        let again = client.get_task(&task.id, None).await.unwrap();
        assert_eq!(again.status.state, TaskState::Completed);
    }
}

/// Task `id`'s events through `client`, subscribed through the balancer until a replica other
/// than the runner (0) serves the stream, which is killed after the first artifact: the events,
/// and the replica killed.
async fn follow_through_a_kill(
    cluster: &Cluster,
    client: &A2aClient,
    id: &str,
) -> (Vec<StreamEvent>, usize) {
    let mut attempts = 0..50;
    let (mut stream, serving) = loop {
        assert!(
            attempts.next().is_some(),
            "no stream served by another replica"
        );
        let stream = client.subscribe(id).await.unwrap();
        let serving = cluster.serving_streams();
        match serving.iter().position(|&n| n > 0) {
            Some(0) | None => drop(stream),
            Some(other) => break (stream, other),
        }
    };
    let mut events = Vec::new();
    let mut killed = false;
    while let Some(event) = stream.next().await {
        events.push(event.expect("a renewed stream yields events"));
        if !killed && matches!(events.last(), Some(StreamEvent::Artifact(_))) {
            cluster.kill(serving);
            killed = true;
        }
    }
    assert!(killed, "the stream was cut midway: {events:?}");
    (events, serving)
}

#[tokio::test]
async fn an_mcp_session_begun_through_the_balancer_continues_on_every_replica() {
    let Some(cluster) = three("cluster_mcp_session", &[]).await else {
        return;
    };
    let currency = cluster.agent("currency", ALICE);
    let tasks = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let session = currency.mcp_session_with(tasks).await;
    let id = session.id().expect("a session id").to_owned();
    // The session's id, sent to each replica's own endpoint: each serves it, tools, progress
    // and all, the session never initialized again.
    for replica in 0..3 {
        let url = format!("{}currency/mcp", cluster.replica_url(replica));
        let mut there = session.elsewhere(&url);
        let listed = there.request("tools/list", json!({})).await;
        let tools = listed["result"]["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), 6, "replica {replica}: {listed}");
        let params = json!({"name": "report", "_meta": {"progressToken": "p"},
            "arguments": {"currencies": ["USD", "JPY"], "pace_ms": 10}});
        let body = there.request_raw("tools/call", params).await;
        let progress = body.matches("notifications/progress").count();
        assert!(progress >= 2, "replica {replica} reports progress: {body}");
        let called = a2a_tests::response_from(&body);
        assert_eq!(
            called["result"]["isError"], false,
            "replica {replica}: {called}"
        );
        assert_eq!(there.id(), Some(id.as_str()), "the same session throughout");
    }
    // A task begun in the session on one replica, read on the next two.
    let on = |replica: usize| {
        session.elsewhere(&format!("{}currency/mcp", cluster.replica_url(replica)))
    };
    let params = json!({"name": "report", "task": {"ttl": 60_000},
        "arguments": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": 200}});
    let created = on(0).request("tools/call", params).await;
    let task_id = created["result"]["taskId"]
        .as_str()
        .or_else(|| created["result"]["task"]["taskId"].as_str())
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let polled = on(1).request("tasks/get", json!({"taskId": task_id})).await;
    assert!(polled["error"].is_null(), "{polled}");
    let mut done = polled;
    for _ in 0..500 {
        done = on(2).request("tasks/get", json!({"taskId": task_id})).await;
        if done["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    // And 2026-07-28 calls, each on its own, wherever the balancer sends them.
    for _ in 0..3 {
        let arguments = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
        let params = json!({"name": "convert", "arguments": arguments});
        let (status, body) = currency.mcp_modern("tools/call", params, json!({})).await;
        let called = a2a_tests::response_from(&body);
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            called["result"]["structuredContent"]["currency"], "EUR",
            "{called}"
        );
    }
}

/// The official MCP TypeScript SDK signs in through the cluster's authorization server, its
/// steps spread over every replica, refreshes, and its tokens once revoked are refused by all.
#[tokio::test]
async fn the_typescript_mcp_client_signs_in_refreshes_and_is_revoked_across_replicas() {
    let (Ok(node), Ok(_)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_MCP_SDK"),
    ) else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_MCP_SDK (scripts/test sets them)");
        return;
    };
    let Some(cluster) = three("cluster_sign_in", &["--oauth-token-ttl", "2s"]).await else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/cluster_oauth.mjs");
    let mcp = format!("{}hello/mcp", cluster.url);
    let limit = std::time::Duration::from_secs(90);
    let said = a2a_tests::run_to_success(&node, &[script, &mcp, "alice"], limit).await;
    assert!(said.contains("revoked everywhere"), "{said}");
}

/// hello's greeting through the balancer as `key`'s caller: the replica that answered, and
/// whether it was refused as busy (and why).
async fn greet_as(cluster: &Cluster, key: &str) -> (String, Option<Value>) {
    static SENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message":
        {"messageId": format!("greet-{id}"), "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}});
    let answered = Cluster::client(key)
        .post(format!("{}hello/", cluster.url))
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let replica = answered.headers()["x-replica"].to_str().unwrap().to_owned();
    let answer: Value = answered.json().await.unwrap();
    match answer["error"]["code"].as_i64() {
        Some(-32029) => (replica, Some(answer["error"].clone())),
        None => (replica, None),
        Some(_) => panic!("{answer}"),
    }
}

#[tokio::test]
async fn a_callers_rate_holds_for_the_cluster_not_once_per_replica() {
    // Two tasks a second with a burst of six, for the whole cluster.
    let limits = [
        "--tasks-per-second-per-caller",
        "2",
        "--task-burst-per-caller",
        "6",
    ];
    let Some(cluster) = three("cluster_rate", &limits).await else {
        return;
    };
    let started = std::time::Instant::now();
    let (mut admitted, mut refused_by) = (0, std::collections::BTreeSet::new());
    for _ in 0..30 {
        match greet_as(&cluster, ALICE).await {
            (_, None) => admitted += 1,
            (replica, Some(_)) => {
                refused_by.insert(replica);
            }
        }
    }
    // Each replica admits a third: the burst and what the rate refilled meanwhile, not three
    // bursts (18) as replicas limiting alone would.
    let refilled = (2.0 * started.elapsed().as_secs_f64()).ceil() as usize;
    let elapsed = started.elapsed();
    assert!(
        admitted <= 6 + refilled + 1,
        "admitted {admitted} of 30 in {elapsed:?}"
    );
    assert_eq!(refused_by.len(), 3, "every replica refuses: {refused_by:?}");
    // Another caller is not held back by Alice's rate.
    assert!(
        greet_as(&cluster, a2a_tests::cluster::BOB)
            .await
            .1
            .is_none()
    );
}

#[tokio::test]
async fn a_callers_monthly_budget_holds_on_every_replica_within_the_refresh_bound() {
    let Some(cluster) = three("cluster_budget", &["--call-budget", "4"]).await else {
        return;
    };
    let mut admitted = 0;
    while admitted < 4 {
        assert!(
            greet_as(&cluster, ALICE).await.1.is_none(),
            "within the budget"
        );
        admitted += 1;
    }
    // Every replica learns the calls the others counted (usage rows written within a second,
    // read again every ten): polled until each refuses, a hang guard of 30 s.
    let mut refusing = std::collections::BTreeSet::new();
    let mut overspent = 0;
    for _ in 0..60 {
        match greet_as(&cluster, ALICE).await {
            (replica, Some(error)) => {
                assert!(
                    error["message"].as_str().unwrap().contains("budget"),
                    "{error}"
                );
                refusing.insert(replica);
            }
            (_, None) => overspent += 1,
        }
        if refusing.len() == 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert_eq!(refusing.len(), 3, "every replica refuses: {refusing:?}");
    // What a replica admitted before it read the others' calls is the stated bound's overshoot.
    assert!(overspent <= 2 * 12, "overspent {overspent}");
}

#[tokio::test]
async fn push_events_reach_the_webhook_once_each_although_three_replicas_run() {
    let Some(cluster) = three("cluster_push", &["--push-allow-private"]).await else {
        return;
    };
    let mut receiver = a2a_tests::receiver::Receiver::start(super::RECEIVER, &[]).await;
    let currency = cluster.agent("currency", ALICE);
    let mut send = json!({"message": {"messageId": "pushed", "role": "ROLE_USER",
        "parts": [{"data": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": 50}}],
        "metadata": {"skill": "report"}},
        "configuration": {"taskPushNotificationConfig": {"url": receiver.url}}});
    send["configuration"]["returnImmediately"] = json!(true);
    let sent = currency.rpc("SendMessage", send).await;
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let delivered = receiver.accepted_until_terminal().await;
    assert!(delivered.iter().all(|d| d["taskId"] == json!(task)));
    let mut bodies: Vec<String> = delivered.iter().map(|d| d["body"].to_string()).collect();
    let count = bodies.len();
    bodies.sort();
    bodies.dedup();
    assert_eq!(bodies.len(), count, "no event twice: {delivered:#?}");
    let sections: Vec<&str> = delivered
        .iter()
        .filter_map(|d| d["body"]["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .filter_map(|text| text.strip_prefix("## "))
        .map(|text| &text[..3])
        .collect();
    assert_eq!(sections, ["USD", "JPY", "GBP"], "in order: {delivered:#?}");
    // And no replica delivers anything again (a bounded wait for a delivery that must not come).
    let late = receiver
        .next_within(std::time::Duration::from_secs(2))
        .await;
    assert!(late.is_none(), "delivered again: {late:?}");
}

/// The official MCP Python SDK keeps one 2025-11-25 session although the balancer spreads its
/// requests over every replica.
#[tokio::test]
async fn the_python_mcp_clients_session_spans_every_replica() {
    let python = std::env::var("A2A_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let Some(cluster) = three("cluster_python_mcp", &[]).await else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/cluster_mcp.py");
    let url = format!("{}currency/mcp", cluster.url);
    let limit = std::time::Duration::from_secs(60);
    let said = a2a_tests::run_to_success(&python, &[script, &url, ALICE], limit).await;
    assert!(said.contains("one session over"), "{said}");
}

/// The official A2A Python SDK's client through the balancer, on each binding: card, sends, a
/// stream left and resubscribed, a cancel, each request wherever the balancer sends it.
#[tokio::test]
async fn the_python_a2a_client_works_through_the_balancer_on_every_binding() {
    let python = std::env::var("A2A_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let Some(cluster) = three("cluster_python_a2a", &[]).await else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/a2a_client.py");
    let url = format!("{}currency/", cluster.url);
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        let (args, key) = ([script, &url, binding], [("A2A_TEST_API_KEY", ALICE)]);
        let limit = std::time::Duration::from_secs(120);
        let said = a2a_tests::run_to_success_with(&python, &args, &key, limit).await;
        assert!(said.contains("cancel ok"), "{binding}: {said}");
    }
}
