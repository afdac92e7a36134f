//! A2A v1.0 JSON-RPC over a real socket: every method and every error path of the foundation.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::server::PushOptions;
use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

#[path = "a2a_jsonrpc/refusals.rs"]
mod refusals;

async fn lab() -> TestServer {
    start(
        Lab.server()
            .max_body_bytes(64 * 1024)
            .cancel_grace(Duration::from_millis(200)),
    )
    .await
}

fn skill(id: &str) -> Value {
    json!({ "skill": id })
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {response}"))
}

fn reason(response: &Value) -> &str {
    response["error"]["data"][0]["reason"]
        .as_str()
        .unwrap_or_default()
}

async fn completed_task(server: &TestServer) -> Value {
    let response = server
        .send(json!([{"text": "hi"}]), skill("echo"), json!({}))
        .await;
    response["result"]["task"].clone()
}

#[tokio::test]
async fn card_is_served_at_both_well_known_paths_with_interfaces_skills_and_schemas() {
    let server = lab().await;
    let card = server.card().await;
    assert_eq!(card["name"], "Lab");
    assert_eq!(card["supportedInterfaces"][0]["url"], server.base);
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(card["capabilities"]["streaming"], true);
    let ids = a2a_tests::skill_ids(&card);
    assert_eq!(
        ids,
        [
            "add",
            "block",
            "charge",
            "echo",
            "explode",
            "fail",
            "fragile",
            "nap",
            "relay",
            "relay_mcp",
            "stubborn",
            "tick",
            "wait"
        ],
        "sorted by id"
    );
    let ext = &card["capabilities"]["extensions"][0];
    assert_eq!(ext["uri"], a2a_runtime::a2a::SKILL_SCHEMAS_EXTENSION);
    assert_eq!(
        ext["params"]["skills"]["add"]["inputSchema"]["required"],
        json!(["a", "b"])
    );
    assert_eq!(
        ext["params"]["skills"]["add"]["outputSchema"]["properties"]["sum"]["type"],
        "integer"
    );
    let legacy: Value = server
        .http
        .get(format!("{}.well-known/agent.json", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(legacy, card);
}

#[tokio::test]
async fn card_revalidates_with_etag() {
    let server = lab().await;
    let url = format!("{}.well-known/agent-card.json", server.base);
    let first = server.http.get(&url).send().await.unwrap();
    let etag = first.headers()["etag"].clone();
    let second = server
        .http
        .get(&url)
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(second.status().as_u16(), 304);
}

#[tokio::test]
async fn blocking_send_returns_the_completed_task_with_artifact_and_history() {
    let server = lab().await;
    let task = completed_task(&server).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task["status"]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hi");
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert_eq!(task["history"][0]["taskId"], task["id"]);
    assert_eq!(task["history"][0]["contextId"], task["contextId"]);
    assert!(task.get("kind").is_none());
}

#[tokio::test]
async fn return_immediately_answers_before_the_skill_finishes() {
    let server = lab().await;
    let response = server
        .send(
            json!([{"data": {"millis": 60_000}}]),
            skill("wait"),
            json!({"returnImmediately": true}),
        )
        .await;
    let task = &response["result"]["task"];
    let state = task["status"]["state"].as_str().unwrap();
    assert!(
        state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING",
        "{state}"
    );
    let got = server.rpc("GetTask", json!({"id": task["id"]})).await;
    assert!(
        !got["result"]["status"]["state"]
            .as_str()
            .unwrap()
            .contains("COMPLETED")
    );
}

#[tokio::test]
async fn get_task_honours_history_length() {
    let server = lab().await;
    let task = completed_task(&server).await;
    let all = server.rpc("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(all["result"]["history"].as_array().unwrap().len(), 1);
    let none = server
        .rpc("GetTask", json!({"id": task["id"], "historyLength": 0}))
        .await;
    assert!(none["result"].get("history").is_none(), "{none}");
    let negative = server
        .rpc("GetTask", json!({"id": task["id"], "historyLength": -1}))
        .await;
    assert_eq!(error_code(&negative), -32602);
    assert!(
        negative["error"]["message"]
            .as_str()
            .unwrap()
            .contains("historyLength")
    );
}

#[tokio::test]
async fn list_tasks_pages_newest_first_and_always_has_next_page_token() {
    let server = lab().await;
    let context = "ctx-list";
    for i in 0..5 {
        let message = json!({"messageId": format!("m{i}"), "contextId": context, "role": "ROLE_USER", "parts": [{"text": format!("n{i}")}], "metadata": {"skill": "echo"}});
        let response = server.rpc("SendMessage", json!({"message": message})).await;
        assert_eq!(response["result"]["task"]["contextId"], context);
    }
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = server
            .rpc(
                "ListTasks",
                json!({"contextId": context, "pageSize": 2, "pageToken": token}),
            )
            .await;
        let result = &page["result"];
        assert_eq!(result["totalSize"], 5);
        assert_eq!(result["pageSize"], 2);
        assert!(
            result["nextPageToken"].is_string(),
            "nextPageToken must always be present: {result}"
        );
        for task in result["tasks"].as_array().unwrap() {
            assert!(
                task.get("artifacts").is_none(),
                "artifacts are left out unless includeArtifacts"
            );
            seen.push(task["status"]["timestamp"].as_str().unwrap().to_owned());
        }
        token = result["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(seen.len(), 5);
    let mut sorted = seen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, sorted, "newest first");
    let with_artifacts = server.rpc("ListTasks", json!({"contextId": context, "includeArtifacts": true, "status": "TASK_STATE_COMPLETED"})).await;
    assert!(with_artifacts["result"]["tasks"][0]["artifacts"].is_array());
}

#[tokio::test]
async fn list_tasks_rejects_bad_page_size_status_and_token() {
    let server = lab().await;
    for params in [
        json!({"pageSize": 0}),
        json!({"pageSize": 101}),
        json!({"status": "done"}),
        json!({"pageToken": "%%%"}),
    ] {
        let response = server.rpc("ListTasks", params.clone()).await;
        assert_eq!(error_code(&response), -32602, "{params}: {response}");
    }
}

#[tokio::test]
async fn cancel_reaches_a_running_skill_and_a_second_cancel_is_not_cancelable() {
    let server = lab().await;
    let started = server
        .send(
            json!([{"data": {"millis": 60_000}}]),
            skill("wait"),
            json!({"returnImmediately": true}),
        )
        .await;
    let id = started["result"]["task"]["id"].clone();
    let canceled = server.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let again = server.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(error_code(&again), -32002);
    assert_eq!(reason(&again), "TASK_NOT_CANCELABLE");
    let got = server.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn cancel_on_a_completed_task_is_not_cancelable() {
    let server = lab().await;
    let task = completed_task(&server).await;
    let response = server.rpc("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(error_code(&response), -32002);
}

#[tokio::test]
async fn a_skill_that_ignores_cancellation_is_stopped_and_stays_canceled() {
    let server = lab().await;
    let started = server
        .send(
            json!([{"data": {"millis": 1_000}}]),
            skill("stubborn"),
            json!({"returnImmediately": true}),
        )
        .await;
    let id = started["result"]["task"]["id"].clone();
    server.rpc("CancelTask", json!({"id": id})).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let got = server.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_CANCELED");
    assert!(
        got["result"].get("artifacts").is_none(),
        "late output is discarded: {got}"
    );
}

#[tokio::test]
async fn skill_error_fails_the_task_with_the_message() {
    let server = lab().await;
    let response = server
        .send(json!([{"text": "out of stock"}]), skill("fail"), json!({}))
        .await;
    let status = &response["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED");
    assert_eq!(status["message"]["role"], "ROLE_AGENT");
    assert_eq!(status["message"]["parts"][0]["text"], "out of stock");
}

#[tokio::test]
async fn skill_panic_fails_the_task_and_the_server_keeps_serving() {
    let server = lab().await;
    let response = server
        .send(json!([{"text": "boom"}]), skill("explode"), json!({}))
        .await;
    assert_eq!(
        response["result"]["task"]["status"]["state"], "TASK_STATE_FAILED",
        "{response}"
    );
    assert_eq!(
        completed_task(&server).await["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn routing_by_data_part_picks_the_only_matching_skill() {
    let server = lab().await;
    let response = server
        .send(
            json!([{"data": {"a": 2.0, "b": 3}}]),
            Value::Null,
            json!({}),
        )
        .await;
    let part = &response["result"]["task"]["artifacts"][0]["parts"][0];
    assert_eq!(
        part["data"],
        json!({"sum": 5}),
        "integral floats are accepted as integers"
    );
    assert_eq!(part["mediaType"], "application/json");
}

#[tokio::test]
async fn unroutable_message_lists_skill_ids() {
    let server = lab().await;
    let response = server
        .send(json!([{"text": "hello"}]), Value::Null, json!({}))
        .await;
    assert_eq!(error_code(&response), -32602);
    let message = response["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("message.metadata.skill")
            && message.contains("add, block, charge, echo, explode"),
        "{message}"
    );
}

#[tokio::test]
async fn bad_input_is_invalid_params_naming_the_field() {
    let server = lab().await;
    let response = server
        .send(
            json!([{"data": {"a": 1.5, "b": 1}}]),
            skill("add"),
            json!({}),
        )
        .await;
    assert_eq!(error_code(&response), -32602);
    let violation = &response["error"]["data"][1]["fieldViolations"][0];
    assert_eq!(violation["field"], "message.parts[0].data.a", "{response}");
    let unknown = server
        .send(json!([{"text": "x"}]), skill("nope"), json!({}))
        .await;
    assert_eq!(error_code(&unknown), -32602);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`nope`")
    );
}

#[tokio::test]
async fn capability_gated_methods_give_their_a2a_errors() {
    let mut push = PushOptions::default();
    push.enabled = false;
    let server = start(Lab.server().push(push)).await;
    assert_eq!(
        server.card().await["capabilities"]["pushNotifications"],
        false
    );
    for method in [
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
    ] {
        assert_eq!(
            error_code(&server.rpc(method, json!({})).await),
            -32003,
            "{method}"
        );
    }
    assert_eq!(
        error_code(&server.rpc("GetExtendedAgentCard", json!({})).await),
        -32004
    );
    let inline_push = server
        .send(
            json!([{"text": "x"}]),
            skill("echo"),
            json!({"taskPushNotificationConfig": {"url": "https://x"}}),
        )
        .await;
    assert_eq!(error_code(&inline_push), -32003);
}

/// An agent served without streaming says so in its card, and every version's streaming
/// methods are unsupported operations there, never a stream.
#[tokio::test]
async fn without_streaming_the_card_says_so_and_streaming_methods_are_unsupported() {
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.streaming = false;
    let server = start(Lab.server().config(config)).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["streaming"], false, "{card}");
    let message = json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}],
                         "metadata": {"skill": "echo"}});
    let refused = server
        .rpc("SendStreamingMessage", json!({"message": message}))
        .await;
    assert_eq!(error_code(&refused), -32004, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("streaming")
    );
    let task = completed_task(&server).await;
    let refused = server
        .rpc("SubscribeToTask", json!({"id": task["id"]}))
        .await;
    assert_eq!(error_code(&refused), -32004, "{refused}");
    // A2A 0.3's methods, and HTTP+JSON's route.
    let legacy = json!({"jsonrpc": "2.0", "id": 3, "method": "message/stream", "params": {
        "message": {"kind": "message", "messageId": "m3", "role": "user",
                    "parts": [{"kind": "text", "text": "x"}], "metadata": {"skill": "echo"}}}});
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .body(legacy.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.contains("-32004"), "{text}");
    let rest = server
        .http
        .post(format!("{}message:stream", server.base))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": message}))
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 400);
    // Plain sends still work.
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
}
