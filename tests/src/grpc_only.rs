//! An agent as a client that speaks only gRPC sees it: a card of its own, served on loopback,
//! that lists the agent's gRPC interface alone (the 0.3 fields naming its HTTP endpoints
//! dropped); every call then goes to the agent itself over gRPC.

use a2a_runtime::axum::{self, Json, Router, routing};
use serde_json::Value;

/// The base URL of a card for the agent at `agent_base` naming only its gRPC interface. Every
/// other path is 404, as a card host's is.
pub async fn card_of(agent_base: &str) -> String {
    let url = format!(
        "{}/.well-known/agent-card.json",
        agent_base.trim_end_matches('/')
    );
    let mut card: Value = crate::get(&url)
        .await
        .and_then(reqwest::Response::error_for_status)
        .expect("the agent serves its card")
        .json()
        .await
        .expect("the card is JSON");
    let fields = card.as_object_mut().expect("a card is an object");
    for legacy in [
        "url",
        "preferredTransport",
        "additionalInterfaces",
        "protocolVersion",
    ] {
        fields.remove(legacy);
    }
    let interfaces = fields
        .get_mut("supportedInterfaces")
        .and_then(Value::as_array_mut)
        .expect("a 1.0 card lists its interfaces");
    interfaces.retain(|i| i["protocolBinding"] == "GRPC");
    assert_eq!(interfaces.len(), 1, "the agent serves gRPC: {card}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let app = Router::new().route(
        "/.well-known/agent-card.json",
        routing::get(move || {
            let card = card.clone();
            async move { Json(card) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}
