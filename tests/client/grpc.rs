//! The client's gRPC binding where it differs from the others: when the card makes the client
//! choose it, refusing a card that lacks it when told to use it only, and its reads bounded in
//! size and silence.

use std::time::Duration;

use a2a_runtime::client::{A2aClient, Binding, ClientError};
use a2a_runtime::model::TaskState;
use a2a_tests::client_kit::{all_events, assert_completed, task_of};
use a2a_tests::lab::Lab;
use a2a_tests::start;
use serde_json::json;

use super::{call, card_host};

/// A card naming the lab at `base` through `interfaces` (`(binding, url)`, 1.0), in order.
fn card_of(interfaces: &[(&str, &str)]) -> serde_json::Value {
    let interfaces: Vec<_> = interfaces
        .iter()
        .map(|(binding, url)| json!({"url": url, "protocolBinding": binding, "protocolVersion": "1.0"}))
        .collect();
    json!({"name": "Lab elsewhere", "supportedInterfaces": interfaces})
}

#[tokio::test]
async fn grpc_is_chosen_when_the_card_lists_it_first_or_only() {
    let server = start(Lab.server()).await;
    let address = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let first = card_of(&[("GRPC", address), ("JSONRPC", &server.base)]);
    let only = card_of(&[("GRPC", address)]);
    let last = card_of(&[("JSONRPC", &server.base), ("GRPC", address)]);
    for (card, expected) in [
        (first, Binding::Grpc),
        (only, Binding::Grpc),
        (last, Binding::JsonRpc),
    ] {
        let host = card_host("/.well-known/agent-card.json", card).await;
        let client = A2aClient::connect(&host).await.unwrap();
        assert_eq!(client.interface().binding, expected);
        let done = task_of(
            client
                .send(call("echo", json!({"text": "hi"})))
                .await
                .unwrap(),
        );
        assert_eq!(done.status.state, TaskState::Completed, "{expected}");
    }
}

#[tokio::test]
async fn a_client_told_to_use_grpc_only_refuses_a_card_without_it_naming_what_it_offers() {
    let server = start(Lab.server()).await;
    let card = card_of(&[("JSONRPC", &server.base)]);
    let host = card_host("/.well-known/agent-card.json", card).await;
    let refused = A2aClient::builder(&host)
        .only(Binding::Grpc)
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ClientError::BindingNotOffered { binding, .. } if binding == "GRPC"),
        "{refused}"
    );
    let text = refused.to_string();
    assert!(
        text.contains(&format!("JSONRPC 1.0 {}", server.base)),
        "{text}"
    );
    // The lab's own card offers it.
    let client = A2aClient::builder(&server.base)
        .only(Binding::Grpc)
        .connect()
        .await
        .unwrap();
    assert_eq!(client.interface().binding, Binding::Grpc);
}

#[tokio::test]
async fn a_grpc_answer_past_the_clients_bound_is_refused_before_it_is_read() {
    let server = start(Lab.server()).await;
    let client = A2aClient::builder(&server.base)
        .only(Binding::Grpc)
        .max_response_bytes(64 * 1024)
        .connect()
        .await
        .unwrap();
    let long = "x".repeat(100 * 1024);
    let refused = client
        .send(call("echo", json!({ "text": long })))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, ClientError::TooLarge { limit: 65_536, .. }),
        "{refused}"
    );
    // A smaller answer on the same client is read.
    let done = task_of(
        client
            .send(call("echo", json!({"text": "hi"})))
            .await
            .unwrap(),
    );
    assert_eq!(done.status.state, TaskState::Completed);
}

#[tokio::test]
async fn a_grpc_stream_silent_past_the_idle_bound_is_renewed_until_its_task_settles() {
    let server = start(Lab.server()).await;
    let client = A2aClient::builder(&server.base)
        .only(Binding::Grpc)
        .stream_idle_timeout(Duration::from_millis(400))
        .connect()
        .await
        .unwrap();
    let stream = client
        .send_streaming(call("wait", json!({"millis": 1_500})))
        .await
        .unwrap();
    let events = tokio::time::timeout(Duration::from_secs(30), all_events(stream))
        .await
        .unwrap();
    assert_completed(&events);
}

#[tokio::test]
async fn a_grpc_agent_that_cannot_be_reached_is_a_transport_error_naming_its_address() {
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    let host = card_host(
        "/.well-known/agent-card.json",
        card_of(&[("GRPC", "127.0.0.1:9")]),
    )
    .await;
    let client = A2aClient::builder(&host)
        .retry(a2a_runtime::client::RetryPolicy::none())
        .connect()
        .await
        .unwrap();
    let failed = tokio::time::timeout(Duration::from_secs(30), client.get_task("t", None))
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&failed, ClientError::GrpcTransport { address, timed_out: false, .. } if address == "127.0.0.1:9"),
        "{failed}"
    );
}
