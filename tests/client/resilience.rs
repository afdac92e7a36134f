//! What the client does when an agent is slow, busy, flaky or cut off: sends refused for their
//! rate are sent again when the agent says, reads retried through brief unavailability, cut
//! streams renewed.

use super::*;

#[tokio::test]
async fn a_send_refused_for_its_rate_is_sent_again_when_the_agent_says() {
    let mut limits = a2a_runtime::server::Limits::default();
    limits.tasks_per_second_per_caller = 1;
    limits.task_burst_per_caller = 1;
    let server = start(Lab.server().limits(limits)).await;
    let patient = A2aClient::connect(&server.base).await.unwrap();
    let echo = || call("echo", json!({"text": "again"}));
    task_of(patient.send(echo()).await.unwrap());
    // Over the rate: refused with Retry-After, then accepted on the retry.
    let retried = task_of(patient.send(echo()).await.unwrap());
    assert_eq!(retried.status.state, TaskState::Completed);

    let impatient = A2aClient::builder(&server.base)
        .retry(RetryPolicy::none())
        .connect()
        .await
        .unwrap();
    let refused = impatient.send(echo()).await.unwrap_err();
    let ClientError::Remote(remote) = &refused else {
        panic!("expected the agent's refusal, got {refused}");
    };
    assert_eq!(remote.reason(), Some("RESOURCE_EXHAUSTED"), "{remote}");
}

/// An agent whose JSON-RPC endpoint answers 503 to the first `failures` requests, then a task
/// to `GetTask` (and 503 to anything else); the requests it saw are counted.
async fn flaky_agent(failures: usize) -> (String, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let rpc = move |axum::Json(request): axum::Json<Value>| {
        let counter = Arc::clone(&counter);
        async move {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            if n < failures || request["method"] != "GetTask" {
                return axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response();
            }
            let task = json!({"id": request["params"]["id"], "contextId": "c",
                "status": {"state": "TASK_STATE_WORKING"}});
            axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": task}))
                .into_response()
        }
    };
    (fake_agent("Flaky", axum::routing::post(rpc)).await, seen)
}

/// An agent that refuses the first `SendMessage` for its rate (429, `Retry-After: 1`) and
/// completes the others; the `Idempotency-Key` of every request it saw is kept.
async fn busy_once_agent() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    let keys = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&keys);
    let rpc = move |headers: axum::http::HeaderMap, axum::Json(request): axum::Json<Value>| {
        let seen = Arc::clone(&seen);
        async move {
            let key = headers
                .get("idempotency-key")
                .map(|k| k.to_str().unwrap().to_owned());
            let first = {
                let mut seen = seen.lock().unwrap();
                seen.push(key.unwrap_or_default());
                seen.len() == 1
            };
            if first {
                let headers = [("retry-after", "1")];
                return (axum::http::StatusCode::TOO_MANY_REQUESTS, headers).into_response();
            }
            let task = json!({"id": "t", "contextId": "c",
                "status": {"state": "TASK_STATE_COMPLETED"}});
            axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"task": task}}))
                .into_response()
        }
    };
    (fake_agent("Busy", axum::routing::post(rpc)).await, keys)
}

/// Serves `rpc` as the JSON-RPC endpoint of an agent named `name` on an ephemeral port, with
/// its card; the agent's base URL.
async fn fake_agent(name: &str, rpc: axum::routing::MethodRouter) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = json!({"name": name, "supportedInterfaces": [
        {"url": format!("{base}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]});
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || async move { axum::Json(card) }),
        )
        .route("/", rpc);
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn each_send_carries_a_fresh_idempotency_key_that_its_retries_repeat() {
    let (base, keys) = busy_once_agent().await;
    let client = A2aClient::connect(&base).await.unwrap();
    client.send(Message::user_text("one")).await.unwrap();
    client.send(Message::user_text("two")).await.unwrap();
    let keys = keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 3, "refused once, then two sends: {keys:?}");
    assert!(keys.iter().all(|k| k.len() == 36), "a UUID each: {keys:?}");
    assert_eq!(keys[0], keys[1], "the retry repeats its request's key");
    assert_ne!(keys[1], keys[2], "the next request has a key of its own");
}

#[tokio::test]
async fn a_read_is_retried_through_brief_unavailability_and_a_send_is_not() {
    let (base, seen) = flaky_agent(2).await;
    let policy = RetryPolicy {
        initial_backoff: std::time::Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    let client = A2aClient::builder(&base)
        .retry(policy)
        .connect()
        .await
        .unwrap();
    let read = client.get_task("t1", None).await.unwrap();
    assert_eq!(read.id, "t1");
    assert_eq!(read.status.state, TaskState::Working);
    assert_eq!(
        seen.load(Ordering::SeqCst),
        3,
        "two failures, then the answer"
    );

    let error = client.send(Message::user_text("x")).await.unwrap_err();
    assert!(
        matches!(error, ClientError::Http { status: 503, .. }),
        "{error}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 4, "a send is made once");
}

#[tokio::test]
async fn a_stream_cut_mid_task_is_renewed_over_every_binding_and_version() {
    let (proxy, base) = delegation::tracer_behind_a_proxy().await;
    for (binding, version) in &EVERY_INTERFACE {
        let client = client_over(&base, binding, version).await;
        let stream = client
            .send_streaming(call("drip", json!({"chunks": 8, "millis": 30})))
            .await
            .unwrap();
        let events = read_through_a_cut(stream, &proxy, 3).await;
        assert_completed(&events);
        let StreamEvent::Task(first) = &events[0] else {
            panic!("the stream starts with the task: {events:?}");
        };
        let settled = client.get_task(&first.id, None).await.unwrap();
        let expected = artifacts_of(&[StreamEvent::Task(Box::new(settled))]);
        assert_eq!(
            artifacts_of(&events),
            expected,
            "{binding} {version}: {events:#?}"
        );
    }
}
