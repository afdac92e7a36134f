//! `a2a_runtime::client` against a served agent over real sockets, over each of its four
//! interfaces (JSON-RPC and HTTP+JSON, A2A 1.0 and 0.3): card resolution (with the
//! legacy path and ETag revalidation), interface choice, blocking and non-blocking sends,
//! streams, subscriptions, get, cancel, listing page by page, push config CRUD, the extended
//! card behind an API key, retries (a rate refusal's `Retry-After`, a flaky agent's 503s for
//! reads only), streams renewed after a cut connection with no gap and no duplicate, trace
//! context carried by calls made inside a skill, delegation between two agents (progress relayed,
//! cancellation propagated), A2A 0.3 and 0.2 cards, streams that end where a task asks, and the
//! agent's errors with their `ErrorInfo` and code.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::auth::{ApiKeys, JwtConfig};
use a2a_runtime::axum;
use a2a_runtime::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_runtime::axum::response::IntoResponse as _;
use a2a_runtime::client::{
    A2aClient, Binding, ClientError, ListTasks, PushNotificationConfig, RetryPolicy, SendOptions,
    SendResult, StreamEvent,
};
use a2a_runtime::{
    Message, TaskState, model::PartContent, model::PushAuthentication, server::PushOptions,
};
use a2a_tests::client_kit::{
    all_events, artifacts_of, assert_completed, client_over, list_each_once, no_wait,
    push_round_trip, read_through_a_cut, task_of,
};
use a2a_tests::lab::Lab;
use a2a_tests::start;
use a2a_tests::vault::Vault;
use serde_json::{Value, json};

/// A message calling `skill` of the lab agent with `input`.
fn call(skill: &str, input: Value) -> Message {
    let mut message = Message::user(vec![a2a_runtime::Part::data(input)]);
    message.metadata = Some(
        json!({ "skill": skill })
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    message
}

#[tokio::test]
async fn a_client_reads_the_card_and_calls_the_v1_json_rpc_interface() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let card = client.card();
    assert_eq!(card.name, "Lab");
    assert!(card.skills.iter().any(|s| s.id == "echo"), "{card:?}");
    let chosen = card.preferred_interface().unwrap();
    assert_eq!(chosen.binding, Binding::JsonRpc);
    assert!(chosen.is_v1(), "{chosen}");
}

#[tokio::test]
async fn a_blocking_send_returns_the_settled_task_with_its_artifact() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let task = task_of(
        client
            .send(call("echo", json!({"text": "hi"})))
            .await
            .unwrap(),
    );
    assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
    let artifact = &task.artifacts[0];
    assert_eq!(artifact.parts[0].content, PartContent::Text("hi".into()));
    assert!(!task.history.is_empty(), "{task:?}");
}

#[tokio::test]
async fn a_task_sent_without_waiting_can_be_read_and_canceled() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let options = SendOptions {
        return_immediately: true,
        history_length: Some(0),
    };
    let started = task_of(
        client
            .send_with(call("wait", json!({"millis": 30_000})), options)
            .await
            .unwrap(),
    );
    assert!(!started.status.state.is_terminal(), "{started:?}");
    let read = client.get_task(&started.id, Some(1)).await.unwrap();
    assert_eq!(read.id, started.id);
    assert!(read.history.len() <= 1, "{read:?}");
    let canceled = client.cancel_task(&started.id).await.unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled, "{canceled:?}");
}

#[tokio::test]
async fn the_agents_error_comes_with_its_code_and_reason() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let error = client.get_task("no-such-task", None).await.unwrap_err();
    let ClientError::Remote(remote) = &error else {
        panic!("expected the agent's error, got {error}");
    };
    assert_eq!(remote.code, -32001, "{remote}");
    assert_eq!(remote.reason(), Some("TASK_NOT_FOUND"), "{remote}");
    assert!(error.to_string().contains("TASK_NOT_FOUND"), "{error}");
}

#[tokio::test]
async fn a_streaming_send_yields_the_task_then_its_updates_until_it_completes() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let events = all_events(
        client
            .send_streaming(call("wait", json!({"millis": 50})))
            .await
            .unwrap(),
    )
    .await;
    assert!(
        matches!(events.first(), Some(StreamEvent::Task(_))),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, StreamEvent::Artifact(_))),
        "{events:?}"
    );
    assert_completed(&events);
}

#[tokio::test]
async fn a_subscription_follows_a_running_task_to_its_end() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let options = no_wait();
    let started = task_of(
        client
            .send_with(call("wait", json!({"millis": 300})), options)
            .await
            .unwrap(),
    );
    let events = all_events(client.subscribe(&started.id).await.unwrap()).await;
    let Some(StreamEvent::Task(first)) = events.first() else {
        panic!("a subscription starts with the task: {events:?}");
    };
    assert_eq!(first.id, started.id);
    assert_completed(&events);
}

#[tokio::test]
async fn a_stream_ends_when_its_task_asks_and_the_answer_streams_the_rest() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let asked = all_events(client.send_streaming(call("nap", json!({}))).await.unwrap()).await;
    let Some(StreamEvent::Status(waiting)) = asked.last() else {
        panic!("the stream ends with the question: {asked:?}");
    };
    assert_eq!(waiting.status.state, TaskState::InputRequired, "{asked:?}");
    let mut answer = Message::user(vec![a2a_runtime::Part::text("10")]);
    answer.task_id = Some(waiting.task_id.clone());
    answer.context_id = Some(waiting.context_id.clone());
    let rest = all_events(client.send_streaming(answer).await.unwrap()).await;
    assert_completed(&rest);
}

#[tokio::test]
async fn subscribing_to_an_unknown_task_is_refused_before_any_event() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let Err(ClientError::Remote(remote)) = client.subscribe("no-such-task").await else {
        panic!("expected the agent's error");
    };
    assert_eq!(remote.reason(), Some("TASK_NOT_FOUND"), "{remote}");
}

#[tokio::test]
async fn an_unchanged_card_is_revalidated_with_its_etag() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    assert!(!client.refresh_card().await.unwrap());
    assert_eq!(client.card().name, "Lab");
}

/// Serves `card` at `path` only (every other path is 404), on an ephemeral port.
async fn card_host(path: &'static str, card: Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        path,
        axum::routing::get(move || {
            let card = card.clone();
            async move { axum::Json(card) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_card_published_only_at_the_legacy_path_is_found() {
    let server = start(Lab.server()).await;
    let card = json!({
        "name": "Elsewhere",
        "supportedInterfaces": [
            {"url": server.base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]
    });
    let host = card_host("/.well-known/agent.json", card).await;
    let client = A2aClient::connect(&host).await.unwrap();
    assert_eq!(client.card().name, "Elsewhere");
    // Calls go to the interface the card names, not to the card's host.
    let task = task_of(
        client
            .send(call("echo", json!({"text": "x"})))
            .await
            .unwrap(),
    );
    assert_eq!(task.status.state, TaskState::Completed);
}

#[tokio::test]
async fn a_card_without_an_interface_the_client_speaks_is_refused_naming_what_it_offers() {
    let card = json!({
        "name": "Remote",
        "supportedInterfaces": [
            {"url": "127.0.0.1:9", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ]
    });
    let host = card_host("/.well-known/agent-card.json", card).await;
    let error = A2aClient::connect(&host).await.unwrap_err();
    assert!(matches!(error, ClientError::NoInterface { .. }), "{error}");
    assert!(
        error.to_string().contains("GRPC 1.0 127.0.0.1:9"),
        "{error}"
    );
}

/// Every interface this SDK serves, as `(binding, version)`.
const EVERY_INTERFACE: [(Binding, &str); 4] = [
    (Binding::JsonRpc, "1.0"),
    (Binding::HttpJson, "1.0"),
    (Binding::JsonRpc, "0.3"),
    (Binding::HttpJson, "0.3"),
];

#[tokio::test]
async fn every_operation_works_over_every_binding_and_version_the_sdk_serves() {
    let mut push = PushOptions::default();
    push.allow_private = true;
    let server = start(Lab.server().push(push)).await;
    for (binding, version) in &EVERY_INTERFACE {
        let client = client_over(&server.base, binding, version).await;
        let over = format!("{binding} {version}");
        let done = task_of(
            client
                .send(call("echo", json!({"text": over})))
                .await
                .unwrap(),
        );
        assert_eq!(done.status.state, TaskState::Completed, "{over}: {done:?}");
        let echoed = &done.artifacts[0].parts[0].content;
        assert_eq!(echoed, &PartContent::Text(over.clone()), "{over}");

        let events = all_events(
            client
                .send_streaming(call("wait", json!({"millis": 30})))
                .await
                .unwrap(),
        )
        .await;
        assert_completed(&events);

        let working = task_of(
            client
                .send_with(call("wait", json!({"millis": 200})), no_wait())
                .await
                .unwrap(),
        );
        let read = client.get_task(&working.id, Some(1)).await.unwrap();
        assert_eq!(read.id, working.id, "{over}");
        let followed = all_events(client.subscribe(&working.id).await.unwrap()).await;
        assert!(
            matches!(followed.first(), Some(StreamEvent::Task(_))),
            "{over}: {followed:?}"
        );
        assert_completed(&followed);

        let long = task_of(
            client
                .send_with(call("wait", json!({"millis": 30_000})), no_wait())
                .await
                .unwrap(),
        );
        let mut hook = PushNotificationConfig::new(&long.id, "http://127.0.0.1:9/hook");
        hook.token = Some("t0k3n".into());
        let read = push_round_trip(&client, &hook).await;
        assert_eq!(read.token.as_deref(), Some("t0k3n"), "{over}");
        let canceled = client.cancel_task(&long.id).await.unwrap();
        assert_eq!(canceled.status.state, TaskState::Canceled, "{over}");

        let missing = client.get_task("no-such-task", None).await.unwrap_err();
        let ClientError::Remote(remote) = &missing else {
            panic!("{over}: expected the agent's error, got {missing}");
        };
        assert_eq!(remote.code, -32001, "{over}: {remote}");
        let not_cancelable = client.cancel_task(&done.id).await.unwrap_err();
        assert!(
            matches!(&not_cancelable, ClientError::Remote(r) if r.code == -32002),
            "{over}: {not_cancelable}"
        );

        let query = ListTasks {
            page_size: Some(1),
            ..ListTasks::default()
        };
        match client.list_tasks_page(&query, None).await {
            Ok(page) => {
                assert_eq!(page.tasks.len(), 1, "{over}");
                assert!(page.next_page_token.is_some(), "{over}");
                let canceled = ListTasks {
                    state: Some(TaskState::Canceled),
                    ..ListTasks::default()
                };
                let listed = client.list_tasks_page(&canceled, None).await.unwrap();
                assert!(
                    listed.tasks.iter().any(|t| t.id == long.id),
                    "{over}: {listed:?}"
                );
            }
            // JSON-RPC 0.3 has no listing method.
            Err(ClientError::Unsupported { .. })
                if *binding == Binding::JsonRpc && *version == "0.3" => {}
            Err(error) => panic!("{over}: {error}"),
        }
    }
}

#[tokio::test]
async fn a_stream_cut_mid_task_is_renewed_over_every_binding_and_version() {
    let (proxy, base) = tracer_behind_a_proxy().await;
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

/// A client of `server` that can only speak A2A 0.3 with it: the card it reads offers nothing
/// else.
async fn v0_3_client(server: &a2a_tests::TestServer, version: &str) -> A2aClient {
    let card = json!({
        "name": "Lab as 0.3", "url": server.base, "protocolVersion": version,
        "preferredTransport": "JSONRPC"
    });
    let host = card_host("/.well-known/agent-card.json", card).await;
    A2aClient::connect(&host).await.unwrap()
}

#[tokio::test]
async fn the_same_client_speaks_a2a_0_3_to_an_agent_whose_card_offers_only_that() {
    // Each operation over JSON-RPC 0.3 is in `every_operation_works_over_every_binding…`; here,
    // cards of 0.3 and 0.2 shapes lead the client there.
    let server = start(Lab.server()).await;
    for version in ["0.3.0", "0.2.5"] {
        let client = v0_3_client(&server, version).await;
        assert_eq!(client.interface().protocol_version, version);
        let done = task_of(
            client
                .send(call("echo", json!({"text": "old"})))
                .await
                .unwrap(),
        );
        assert_eq!(done.status.state, TaskState::Completed, "{done:?}");
        assert_eq!(
            done.artifacts[0].parts[0].content,
            PartContent::Text("old".into())
        );
        let unsupported = client
            .list_tasks_page(&ListTasks::default(), None)
            .await
            .unwrap_err();
        assert!(
            matches!(unsupported, ClientError::Unsupported { .. }),
            "{unsupported}"
        );
        let missing = client.get_task("no-such-task", None).await.unwrap_err();
        let ClientError::Remote(remote) = &missing else {
            panic!("expected the agent's error, got {missing}");
        };
        assert_eq!(remote.code, -32001, "{remote}");
    }
}

#[tokio::test]
async fn no_card_at_either_path_is_a_card_error() {
    let host = card_host("/elsewhere", json!({})).await;
    let error = A2aClient::connect(&host).await.unwrap_err();
    assert!(matches!(error, ClientError::Card { .. }), "{error}");
    assert!(error.to_string().contains("agent.json"), "{error}");
}

#[tokio::test]
async fn listing_follows_the_agents_pages_to_the_last() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    for i in 0..5 {
        client
            .send(call("echo", json!({"text": format!("t{i}")})))
            .await
            .unwrap();
    }
    let query = ListTasks {
        page_size: Some(2),
        include_artifacts: true,
        ..ListTasks::default()
    };
    let first = client.list_tasks_page(&query, None).await.unwrap();
    assert_eq!(first.tasks.len(), 2);
    assert_eq!(first.total_size, Some(5));
    assert!(first.next_page_token.is_some());
    let all = list_each_once(&client, &query, 5).await;
    assert!(all.iter().all(|t| !t.artifacts.is_empty()), "{all:?}");
    let completed = ListTasks {
        state: Some(TaskState::Canceled),
        ..ListTasks::default()
    };
    let none = client.list_tasks_page(&completed, None).await.unwrap();
    assert!(none.tasks.is_empty(), "{none:?}");
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted() {
    let mut push = PushOptions::default();
    push.allow_private = true;
    let server = start(Lab.server().push(push)).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let options = no_wait();
    let started = task_of(
        client
            .send_with(call("wait", json!({"millis": 30_000})), options)
            .await
            .unwrap(),
    );
    let mut config = PushNotificationConfig::new(&started.id, "http://127.0.0.1:9/hook");
    config.token = Some("t0k3n".into());
    config.authentication = Some(PushAuthentication {
        schemes: vec!["Bearer".into()],
        credentials: Some("s3cret".into()),
    });
    let read = push_round_trip(&client, &config).await;
    assert_eq!(read.token.as_deref(), Some("t0k3n"));
    let credentials = read.authentication.and_then(|a| a.credentials);
    assert_ne!(credentials.as_deref(), Some("s3cret"), "never echoed");
    let id = read.id.unwrap();
    let gone = client.get_push_config(&started.id, &id).await.unwrap_err();
    assert!(matches!(gone, ClientError::Remote(_)), "{gone}");
    client.cancel_task(&started.id).await.unwrap();
}

const ALICE_KEY: &str = "alice-key-0123456789";

#[tokio::test]
async fn an_api_key_opens_the_extended_card_and_its_absence_is_the_agents_refusal() {
    let keys = ApiKeys::parse(&format!("alice={ALICE_KEY}")).unwrap();
    // The vault declares a JWT scheme too, so something must verify its tokens.
    let jwt = JwtConfig::hs256(a2a_tests::tokens::SECRET);
    let server = start(Vault.server().api_keys(keys).jwt(jwt)).await;
    let alice = A2aClient::builder(&server.base)
        .api_key("X-API-Key", ALICE_KEY)
        .connect()
        .await
        .unwrap();
    assert!(alice.card().capabilities.extended_agent_card);
    assert!(!alice.card().skills.iter().any(|s| s.id == "audit"));
    let extended = alice.extended_card().await.unwrap();
    assert!(
        extended.skills.iter().any(|s| s.id == "audit"),
        "{extended:?}"
    );

    let anonymous = A2aClient::connect(&server.base).await.unwrap();
    let refused = anonymous.extended_card().await.unwrap_err();
    let ClientError::Remote(remote) = &refused else {
        panic!("expected the agent's refusal, got {refused}");
    };
    assert_eq!(remote.reason(), Some("UNAUTHENTICATED"), "{remote}");
    assert_eq!(remote.code, -32041, "{remote}");
}

#[tokio::test]
async fn the_cards_this_sdk_serves_pass_validation() {
    let keys = ApiKeys::parse(&format!("alice={ALICE_KEY}")).unwrap();
    let jwt = JwtConfig::hs256(a2a_tests::tokens::SECRET);
    let servers = [
        start(Lab.server()).await,
        start(Vault.server().api_keys(keys).jwt(jwt)).await,
    ];
    for server in servers {
        let client = A2aClient::connect(&server.base).await.unwrap();
        let findings = client.card().validate();
        assert!(findings.is_empty(), "{}: {findings:#?}", client.card().name);
    }
}

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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(AtomicUsize::new(0));
    let card = json!({
        "name": "Flaky",
        "supportedInterfaces": [
            {"url": format!("{base}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]
    });
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
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = card.clone();
                async move { axum::Json(card) }
            }),
        )
        .route("/", axum::routing::post(rpc));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, seen)
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

/// An agent that calls agents.
#[agent(name = "Tracer")]
#[derive(Debug, Default)]
pub struct Tracer;

/// Say which trace this call runs in, as `trace-id/parent-id`.
#[skill(agent = Tracer)]
pub async fn whereami(ctx: TaskContext) -> String {
    ctx.trace_context().map_or_else(
        || "untraced".to_owned(),
        |trace| format!("{}/{}", trace.trace_id(), trace.parent_id()),
    )
}

/// Ask the agent at `url` which trace its call runs in.
#[skill(agent = Tracer)]
pub async fn relay(
    /// The agent to ask.
    url: String,
) -> Result<String, SkillError> {
    let failed = |e: ClientError| SkillError::new(e.to_string());
    let client = A2aClient::connect(&url).await.map_err(failed)?;
    let answer = client
        .send(call("whereami", json!({})))
        .await
        .map_err(failed)?;
    let SendResult::Task(task) = answer else {
        return Err(SkillError::new("expected a task"));
    };
    match &task.artifacts[0].parts[0].content {
        PartContent::Text(text) => Ok(text.clone()),
        other => Err(SkillError::new(format!("expected text, got {other:?}"))),
    }
}

/// The text a relay through `server` answers, its request carrying `traceparent` if given.
async fn relayed(server: &a2a_tests::TestServer, traceparent: Option<&str>) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "m", "role": "ROLE_USER", "metadata": {"skill": "relay"},
                    "parts": [{"data": {"url": server.base}}]}}});
    let mut request = server
        .http
        .post(&server.base)
        .header("A2A-Version", "1.0")
        .json(&body);
    if let Some(traceparent) = traceparent {
        request = request.header("traceparent", traceparent);
    }
    let answer: Value = request.send().await.unwrap().json().await.unwrap();
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    task["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_call_made_inside_a_traced_skill_continues_the_trace_with_a_span_of_its_own() {
    let server = start(Tracer.server()).await;
    let outer = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let inner = relayed(&server, Some(outer)).await;
    let (trace, parent) = inner.split_once('/').unwrap();
    assert_eq!(trace, "4bf92f3577b34da6a3ce929d0e0e4736", "{inner}");
    assert_ne!(
        parent, "00f067aa0ba902b7",
        "the outgoing call is a span of its own"
    );
    assert_eq!(relayed(&server, None).await, "untraced");
}

/// Append `chunks` chunks to one artifact, `millis` milliseconds apart.
#[skill(agent = Tracer)]
pub async fn drip(
    ctx: TaskContext,
    /// How many chunks.
    chunks: u64,
    /// The pause before each.
    millis: u64,
) -> String {
    let mut writer = ctx.artifact_writer("drops");
    for i in 0..chunks {
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
        writer.append(Part::text(format!("c{i}")));
    }
    writer.finish();
    "dripped".into()
}

/// The tracer agent behind a cuttable proxy; its card names the proxy, so every call of a
/// client goes through it. The proxy and the base URL.
async fn tracer_behind_a_proxy() -> (a2a_tests::proxy::CuttableProxy, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = a2a_tests::proxy::CuttableProxy::start(listener.local_addr().unwrap()).await;
    let base = format!("http://{}/", proxy.addr);
    let server = Tracer.server().public_url(base.clone());
    tokio::spawn(async move { server.serve_on(listener).await });
    (proxy, base)
}

/// Call skill `skill` of the agent at `url` with `input`, and answer the text of its first
/// artifact.
#[skill(agent = Tracer)]
pub async fn delegate(
    ctx: TaskContext,
    /// The agent to call.
    url: String,
    /// Its skill.
    skill: String,
    /// The skill's input.
    input: Value,
) -> Result<String, SkillError> {
    let failed = |e: ClientError| SkillError::new(e.to_string());
    let agent = A2aClient::connect(&url).await.map_err(failed)?;
    let SendResult::Task(task) = ctx
        .call_agent(&agent, call(&skill, input))
        .await
        .map_err(failed)?
    else {
        return Err(SkillError::new("expected a task"));
    };
    match &task.artifacts[0].parts[0].content {
        PartContent::Text(text) => Ok(text.clone()),
        other => Err(SkillError::new(format!("expected text, got {other:?}"))),
    }
}

/// Polls `check` every 20 ms for up to 5 s.
async fn eventually<T>(mut check: impl AsyncFnMut() -> Option<T>) -> T {
    for _ in 0..250 {
        if let Some(found) = check().await {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("not within 5 s");
}

#[tokio::test]
async fn canceling_a_task_that_delegated_cancels_the_remote_task() {
    let lab = start(Lab.server()).await;
    let outer = start(Tracer.server()).await;
    let client = A2aClient::connect(&outer.base).await.unwrap();
    let options = no_wait();
    let input = json!({"url": lab.base, "skill": "wait", "input": {"millis": 30_000}});
    let delegating = task_of(
        client
            .send_with(call("delegate", input), options)
            .await
            .unwrap(),
    );
    // The delegated task runs on the lab agent, for the same (loopback) caller.
    let lab_client = A2aClient::connect(&lab.base).await.unwrap();
    let working = ListTasks {
        state: Some(TaskState::Working),
        ..ListTasks::default()
    };
    let remote = eventually(async || {
        let page = lab_client.list_tasks_page(&working, None).await.unwrap();
        page.tasks.into_iter().next()
    })
    .await;
    client.cancel_task(&delegating.id).await.unwrap();
    let settled = eventually(async || {
        let task = lab_client.get_task(&remote.id, None).await.unwrap();
        task.status.state.is_terminal().then_some(task)
    })
    .await;
    assert_eq!(settled.status.state, TaskState::Canceled, "{settled:?}");
}

#[tokio::test]
async fn a_delegated_tasks_progress_and_result_reach_the_caller() {
    let lab = start(Lab.server()).await;
    let outer = start(Tracer.server()).await;
    let client = A2aClient::connect(&outer.base).await.unwrap();
    let input = json!({"url": lab.base, "skill": "tick", "input": {"times": 3}});
    let events = all_events(
        client
            .send_streaming(call("delegate", input))
            .await
            .unwrap(),
    )
    .await;
    let relayed = events.iter().any(|e| {
        matches!(e, StreamEvent::Status(u)
            if u.metadata.as_ref().and_then(|m| m.get("progress")) == Some(&json!(3)))
    });
    assert!(relayed, "the remote progress is relayed: {events:#?}");
    assert_completed(&events);
    let StreamEvent::Task(first) = &events[0] else {
        panic!("the stream starts with the task");
    };
    let done = client.get_task(&first.id, None).await.unwrap();
    let texts: Vec<&PartContent> = done
        .artifacts
        .iter()
        .flat_map(|a| a.parts.iter().map(|p| &p.content))
        .collect();
    assert!(
        texts.contains(&&PartContent::Text("ticked 3 times".into())),
        "{done:?}"
    );
}

#[tokio::test]
async fn a_stream_outlives_the_call_timeout_and_a_slow_call_does_not() {
    let (proxy, base) = tracer_behind_a_proxy().await;
    let client = A2aClient::builder(&base)
        .timeout(std::time::Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .connect()
        .await
        .unwrap();
    // Four chunks 200 ms apart: the stream lasts well past the 300 ms call timeout.
    let events = all_events(
        client
            .send_streaming(call("drip", json!({"chunks": 4, "millis": 200})))
            .await
            .unwrap(),
    )
    .await;
    assert_completed(&events);
    assert_eq!(proxy.connections(), 1, "one connection, never renewed");
    // A call that takes longer than the timeout is abandoned.
    let slow = client
        .send(call("drip", json!({"chunks": 2, "millis": 400})))
        .await
        .unwrap_err();
    assert!(
        matches!(&slow, ClientError::Transport { source, .. } if source.is_timeout()),
        "{slow}"
    );
}

#[tokio::test]
async fn a_huge_card_a_huge_answer_and_a_silent_stream_end_in_clear_errors() {
    use futures::StreamExt as _;
    let base = a2a_tests::hostile::start().await;
    // A hang guard: each must fail long before the agent could send its gigabyte.
    let guard = std::time::Duration::from_secs(20);
    for card in ["huge", "declared"] {
        let connect = A2aClient::connect(format!("{base}/{card}"));
        let error = tokio::time::timeout(guard, connect)
            .await
            .unwrap()
            .unwrap_err();
        assert!(matches!(error, ClientError::Card { .. }), "{error}");
        assert!(
            error.to_string().contains("larger than 16777216 bytes"),
            "{error}"
        );
    }
    let client = A2aClient::builder(&base)
        .max_response_bytes(1024 * 1024)
        .stream_idle_timeout(std::time::Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let sent = tokio::time::timeout(guard, client.send(call("echo", json!({"text": "x"}))));
    let error = sent.await.unwrap().unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::TooLarge {
                limit: 1_048_576,
                ..
            }
        ),
        "{error}"
    );
    let mut events = client
        .send_streaming(call("echo", json!({"text": "x"})))
        .await
        .unwrap();
    let last = tokio::time::timeout(guard, events.next()).await.unwrap();
    let error = last.unwrap().unwrap_err();
    assert!(matches!(error, ClientError::StreamIdle { .. }), "{error}");
    assert!(
        error.to_string().contains("sent nothing for 300ms"),
        "{error}"
    );
}
