//! `a2a_runtime::client` against a served agent over real sockets: card resolution (with the
//! legacy path and ETag revalidation), interface choice, blocking and non-blocking sends,
//! streams, subscriptions, get, cancel, and the agent's errors with their `ErrorInfo`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::axum;
use a2a_runtime::client::{A2aClient, Binding, ClientError, SendOptions, SendResult, StreamEvent};
use a2a_runtime::futures::StreamExt;
use a2a_runtime::{Agent, Message, PartContent, TaskState};
use a2a_tests::lab::Lab;
use a2a_tests::start;
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

fn task(sent: SendResult) -> a2a_runtime::Task {
    match sent {
        SendResult::Task(task) => *task,
        SendResult::Message(message) => panic!("expected a task, got message {message:?}"),
    }
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
    let task = task(
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
    let started = task(
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
    let events: Vec<StreamEvent> = client
        .send_streaming(call("wait", json!({"millis": 50})))
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert!(
        matches!(events.first(), Some(StreamEvent::Task(_))),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, StreamEvent::Artifact(_))),
        "{events:?}"
    );
    let Some(StreamEvent::Status(last)) = events.last() else {
        panic!("the stream ends with a status: {events:?}");
    };
    assert_eq!(last.status.state, TaskState::Completed, "{events:?}");
}

#[tokio::test]
async fn a_subscription_follows_a_running_task_to_its_end() {
    let server = start(Lab.server()).await;
    let client = A2aClient::connect(&server.base).await.unwrap();
    let options = SendOptions {
        return_immediately: true,
        history_length: None,
    };
    let started = task(
        client
            .send_with(call("wait", json!({"millis": 300})), options)
            .await
            .unwrap(),
    );
    let events: Vec<StreamEvent> = client
        .subscribe(&started.id)
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let Some(StreamEvent::Task(first)) = events.first() else {
        panic!("a subscription starts with the task: {events:?}");
    };
    assert_eq!(first.id, started.id);
    let Some(StreamEvent::Status(last)) = events.last() else {
        panic!("the stream ends with a status: {events:?}");
    };
    assert_eq!(last.status.state, TaskState::Completed, "{events:?}");
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
    let task = task(
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
        "name": "Legacy",
        "url": "http://127.0.0.1:9/",
        "protocolVersion": "0.2.5"
    });
    let host = card_host("/.well-known/agent-card.json", card).await;
    let error = A2aClient::connect(&host).await.unwrap_err();
    assert!(matches!(error, ClientError::NoInterface { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("JSONRPC 0.2.5 http://127.0.0.1:9/"),
        "{error}"
    );
}

#[tokio::test]
async fn no_card_at_either_path_is_a_card_error() {
    let host = card_host("/elsewhere", json!({})).await;
    let error = A2aClient::connect(&host).await.unwrap_err();
    assert!(matches!(error, ClientError::Card { .. }), "{error}");
    assert!(error.to_string().contains("agent.json"), "{error}");
}
