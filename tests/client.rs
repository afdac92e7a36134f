//! `a2a_runtime::client` against a served agent over real sockets, over each of its five
//! interfaces (JSON-RPC and HTTP+JSON, A2A 1.0 and 0.3; gRPC, 1.0): card resolution (with the
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

#[path = "client/delegation.rs"]
mod delegation;

#[path = "client/resilience.rs"]
mod resilience;

#[path = "client/grpc.rs"]
mod grpc;

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
            {"url": "127.0.0.1:9", "protocolBinding": "GRPC", "protocolVersion": "0.3"}
        ]
    });
    let host = card_host("/.well-known/agent-card.json", card).await;
    let error = A2aClient::connect(&host).await.unwrap_err();
    assert!(matches!(error, ClientError::NoInterface { .. }), "{error}");
    assert!(
        error.to_string().contains("GRPC 0.3 127.0.0.1:9"),
        "{error}"
    );
}

/// Every interface this SDK serves, as `(binding, version)`.
const EVERY_INTERFACE: [(Binding, &str); 5] = [
    (Binding::JsonRpc, "1.0"),
    (Binding::HttpJson, "1.0"),
    (Binding::Grpc, "1.0"),
    (Binding::JsonRpc, "0.3"),
    (Binding::HttpJson, "0.3"),
];

/// Pages of one task, and the canceled task `canceled_id` among the canceled ones, over
/// `binding` in `version` (JSON-RPC 0.3 has no listing method).
async fn lists_pages_and_states(
    client: &A2aClient,
    canceled_id: &str,
    binding: &Binding,
    version: &str,
) {
    let over = format!("{binding} {version}");
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
                listed.tasks.iter().any(|t| t.id == canceled_id),
                "{over}: {listed:?}"
            );
        }
        // JSON-RPC 0.3 has no listing method.
        Err(ClientError::Unsupported { .. })
            if *binding == Binding::JsonRpc && version == "0.3" => {}
        Err(error) => panic!("{over}: {error}"),
    }
}

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
        // Deleting is idempotent (A2A 1.0.1 §3.1.10, the TCK's PUSH-DEL-002): the config
        // just deleted, or one never made, deletes again; an unknown task is still not found.
        let id = read.id.as_deref().unwrap();
        for config in [id, "never-made"] {
            let again = client.delete_push_config(&long.id, config).await;
            assert!(again.is_ok(), "{over}: deleting {config}: {again:?}");
        }
        let unknown = client.delete_push_config("no-such-task", id).await;
        let Err(ClientError::Remote(remote)) = &unknown else {
            panic!("{over}: expected the agent's not-found, got {unknown:?}");
        };
        assert_eq!(remote.code, -32001, "{over}: {remote}");
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

        lists_pages_and_states(&client, &long.id, binding, version).await;
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
