//! The request/response examples of the early A2A draft (`shared/seeds/a2a-draft.md`, "Sample
//! Methods and JSON Responses") replayed against the hello agent. Request bodies are the
//! document's; where it elides the JSON-RPC envelope (`jsonrpc`, `id`) or a file's content
//! (`<base64-encoded-content>`), those are filled in. Answers are checked for the draft's shape.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::sse::SseItem;
use a2a_tests::{TestServer, start};
use hello::Hello;
use serde_json::{Value, json};

const TASK: &str = "de38c76d-d54c-436c-8b9f-4c2703648d64";
const SESSION: &str = "c295ea44-7543-4f78-b524-7a38915ad6e4";
/// `%PDF-1.4` and a PNG signature, standing in for the document's placeholders.
const PDF: &str = "JVBERi0xLjQK";
const PNG: &str = "iVBORw0KGgo=";

/// Posts a draft request as the draft's clients did: no `A2A-Version` header.
async fn call(server: &TestServer, request: Value) -> Value {
    let (status, response) = server.post_raw(request.to_string(), None).await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(response["jsonrpc"], "2.0");
    response
}

fn send_joke() -> Value {
    json!({
      "jsonrpc": "2.0",
      "id": 1,
      "method": "tasks/send",
      "params": {
        "id": TASK,
        "message": {"role": "user", "parts": [{"type": "text", "text": "tell me a joke"}]},
        "metadata": {}
      }
    })
}

/// The draft's task shape: the client's id, a session, lower-case states, `type` parts, no 1.0
/// or 0.3 fields.
fn assert_draft_task(task: &Value, state: &str) {
    assert_eq!(task["id"], TASK, "{task}");
    assert!(task["sessionId"].is_string(), "{task}");
    assert_eq!(task["status"]["state"], state, "{task}");
    assert!(
        task.get("contextId").is_none() && task.get("kind").is_none(),
        "{task}"
    );
    assert!(task["metadata"].is_object(), "{task}");
}

#[tokio::test]
async fn send_a_task_answers_the_completed_task_under_the_client_id() {
    let server = start(Hello.server()).await;
    let response = call(&server, send_joke()).await;
    assert_eq!(response["id"], 1);
    let task = &response["result"];
    assert_draft_task(task, "completed");
    let part = &task["artifacts"][0]["parts"][0];
    assert_eq!(part["type"], "text");
    assert_eq!(part["text"], "Hello, tell me a joke!");
    assert_eq!(task["artifacts"][0]["index"], 0);
    assert!(
        task.get("history").is_none(),
        "no history unless asked: {task}"
    );
}

#[tokio::test]
async fn get_a_task_returns_artifacts_and_the_requested_history() {
    let server = start(Hello.server()).await;
    call(&server, send_joke()).await;
    let response = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 1,
          "method": "tasks/get",
          "params": {"id": TASK, "historyLength": 10, "metadata": {}}
        }),
    )
    .await;
    let task = &response["result"];
    assert_draft_task(task, "completed");
    assert_eq!(task["history"][0]["role"], "user");
    assert_eq!(
        task["history"][0]["parts"],
        json!([{"type": "text", "text": "tell me a joke"}])
    );
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "Hello, tell me a joke!"
    );
}

#[tokio::test]
async fn cancel_a_finished_task_is_task_not_cancelable() {
    let server = start(Hello.server()).await;
    call(&server, send_joke()).await;
    let response = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 1,
          "method": "tasks/cancel",
          "params": {"id": TASK, "metadata": {}}
        }),
    )
    .await;
    assert_eq!(response["error"]["code"], -32002, "{response}");
    let unknown = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/cancel", "params": {"id": "nope"}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
}

#[tokio::test]
async fn push_notification_methods_say_they_are_not_supported_when_push_is_off() {
    let mut push = a2a_runtime::server::PushOptions::default();
    push.enabled = false;
    let server = start(Hello.server().push(push)).await;
    let set = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 1,
          "method": "tasks/pushNotification/set",
          "params": {
            "id": TASK,
            "pushNotificationConfig": {
              "url": "https://example.com/callback",
              "authentication": {"schemes": ["jwt"]}
            }
          }
        }),
    )
    .await;
    assert_eq!(set["error"]["code"], -32003, "{set}");
    let get = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/pushNotification/get", "params": {"id": TASK}}),
    )
    .await;
    assert_eq!(get["error"]["code"], -32003, "{get}");
    assert!(
        get["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not supported")
    );
}

#[tokio::test]
async fn a_second_send_on_a_finished_task_reopens_it_in_the_same_session() {
    let server = start(Hello.server()).await;
    let first = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 1,
          "method": "tasks/send",
          "params": {
            "id": TASK,
            "message": {"role": "user", "parts": [{"type": "text", "text": "request a new phone for me"}]},
            "metadata": {}
          }
        }),
    )
    .await;
    assert_draft_task(&first["result"], "completed");
    let session = first["result"]["sessionId"].clone();
    let second = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 2,
          "method": "tasks/send",
          "params": {
            "id": TASK,
            "sessionId": session,
            "message": {"role": "user", "parts": [{"type": "text", "text": "Android"}]},
            "metadata": {}
          }
        }),
    )
    .await;
    assert_eq!(second["id"], 2);
    let task = &second["result"];
    assert_draft_task(task, "completed");
    assert_eq!(task["sessionId"], session);
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Hello, Android!");
    // A session the task does not belong to is refused, naming the field.
    let wrong = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/send", "params": {"id": TASK,
          "sessionId": SESSION, "message": {"role": "user", "parts": [{"type": "text", "text": "x"}]}}}),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sessionId")
    );
}

#[tokio::test]
async fn send_subscribe_streams_status_and_artifact_events_ending_final() {
    let server = start(Hello.server()).await;
    let request = json!({
      "jsonrpc": "2.0",
      "id": 1,
      "method": "tasks/sendSubscribe",
      "params": {
        "id": TASK,
        "sessionId": SESSION,
        "message": {"role": "user", "parts": [{"type": "text", "text": "write a long paper describing the attached pictures"}]},
        "metadata": {}
      }
    });
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .unwrap();
    let mut stream = a2a_tests::sse::SseStream::new(response);
    let mut events = Vec::new();
    while let Some(item) = stream.next_item().await {
        if let SseItem::Data(data) = item {
            assert_eq!(data["id"], 1);
            events.push(data["result"].clone());
        }
    }
    assert!(events.iter().all(|e| e["id"] == TASK), "{events:?}");
    assert_eq!(events[0]["status"]["state"], "submitted");
    assert_eq!(events[0]["final"], false);
    let artifact = events.iter().find(|e| e.get("artifact").is_some()).unwrap();
    assert_eq!(artifact["artifact"]["index"], 0);
    assert_eq!(artifact["artifact"]["lastChunk"], true);
    assert_eq!(artifact["artifact"]["parts"][0]["type"], "text");
    let last = events.last().unwrap();
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
    assert_eq!(
        events.iter().filter(|e| e.get("status").is_some()).count(),
        3
    );
    // Resubscribing to the finished task is an error, not a stream.
    let resubscribe = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/resubscribe", "params": {"id": TASK, "metadata": {}}}),
    )
    .await;
    assert_eq!(resubscribe["error"]["code"], -32004, "{resubscribe}");
}

#[tokio::test]
async fn files_the_skill_cannot_read_are_incompatible_content_types() {
    let server = start(Hello.server()).await;
    // "Streaming Support" with its picture, and "Non-textual Media" with its PDF.
    for (method, media_type, content) in [
        ("tasks/sendSubscribe", "image/png", PNG),
        ("tasks/send", "application/pdf", PDF),
    ] {
        let response = call(
            &server,
            json!({
              "jsonrpc": "2.0",
              "id": 9,
              "method": method,
              "params": {
                "id": TASK,
                "sessionId": SESSION,
                "message": {
                  "role": "user",
                  "parts": [
                    {"type": "text", "text": "Analyze the attached report and generate high level overview"},
                    {"type": "file", "file": {"mimeType": media_type, "data": content}}
                  ]
                },
                "metadata": {}
              }
            }),
        )
        .await;
        assert_eq!(response["error"]["code"], -32005, "{response}");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(media_type) && message.contains("text/plain"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn structured_output_request_with_part_metadata_completes() {
    let server = start(Hello.server()).await;
    let response = call(
        &server,
        json!({
          "jsonrpc": "2.0",
          "id": 9,
          "method": "tasks/send",
          "params": {
            "id": TASK,
            "sessionId": SESSION,
            "message": {
              "role": "user",
              "parts": [{
                "type": "text",
                "text": "Show me a list of my open IT tickets",
                "metadata": {
                  "mimeType": "application/json",
                  "schema": {"type": "array", "items": {"type": "object", "properties": {
                    "ticketNumber": {"type": "string"}, "description": {"type": "string"}}}}
                }
              }]
            },
            "metadata": {}
          }
        }),
    )
    .await;
    let task = &response["result"];
    assert_draft_task(task, "completed");
    assert_eq!(task["sessionId"], SESSION);
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "Hello, Show me a list of my open IT tickets!"
    );
}

#[tokio::test]
async fn draft_errors_use_the_draft_codes() {
    let server = start(Hello.server()).await;
    let unknown = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": TASK}}),
    )
    .await;
    // Unknown to the alias table, the id is read as one of ours; it is still not found.
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    let bad = call(
        &server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/send", "params": {"id": TASK,
          "message": {"role": "user", "parts": [{"kind": "text", "text": "0.3 shape"}]}}}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("message.parts[0].type")
    );
}
