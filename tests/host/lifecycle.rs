//! A host's agents through restarts, push and shutdown: each settles its own tasks after a kill,
//! pushes its own events, and stops with the host.

use super::*;

/// After SIGKILL, each agent of a host settles only its own tasks on the shared SQLite file: a
/// booking waiting for its date still waits (the currency agent, which has no such skill, would
/// have failed it), and a finished conversion is still found through currency only.
#[tokio::test]
async fn after_a_kill_each_hosted_agent_settles_its_own_tasks_on_the_shared_file() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (mut first, base) = a2a_tests::spawn_served_with(HOST, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let converted = task_id(&rpc_at(&server, "", "SendMessage", convert(Some("currency"))).await);
    let book = json!({"tenant": "booking", "message": {"messageId": "book-1", "role": "ROLE_USER",
        "parts": [{"data": {"restaurant": "Luigi's", "guests": 2}}],
        "metadata": {"skill": "book_table"}}});
    let waiting = rpc_at(&server, "", "SendMessage", book).await;
    assert_eq!(
        waiting["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{waiting}"
    );
    let booking = waiting["result"]["task"].clone();
    first.start_kill().unwrap();
    first.wait().await.unwrap();
    let (_second, base) = a2a_tests::spawn_served_with(HOST, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let id = booking["id"].as_str().unwrap();
    let still = rpc_at(&server, "booking/", "GetTask", json!({"id": id})).await;
    assert_eq!(
        still["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "the booking still waits for its date: {still}"
    );
    let answer = json!({"message": {"messageId": "date-1", "role": "ROLE_USER",
        "taskId": id, "contextId": booking["contextId"], "parts": [{"text": "2099-01-01"}]}});
    let resumed = rpc_at(&server, "booking/", "SendMessage", answer).await;
    let question = resumed["result"]["task"]["status"]["message"]["parts"][0]["text"].as_str();
    assert!(
        question.is_some_and(|q| q.starts_with("Book a table for 2 at Luigi's on 2099-01-01")),
        "the answer resumed it where it waited: {resumed}"
    );
    let found = rpc_at(&server, "currency/", "GetTask", json!({"id": converted})).await;
    assert_eq!(
        found["result"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{found}"
    );
    let elsewhere = rpc_at(&server, "booking/", "GetTask", json!({"id": converted})).await;
    assert_eq!(elsewhere["error"]["code"], -32001, "{elsewhere}");
    let _ = std::fs::remove_dir_all(data_dir);
}

/// One push deliverer serves every agent: a task of the hello agent, reached by tenant, has its
/// events delivered to the webhook its send registered.
#[tokio::test]
async fn a_hosted_agents_task_events_are_pushed_to_its_webhook() {
    let mut receiver = a2a_tests::receiver::Receiver::start(RECEIVER, &[]).await;
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.push.allow_private = true;
    let server =
        a2a_tests::start_host(two_agents().agent("hello", hello::Hello).config(config)).await;
    let send = json!({
        "tenant": "hello",
        "message": {"messageId": "push-1", "role": "ROLE_USER", "parts": [{"text": "Ada"}]},
        "configuration": {"taskPushNotificationConfig": {"url": receiver.url}},
    });
    let task = task_id(&rpc_at(&server, "", "SendMessage", send).await);
    let delivered = receiver.accepted_until_terminal().await;
    assert!(!delivered.is_empty());
    assert!(
        delivered.iter().all(|d| d["taskId"] == task.as_str()),
        "{delivered:#?}"
    );
    assert_eq!(delivered.last().unwrap()["state"], "TASK_STATE_COMPLETED");
}

/// One shutdown for all: cancelling the host's signal ends a running task of one agent as
/// failed (its webhook is told) as the server shuts down, and `serve_on` returns.
#[tokio::test]
async fn cancelling_the_hosts_signal_shuts_every_agent_down() {
    let mut receiver = a2a_tests::receiver::Receiver::start(RECEIVER, &[]).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let signal = a2a_runtime::server::CancellationToken::new();
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.push.allow_private = true;
    config.limits.shutdown_timeout = std::time::Duration::from_millis(300);
    let host = two_agents()
        .config(config)
        .public_url(base.clone())
        .shutdown_signal(signal.clone());
    let served = tokio::spawn(async move { host.serve_on(listener).await });
    let server = TestServer::at(base);
    let report = json!({"tenant": "currency",
        "configuration": {"returnImmediately": true,
            "taskPushNotificationConfig": {"url": receiver.url}},
        "message": {"messageId": "r1", "role": "ROLE_USER",
            "parts": [{"data": {"currencies": ["USD"], "pace_ms": 60_000}}],
            "metadata": {"skill": "report"}}});
    let task = task_id(&rpc_at(&server, "", "SendMessage", report).await);
    signal.cancel();
    tokio::time::timeout(std::time::Duration::from_secs(10), served)
        .await
        .expect("the host stops within its shutdown timeout")
        .unwrap()
        .unwrap();
    let delivered = receiver.accepted_until_terminal().await;
    let last = delivered.last().unwrap();
    assert_eq!(last["taskId"], task.as_str());
    assert_eq!(
        last["state"], "TASK_STATE_FAILED",
        "ended by the shutdown: {last}"
    );
}
