//! The same scenarios against every A2A dialect one server speaks: 1.0 JSON-RPC, 1.0 HTTP+JSON,
//! 0.3 JSON-RPC, 0.3 HTTP+JSON (0.3 proto JSON under `/v1/`) and the early draft (`tasks/send`).
//! Each dialect turns the scenario's steps into its own wire shapes and reads the answers back
//! into one normalized form, so every dialect is held to the same behaviour.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use a2a_tests::lab::Lab;
use a2a_tests::sse::{SseItem, SseStream};
use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

#[path = "dialects/dialect.rs"]
mod dialect;
#[path = "dialects/keys.rs"]
mod keys;
#[path = "dialects/rest.rs"]
mod rest;

use dialect::{ALL, Dialect, Event, next_id, normalize_state};

async fn lab() -> TestServer {
    start(Lab.server().cancel_grace(Duration::from_millis(200))).await
}

fn text(text: &str) -> Value {
    json!({ "text": text })
}

#[tokio::test]
async fn blocking_send_completes_with_the_skill_output_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let task = dialect
            .send(&server, "echo", &[text("hi")], None, true)
            .await
            .unwrap();
        assert_eq!(task.state, "completed", "{dialect:?}: {}", task.raw);
        assert_eq!(task.outputs, vec![json!("hi")], "{dialect:?}");
        let sum = dialect
            .send(
                &server,
                "add",
                &[json!({"data": {"a": 2, "b": 3}})],
                None,
                true,
            )
            .await
            .unwrap();
        assert_eq!(
            sum.outputs,
            vec![json!({"sum": 5})],
            "{dialect:?}: {}",
            sum.raw
        );
    }
}

#[tokio::test]
async fn get_honours_history_length_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let task = dialect
            .send(&server, "echo", &[text("hi")], None, true)
            .await
            .unwrap();
        let none = dialect.get(&server, &task.id, Some(0)).await.unwrap();
        assert_eq!(none.history, 0, "{dialect:?}: {}", none.raw);
        let one = dialect.get(&server, &task.id, Some(1)).await.unwrap();
        assert_eq!(one.history, 1, "{dialect:?}: {}", one.raw);
        assert_eq!(one.outputs, vec![json!("hi")], "{dialect:?}");
    }
}

#[tokio::test]
async fn non_blocking_send_then_cancel_then_cancel_again_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let id = if dialect == Dialect::Draft {
            // The draft always blocks: start the task on a stream and take its client id.
            let (mut stream, id) = dialect
                .stream(
                    &server,
                    "wait",
                    &[json!({"data": {"millis": 60_000}})],
                    None,
                )
                .await;
            let first = stream.next_item().await.unwrap();
            assert!(matches!(first, SseItem::Data(_)), "{first:?}");
            id
        } else {
            let task = dialect
                .send(
                    &server,
                    "wait",
                    &[json!({"data": {"millis": 60_000}})],
                    None,
                    false,
                )
                .await
                .unwrap();
            assert!(
                task.state == "submitted" || task.state == "working",
                "{dialect:?}: {}",
                task.raw
            );
            task.id
        };
        let canceled = dialect.cancel(&server, &id).await.unwrap();
        assert_eq!(canceled.state, "canceled", "{dialect:?}: {}", canceled.raw);
        let again = dialect.cancel(&server, &id).await.unwrap_err();
        dialect.assert_failure(&again, "TASK_NOT_CANCELABLE");
        assert_eq!(
            dialect.get(&server, &id, None).await.unwrap().state,
            "canceled"
        );
    }
}

#[tokio::test]
async fn streams_send_the_task_then_updates_and_end_at_completion_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let (mut stream, _) = dialect.stream(&server, "echo", &[text("hi")], None).await;
        let events = dialect.events(&mut stream).await;
        let first = if dialect == Dialect::Draft {
            "status"
        } else {
            "task"
        };
        let expected: Vec<Event> = vec![
            (first.into(), "submitted".into()),
            ("status".into(), "working".into()),
            ("artifact".into(), String::new()),
            ("status".into(), "completed".into()),
        ];
        assert_eq!(events, expected, "{dialect:?}");
    }
}

/// The id of the task a stream's first event (`data`) is about; the draft's is the client's own.
fn streamed_task_id(dialect: Dialect, data: &Value, client_id: String) -> String {
    let id = match dialect {
        Dialect::Draft => return client_id,
        Dialect::V1Rest | Dialect::V03Rest => &data["task"]["id"],
        Dialect::V1JsonRpc => &data["result"]["task"]["id"],
        Dialect::V03JsonRpc => &data["result"]["id"],
    };
    id.as_str().unwrap().to_owned()
}

#[tokio::test]
async fn resubscribing_to_a_running_task_starts_with_its_state_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let (mut first, client_id) = dialect
            .stream(
                &server,
                "wait",
                &[json!({"data": {"millis": 60_000}})],
                None,
            )
            .await;
        let Some(SseItem::Data(data)) = first.next_item().await else {
            panic!("no first event")
        };
        let id = streamed_task_id(dialect, &data, client_id);
        dialect.cancel(&server, &id).await.unwrap();
        // A canceled task has ended: nothing to subscribe to.
        let (status, body) = if dialect.is_rest() {
            let prefix = if dialect == Dialect::V03Rest {
                "v1/"
            } else {
                ""
            };
            let response = server
                .http
                .post(format!("{}{prefix}tasks/{id}:subscribe", server.base))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        } else {
            let method = match dialect {
                Dialect::V1JsonRpc => "SubscribeToTask",
                _ => "tasks/resubscribe",
            };
            let result = dialect.rpc(&server, method, json!({ "id": id })).await;
            let failure = result.unwrap_err();
            dialect.assert_failure(&failure, "UNSUPPORTED_OPERATION");
            continue;
        };
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["error"]["details"][0]["reason"],
            "UNSUPPORTED_OPERATION"
        );
    }
    // A running task: the resubscription starts with its current state.
    for dialect in ALL {
        let (mut first, client_id) = dialect
            .stream(&server, "wait", &[json!({"data": {"millis": 200}})], None)
            .await;
        let Some(SseItem::Data(data)) = first.next_item().await else {
            panic!("no first event")
        };
        let id = streamed_task_id(dialect, &data, client_id);
        let (mut again, _) = dialect.stream(&server, "", &[], Some(&id)).await;
        let events = dialect.events(&mut again).await;
        let first_kind = if dialect == Dialect::Draft {
            "status"
        } else {
            "task"
        };
        assert_eq!(events[0].0, first_kind, "{dialect:?}: {events:?}");
        assert_eq!(
            events.last().unwrap(),
            &("status".to_owned(), "completed".to_owned()),
            "{dialect:?}"
        );
    }
}

#[tokio::test]
async fn a_question_is_answered_on_its_task_in_every_dialect() {
    let server = start(Talker::default().server()).await;
    for dialect in ALL {
        let asked = dialect
            .send(&server, "double", &[text("go")], None, true)
            .await
            .unwrap();
        assert_eq!(asked.state, "input-required", "{dialect:?}: {}", asked.raw);
        let answered = dialect
            .send(&server, "", &[text("21")], Some(&asked.id), true)
            .await
            .unwrap();
        assert_eq!(answered.state, "completed", "{dialect:?}: {}", answered.raw);
        assert_eq!(answered.outputs, vec![json!(42)], "{dialect:?}");
    }
}

#[tokio::test]
async fn unknown_tasks_are_not_found_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let failure = dialect
            .get(&server, "no-such-task", None)
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "TASK_NOT_FOUND");
        let failure = dialect.cancel(&server, "no-such-task").await.unwrap_err();
        dialect.assert_failure(&failure, "TASK_NOT_FOUND");
    }
}

#[tokio::test]
async fn a_part_the_skill_cannot_read_is_content_type_not_supported_in_every_dialect() {
    let server = lab().await;
    let pdf = json!({"raw": "JVBERi0xLjQK", "mediaType": "application/pdf"});
    for dialect in ALL {
        let failure = dialect
            .send(
                &server,
                "echo",
                &[text("read this"), pdf.clone()],
                None,
                true,
            )
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "CONTENT_TYPE_NOT_SUPPORTED");
        assert!(
            failure.message.contains("application/pdf") && failure.message.contains("text/plain"),
            "{dialect:?}: names the media type and the accepted ones: {}",
            failure.message
        );
        // A structured skill sent only a file: the file is what is wrong, not a missing input.
        let failure = dialect
            .send(&server, "add", std::slice::from_ref(&pdf), None, true)
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "CONTENT_TYPE_NOT_SUPPORTED");
    }
}

#[tokio::test]
async fn bad_input_is_invalid_params_naming_the_field_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let failure = dialect
            .send(
                &server,
                "add",
                &[json!({"data": {"a": "two", "b": 3}})],
                None,
                true,
            )
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "INVALID_PARAMS");
        assert!(
            failure.message.contains(".a"),
            "{dialect:?}: {}",
            failure.message
        );
    }
}

#[tokio::test]
async fn list_pages_newest_first_in_the_dialects_that_have_it() {
    let server = lab().await;
    let context = next_id("ctx");
    for i in 0..3 {
        let message = json!({"messageId": next_id("m"), "contextId": context, "role": "ROLE_USER",
            "parts": [{"text": format!("n{i}")}], "metadata": {"skill": "echo"}});
        server
            .rpc("SendMessage", json!({ "message": message }))
            .await;
    }
    for dialect in [Dialect::V1JsonRpc, Dialect::V1Rest, Dialect::V03Rest] {
        let mut token = String::new();
        let mut seen = 0;
        loop {
            let page = if dialect == Dialect::V1JsonRpc {
                let params = json!({"contextId": context, "pageSize": 2, "pageToken": token});
                dialect.rpc(&server, "ListTasks", params).await.unwrap()
            } else {
                let path = format!("tasks?contextId={context}&pageSize=2&pageToken={token}");
                dialect
                    .rest(&server, reqwest::Method::GET, &path, None)
                    .await
                    .unwrap()
            };
            assert_eq!(page["totalSize"], 3, "{dialect:?}: {page}");
            seen += page["tasks"].as_array().unwrap().len();
            token = page["nextPageToken"].as_str().unwrap().to_owned();
            if token.is_empty() {
                break;
            }
        }
        assert_eq!(seen, 3, "{dialect:?}");
        let bad = if dialect == Dialect::V1JsonRpc {
            dialect
                .rpc(&server, "ListTasks", json!({"pageSize": 500}))
                .await
        } else {
            dialect
                .rest(&server, reqwest::Method::GET, "tasks?pageSize=500", None)
                .await
        };
        let failure = bad.unwrap_err();
        dialect.assert_failure(&failure, "INVALID_PARAMS");
        assert!(failure.message.contains("pageSize"), "{}", failure.message);
    }
}

#[tokio::test]
async fn the_version_header_selects_the_dialect_and_wrong_ones_are_named() {
    let server = lab().await;
    let slash = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}});
    let (_, response) = server.post_raw(slash.to_string(), Some("1.0")).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("GetTask")
    );
    let v1 = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let (_, response) = server.post_raw(v1.to_string(), Some("0.3")).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    let (_, response) = server.post_raw(v1.to_string(), Some("2.0")).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    assert_eq!(
        response["error"]["data"][0]["metadata"]["requestedVersion"],
        "2.0"
    );
    // Without a header a 1.0 method is served as 1.0 unless the server insists on the header.
    let (_, response) = server.post_raw(v1.to_string(), None).await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
    let strict = start(Lab.server().require_version_header(true)).await;
    let (_, response) = strict.post_raw(v1.to_string(), None).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    assert_eq!(
        response["error"]["data"][0]["metadata"]["requestedVersion"],
        "0.3"
    );
}

#[tokio::test]
async fn the_card_lists_every_binding_and_carries_the_0_3_fields() {
    let server = lab().await;
    let card = server.card().await;
    let interfaces: Vec<(String, String)> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["protocolBinding"].as_str().unwrap().to_owned(),
                i["protocolVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        interfaces,
        [
            ("JSONRPC", "1.0"),
            ("HTTP+JSON", "1.0"),
            ("GRPC", "1.0"),
            ("JSONRPC", "0.3"),
            ("HTTP+JSON", "0.3")
        ]
        .map(|(b, v)| (b.to_owned(), v.to_owned()))
    );
    // gRPC names the server's address, not a URL: its paths name the service.
    let address = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/');
    assert_eq!(card["supportedInterfaces"][2]["url"], address);
    assert_eq!(card["url"], server.base);
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    let echo = &card["skills"][3];
    assert_eq!(echo["id"], "echo");
    assert_eq!(
        echo["inputModes"],
        json!(["text/plain", "application/json"])
    );
    assert_eq!(echo["outputModes"], json!(["text/plain"]));
    let add = &card["skills"][0];
    assert_eq!(add["inputModes"], json!(["application/json"]));
    assert_eq!(add["outputModes"], json!(["application/json"]));
}
