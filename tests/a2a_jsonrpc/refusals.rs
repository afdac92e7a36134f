//! What the JSON-RPC binding refuses, and how: each malformed or misdirected request gets its
//! specific error, naming what was wrong.

use super::*;

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let server = lab().await;
    let (status, response) = server
        .post_raw("{\"jsonrpc\": \"2.0\", ", Some("1.0"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(error_code(&response), -32700);
    assert_eq!(response["id"], Value::Null);
}

/// `\ud800` is valid JSON text but stands for no character: params holding one cannot be read,
/// and must never be taken as no params (which made `GetTask` miss its id and `ListTasks` drop
/// its filters, answering every task of the caller).
#[tokio::test]
async fn params_with_a_lone_surrogate_are_a_parse_error_never_empty_params() {
    let server = lab().await;
    let task = completed_task(&server).await;
    let id = task["id"].as_str().unwrap();
    for (method, params) in [
        ("GetTask", format!(r#"{{"id": "{id}", "note": "\ud800"}}"#)),
        ("ListTasks", r#"{"contextId": "\ud800"}"#.to_owned()),
        ("CancelTask", format!(r#"{{"id": "{id}\ud800"}}"#)),
        ("SendMessage", r#"{"message": {"messageId": "\udc00", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}"#.to_owned()),
    ] {
        let body = format!(r#"{{"jsonrpc": "2.0", "id": 7, "method": "{method}", "params": {params}}}"#);
        let (status, response) = server.post_raw(body, Some("1.0")).await;
        assert_eq!(status, 200, "{method}");
        assert_eq!(error_code(&response), -32700, "{method}: {response}");
        assert_eq!(response["id"], 7, "{method}: the request's id is answered");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(message.contains("params"), "{method}: {message}");
    }
    // The same over 0.3's methods.
    let legacy = format!(
        r#"{{"jsonrpc": "2.0", "id": 8, "method": "tasks/get", "params": {{"id": "{id}", "x": "\ud800"}}}}"#
    );
    let (_, response) = server.post_raw(legacy, None).await;
    assert_eq!(error_code(&response), -32700, "{response}");
}

#[tokio::test]
async fn wrong_jsonrpc_version_is_invalid_request() {
    let server = lab().await;
    let (_, response) = server
        .post_raw(
            json!({"jsonrpc": "1.0", "id": 7, "method": "GetTask", "params": {}}).to_string(),
            Some("1.0"),
        )
        .await;
    assert_eq!(error_code(&response), -32600);
    assert_eq!(response["id"], 7);
    let (_, batch) = server.post_raw("[]", Some("1.0")).await;
    assert_eq!(error_code(&batch), -32600);
}

#[tokio::test]
async fn missing_version_header_is_accepted_but_an_unsupported_one_is_rejected() {
    let server = lab().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    let (_, without) = server.post_raw(body.clone(), None).await;
    assert!(without.get("result").is_some(), "{without}");
    let (_, patch) = server.post_raw(body.clone(), Some("1.0.2")).await;
    assert!(
        patch.get("result").is_some(),
        "patch versions are ignored: {patch}"
    );
    let (_, future) = server.post_raw(body, Some("9.9")).await;
    assert_eq!(error_code(&future), -32009);
    assert_eq!(reason(&future), "VERSION_NOT_SUPPORTED");
}

#[tokio::test]
async fn strict_servers_reject_a_missing_version_header() {
    let server = start(Lab.server().require_version_header(true)).await;
    let (_, response) = server
        .post_raw(
            json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).to_string(),
            None,
        )
        .await;
    assert_eq!(error_code(&response), -32009);
}

#[tokio::test]
async fn unknown_task_id_is_task_not_found() {
    let server = lab().await;
    let get = server.rpc("GetTask", json!({"id": "no-such-task"})).await;
    assert_eq!(error_code(&get), -32001);
    assert_eq!(
        get["error"]["data"][0]["metadata"]["taskId"],
        "no-such-task"
    );
    let message = json!({"messageId": "m", "taskId": "no-such-task", "role": "ROLE_USER", "parts": [{"text": "x"}]});
    let send = server.rpc("SendMessage", json!({"message": message})).await;
    assert_eq!(error_code(&send), -32001);
    let cancel = server
        .rpc("CancelTask", json!({"id": "no-such-task"}))
        .await;
    assert_eq!(error_code(&cancel), -32001);
    // An empty id names no task: invalid params naming the field, as gRPC answers it
    // (INVALID_ARGUMENT), never a search for the task "".
    for (method, params, field) in [
        ("GetTask", json!({"id": ""}), "id"),
        ("CancelTask", json!({"id": ""}), "id"),
        (
            "GetTaskPushNotificationConfig",
            json!({"taskId": "", "id": "c"}),
            "taskId",
        ),
        (
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": "", "id": "c"}),
            "taskId",
        ),
    ] {
        let refused = server.rpc(method, params).await;
        assert_eq!(error_code(&refused), -32602, "{method}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(field), "{method}: {refused}");
    }
}

#[tokio::test]
async fn context_and_task_id_mismatch_is_rejected() {
    let server = lab().await;
    let task = completed_task(&server).await;
    let message = json!({"messageId": "m", "taskId": task["id"], "contextId": "another", "role": "ROLE_USER", "parts": [{"text": "x"}]});
    let response = server.rpc("SendMessage", json!({"message": message})).await;
    assert_eq!(error_code(&response), -32602);
    assert_eq!(
        response["error"]["data"][1]["fieldViolations"][0]["field"],
        "message.contextId"
    );
}

#[tokio::test]
async fn message_to_a_terminal_task_is_unsupported_operation() {
    let server = lab().await;
    let task = completed_task(&server).await;
    let message = json!({"messageId": "m2", "taskId": task["id"], "role": "ROLE_USER", "parts": [{"text": "again"}]});
    let response = server.rpc("SendMessage", json!({"message": message})).await;
    assert_eq!(error_code(&response), -32004);
    let history = server.rpc("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(
        history["result"]["history"].as_array().unwrap().len(),
        1,
        "rejected message is not recorded"
    );
}

#[tokio::test]
async fn invalid_messages_name_the_field() {
    let server = lab().await;
    let cases = [
        (
            json!({"messageId": "m", "role": "ROLE_USER", "parts": []}),
            "message.parts",
        ),
        (
            json!({"messageId": "m", "role": "user", "parts": [{"text": "x"}]}),
            "message.role",
        ),
        (
            json!({"role": "ROLE_USER", "parts": [{"text": "x"}]}),
            "message.messageId",
        ),
        (
            json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"kind": "text", "text": "x", "data": {}}]}),
            "message.parts[0]",
        ),
        (
            json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}], "metadata": {"skill": "echo"}}),
            "message.role",
        ),
    ];
    for (message, field) in cases {
        let response = server.rpc("SendMessage", json!({"message": message})).await;
        assert_eq!(error_code(&response), -32602, "{response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(field),
            "{field}: {response}"
        );
    }
    let missing = server.rpc("SendMessage", json!({})).await;
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("message"),
        "{missing}"
    );
}

#[tokio::test]
async fn oversized_body_is_413() {
    let server = lab().await;
    let text = "x".repeat(128 * 1024);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]}}});
    let (status, response) = server.post_raw(body.to_string(), Some("1.0")).await;
    assert_eq!(status, 413);
    assert_eq!(reason(&response), "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let server = lab().await;
    let response = server.rpc("FrobnicateTask", json!({})).await;
    assert_eq!(error_code(&response), -32601);
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("FrobnicateTask")
    );
}
