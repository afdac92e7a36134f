//! `Idempotency-Key` on every binding: a repeat gets the task the first request created, a
//! different request under the same key is refused naming the key, and a key on one binding
//! is the same key on another.

use serde_json::{Value, json};

use super::lab;
use a2a_tests::TestServer;

fn send_body(method: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
        "message": {"messageId": format!("keyed-{text}"), "role": "ROLE_USER",
            "parts": [{"text": text}], "metadata": {"skill": "echo"}}}})
}

/// POSTs `body` to `url` with `key` and the other `headers`; the status and the JSON body.
async fn post(
    server: &TestServer,
    url: &str,
    body: &Value,
    key: &str,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let mut request = server
        .http
        .post(url)
        .header("content-type", "application/json")
        .header("idempotency-key", key);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A JSON-RPC 1.0 send of `text` under `key`: the response.
async fn rpc_send(server: &TestServer, text: &str, key: &str) -> Value {
    let body = send_body("SendMessage", text);
    post(server, &server.base, &body, key, &[("a2a-version", "1.0")])
        .await
        .1
}

#[tokio::test]
async fn a_repeat_under_a_key_gets_the_first_task_on_every_binding_and_another_request_is_refused()
{
    let server = lab().await;
    let first = rpc_send(&server, "one", "k-rpc").await;
    let id = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    let again = rpc_send(&server, "one", "k-rpc").await;
    assert_eq!(again["result"]["task"]["id"], id.as_str(), "{again}");
    let state = &again["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_COMPLETED", "{again}");
    let other = rpc_send(&server, "two", "k-rpc").await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let message = other["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Idempotency-Key") && message.contains("k-rpc"),
        "{other}"
    );
    over_rest(&server, &id).await;
    over_v0_3(&server).await;
    // A malformed key is refused naming the header.
    let bad = rpc_send(&server, "x", "two words").await;
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(message.contains("Idempotency-Key"), "{bad}");
    // Two keys on one request: which was meant is unknowable, so it is refused, not keyed by
    // the first.
    let twice = [("idempotency-key", "k-second"), ("a2a-version", "1.0")];
    let body = send_body("SendMessage", "three");
    let (status, refused) = post(&server, &server.base, &body, "k-first", &twice).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (200, &json!(-32602)),
        "{refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Idempotency-Key") && message.contains("more than once"),
        "{refused}"
    );
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    let total = &listed["result"]["totalSize"];
    assert_eq!(total, 2, "one task per key: {listed}");
}

/// The key `k-rpc` over HTTP+JSON is the same key, naming task `id`; another request is 422.
async fn over_rest(server: &TestServer, id: &str) {
    let v1 = [("a2a-version", "1.0")];
    let rest = format!("{}message:send", server.base);
    let params = |text: &str| send_body("SendMessage", text)["params"].clone();
    let (status, same) = post(server, &rest, &params("one"), "k-rpc", &v1).await;
    assert_eq!(
        (status, same["task"]["id"].as_str()),
        (200, Some(id)),
        "{same}"
    );
    let (status, refused) = post(server, &rest, &params("two"), "k-rpc", &v1).await;
    assert_eq!(status, 422, "{refused}");
    let reason = &refused["error"]["details"][0]["reason"];
    assert_eq!(reason, "IDEMPOTENCY_KEY_REUSED", "{refused}");
}

/// JSON-RPC 0.3 (no A2A-Version header): a repeat gets its task, another request is refused.
async fn over_v0_3(server: &TestServer) {
    let legacy = |text: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": format!("legacy-{text}"), "role": "user",
                "parts": [{"kind": "text", "text": text}], "metadata": {"skill": "echo"}}}})
    };
    let first = post(server, &server.base, &legacy("three"), "k-03", &[])
        .await
        .1;
    let legacy_id = first["result"]["id"].as_str().unwrap().to_owned();
    let again = post(server, &server.base, &legacy("three"), "k-03", &[])
        .await
        .1;
    assert_eq!(again["result"]["id"], legacy_id.as_str(), "{again}");
    let other = post(server, &server.base, &legacy("four"), "k-03", &[])
        .await
        .1;
    assert_eq!(other["error"]["code"], -32602, "{other}");
}

#[tokio::test]
async fn a_streaming_repeat_follows_the_task_the_key_created_and_a_keyed_cancel_repeats_cleanly() {
    let server = lab().await;
    let v1 = [("a2a-version", "1.0")];
    let wait = |id: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
            "message": {"messageId": format!("wait-{id}"), "role": "ROLE_USER",
                "parts": [{"data": {"millis": 60000}}], "metadata": {"skill": "wait"}},
            "configuration": {"returnImmediately": true}}})
    };
    let first = post(&server, &server.base, &wait("a"), "k-wait", &v1)
        .await
        .1;
    let id = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    // The same request as a stream: the same task, followed.
    let mut streaming = wait("a");
    streaming["method"] = json!("SendStreamingMessage");
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("idempotency-key", "k-wait")
        .body(streaming.to_string())
        .send()
        .await
        .unwrap();
    let mut events = a2a_tests::sse::SseStream::new(response);
    let snapshot = events.next_result().await.unwrap();
    assert_eq!(snapshot["task"]["id"], id.as_str(), "{snapshot}");
    let cancel = json!({"jsonrpc": "2.0", "id": 2, "method": "CancelTask", "params": {"id": id}});
    let canceled = post(&server, &server.base, &cancel, "k-cancel", &v1)
        .await
        .1;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let repeated = post(&server, &server.base, &cancel, "k-cancel", &v1)
        .await
        .1;
    assert_eq!(
        repeated["result"]["id"],
        id.as_str(),
        "a repeated cancel answers the task: {repeated}"
    );
    let fresh = post(&server, &server.base, &cancel, "k-cancel-2", &v1)
        .await
        .1;
    assert_eq!(
        fresh["error"]["code"], -32002,
        "a new cancel is refused: {fresh}"
    );
}

#[tokio::test]
async fn an_mcp_task_call_under_a_key_in_meta_runs_once() {
    let server = lab().await;
    let call = |text: &str| {
        json!({"name": "echo", "arguments": {"text": text},
            "_meta": {"a2a-runtime/idempotencyKey": "k-mcp"}})
    };
    let caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let (_, first) = server
        .mcp_modern("tools/call", call("hello"), caps.clone())
        .await;
    let (_, again) = server
        .mcp_modern("tools/call", call("hello"), caps.clone())
        .await;
    assert_eq!(first, again, "a repeat answers what the first call did");
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    assert_eq!(listed["result"]["totalSize"], 1, "one task: {listed}");
    let (_, other) = server.mcp_modern("tools/call", call("bye"), caps).await;
    assert!(
        other.contains("-32602") && other.contains("idempotencyKey"),
        "{other}"
    );
    // A plain call keeps no record a repeat could find: refused, naming the key, never run as
    // if the key guarded it.
    let (_, plain) = server
        .mcp_modern("tools/call", call("plain"), json!({}))
        .await;
    assert!(
        plain.contains("-32602") && plain.contains("task-augmented calls only"),
        "{plain}"
    );
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    assert_eq!(
        listed["result"]["totalSize"], 1,
        "nothing more ran: {listed}"
    );
}

/// A gRPC `SendMessage` of `text` to the echo skill under `key`, on a connection of its own:
/// the task's id, or `None` when the call ended without a message (an error status).
async fn grpc_send(address: &str, text: &str, key: &str) -> Option<String> {
    use a2a_runtime_types::protocol::a2a::grpc::json::to_struct;
    use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
    use a2a_tests::h2_raw::{RawH2, kind};
    use prost::Message as _;
    let skill = json!({"skill": "echo"});
    let request = wire::SendMessageRequest {
        message: Some(wire::Message {
            message_id: format!("grpc-{text}"),
            role: wire::Role::User as i32,
            parts: vec![wire::Part {
                content: Some(wire::PartContent::Text(text.to_owned())),
                ..Default::default()
            }],
            metadata: skill.as_object().map(to_struct),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut h2 = RawH2::connect(address, &[]).await;
    let path = "/lf.a2a.v1.A2AService/SendMessage";
    h2.grpc_headers_with(1, path, false, &[("idempotency-key", key)])
        .await;
    h2.grpc_message(1, &request.encode_to_vec()).await;
    while let Some(frame) = h2.next(std::time::Duration::from_secs(5)).await {
        if frame.stream != 1 {
            continue;
        }
        if frame.kind == kind::DATA {
            let answer = wire::SendMessageResponse::decode(&frame.payload[5..]).unwrap();
            return match answer.payload {
                Some(wire::SendMessagePayload::Task(task)) => Some(task.id),
                other => panic!("expected a task, got {other:?}"),
            };
        }
        if frame.kind == kind::HEADERS && frame.flags & 1 == 1 {
            return None;
        }
    }
    panic!("the gRPC call was never answered");
}

#[tokio::test]
async fn over_grpc_the_key_is_metadata_and_a_repeat_gets_the_first_task() {
    let server = lab().await;
    let address = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let first = grpc_send(address, "one", "k-grpc").await.expect("a task");
    let again = grpc_send(address, "one", "k-grpc").await;
    assert_eq!(
        again.as_deref(),
        Some(first.as_str()),
        "a repeat gets the first task"
    );
    assert_eq!(
        grpc_send(address, "two", "k-grpc").await,
        None,
        "another request is refused"
    );
    // The key is one across bindings: over JSON-RPC it is found holding the gRPC request.
    let same = rpc_send(&server, "one", "k-grpc").await;
    let code = same["error"]["code"].as_i64();
    assert_eq!(
        code,
        Some(-32602),
        "JSON-RPC's message differs (its id): refused: {same}"
    );
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    assert_eq!(listed["result"]["totalSize"], 1, "one task: {listed}");
}
