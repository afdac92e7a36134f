//! Extensions declared with `#[agent(extensions(..))]`: they are on the card, a request that
//! does not activate a `required` one is refused on every binding and version (-32008 in 1.0),
//! and the response names the activated ones in `A2A-Extensions`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::prelude::*;
use a2a_tests::start;
use serde_json::{Value, json};

const SIGNED: &str = "https://example.com/ext/signed-receipts/v1";
const TRACE: &str = "urn:example:trace:v2";

/// Keeps receipts; callers must speak the signed-receipts extension.
#[agent(
    name = "Receipts",
    extensions(
        extension(
            uri = "https://example.com/ext/signed-receipts/v1",
            description = "Every receipt is signed; clients verify the signature.",
            required = true,
            params = r#"{"algorithms": ["ed25519"]}"#
        ),
        extension(uri = "urn:example:trace:v2"),
    )
)]
#[derive(Debug, Default)]
pub struct Receipts;

/// File a receipt.
#[skill(agent = Receipts)]
pub async fn file(
    /// What was bought.
    item: String,
) -> String {
    format!("filed {item}")
}

fn send_body(method: &str) -> Value {
    let message = if method == "message/send" {
        json!({"kind": "message", "messageId": "m", "role": "user",
               "parts": [{"kind": "text", "text": "tea"}]})
    } else {
        json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "tea"}]})
    };
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": message}})
}

#[tokio::test]
async fn declared_extensions_are_on_the_card_with_their_params() {
    let server = start(Receipts.server()).await;
    let card = server.card().await;
    let extensions = card["capabilities"]["extensions"].as_array().unwrap();
    let signed = extensions.iter().find(|e| e["uri"] == SIGNED).unwrap();
    assert_eq!(signed["required"], true, "{signed}");
    assert_eq!(
        signed["params"],
        json!({"algorithms": ["ed25519"]}),
        "{signed}"
    );
    assert_eq!(
        signed["description"],
        "Every receipt is signed; clients verify the signature."
    );
    let trace = extensions.iter().find(|e| e["uri"] == TRACE).unwrap();
    assert_eq!(trace, &json!({"uri": TRACE, "required": false}));
}

#[tokio::test]
async fn a_jsonrpc_request_without_the_required_extension_is_refused_with_32008() {
    let server = start(Receipts.server()).await;
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", TRACE)
        .body(send_body("SendMessage").to_string())
        .send()
        .await
        .unwrap();
    let refused: Value = response.json().await.unwrap();
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(refused["error"]["code"], -32008, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(SIGNED) && message.contains("A2A-Extensions"),
        "{message}"
    );
    let info = &refused["error"]["data"][0];
    assert_eq!(info["reason"], "EXTENSION_SUPPORT_REQUIRED", "{refused}");
    assert_eq!(info["metadata"]["extension"], SIGNED, "{refused}");
    // Nothing ran: the caller has no task.
    let listed = server.rpc("ListTasks", json!({})).await;
    assert_eq!(listed["error"]["code"], -32008, "{listed}");
}

#[tokio::test]
async fn activating_the_required_extension_serves_the_request_and_echoes_what_was_activated() {
    let server = start(Receipts.server()).await;
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", format!("urn:example:unknown, {SIGNED}"))
        .header("A2A-Extensions", TRACE)
        .body(send_body("SendMessage").to_string())
        .send()
        .await
        .unwrap();
    let echoed = response
        .headers()
        .get("a2a-extensions")
        .map(|v| v.to_str().unwrap().to_owned());
    let answered: Value = response.json().await.unwrap();
    assert_eq!(
        answered["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answered}"
    );
    assert_eq!(
        echoed.as_deref(),
        Some(format!("{SIGNED}, {TRACE}").as_str()),
        "the supported ones, in card order; the unknown one is not claimed"
    );
}

#[tokio::test]
async fn a_0_3_client_activates_it_with_x_a2a_extensions_and_is_refused_without() {
    let server = start(Receipts.server()).await;
    let (_, refused) = server
        .post_raw(send_body("message/send").to_string(), None)
        .await;
    // 0.3 has no -32008: the refusal is an invalid request naming the extension.
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(SIGNED),
        "{refused}"
    );
    let answered: Value = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("X-A2A-Extensions", SIGNED)
        .body(send_body("message/send").to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
}

#[tokio::test]
async fn http_json_requests_need_it_too_and_the_public_card_does_not() {
    let server = start(Receipts.server()).await;
    let url = format!("{}message:send", server.base);
    let body =
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "tea"}]}});
    let refused = server
        .http
        .post(&url)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    let status: Value = refused.json().await.unwrap();
    assert_eq!(status["error"]["status"], "FAILED_PRECONDITION", "{status}");
    assert_eq!(
        status["error"]["details"][0]["reason"], "EXTENSION_SUPPORT_REQUIRED",
        "{status}"
    );
    let served = server
        .http
        .post(&url)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", SIGNED)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        served.headers().get("a2a-extensions").unwrap(),
        SIGNED,
        "echoed"
    );
    let task: Value = served.json().await.unwrap();
    assert_eq!(
        task["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{task}"
    );
    // Discovery needs no extension: a client reads the card to learn it must activate one.
    let card = server
        .http
        .get(format!("{}.well-known/agent-card.json", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
}

#[tokio::test]
async fn mcp_clients_are_not_asked_for_a2a_extensions() {
    let server = start(Receipts.server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "file", "arguments": {"item": "tea"}}),
        )
        .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "filed tea",
        "{called}"
    );
}
