//! MCP progress, cancellation and the tasks extension over a real socket, in both eras.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::AgentServer;
use a2a_tests::stepper::Stepper;
use a2a_tests::{TestServer, response_from, start};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

async fn serve(stepper: &Stepper) -> TestServer {
    start(stepper.clone().server()).await
}

async fn serve_with(server: AgentServer) -> TestServer {
    start(server).await
}

/// One stateless (2026-07-28) request, declaring the tasks extension when `tasks`; returns the
/// raw body.
async fn modern_raw(server: &TestServer, method: &str, params: Value, tasks: bool) -> String {
    let capabilities = if tasks {
        json!({"extensions": {TASKS: {}}})
    } else {
        json!({})
    };
    server.mcp_modern(method, params, capabilities).await.1
}

async fn modern(server: &TestServer, method: &str, params: Value, tasks: bool) -> Value {
    response_from(&modern_raw(server, method, params, tasks).await)
}

/// The `notifications/progress` params in an SSE body, in order.
fn progress_notifications(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect()
}

fn assert_progress_counts_up(notifications: &[Value], token: &Value, steps: u64) {
    let values: Vec<f64> = notifications
        .iter()
        .map(|n| {
            assert_eq!(n["progressToken"], *token, "{n}");
            n["progress"].as_f64().unwrap()
        })
        .collect();
    let expected: Vec<f64> = (1..=steps).map(|s| s as f64).collect();
    assert_eq!(values, expected);
    assert!(
        notifications
            .iter()
            .all(|n| n["total"].as_f64() == Some(steps as f64))
    );
    assert_eq!(notifications[0]["message"], "step 1");
}

#[tokio::test]
async fn progress_notifications_arrive_in_increasing_order_before_the_result() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    stepper.release("legacy", 4);
    let mut mcp = server.mcp_session().await;
    let body = mcp
        .request_raw(
            "tools/call",
            json!({"name": "steps", "arguments": {"gate": "legacy", "steps": 4},
                   "_meta": {"progressToken": "p-1"}}),
        )
        .await;
    assert_progress_counts_up(&progress_notifications(&body), &json!("p-1"), 4);
    let response = response_from(&body);
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    // Chunks published while running come first, joined; the return value last.
    assert_eq!(
        result["content"][0]["text"],
        "chunk 1;chunk 2;chunk 3;chunk 4;"
    );
    assert_eq!(result["content"][1]["text"], "4 steps");
    // The response comes after every notification.
    let response_at = body.find("\"result\"").unwrap();
    let last_progress = body.rfind("notifications/progress").unwrap();
    assert!(last_progress < response_at);
}

#[tokio::test]
async fn progress_notifications_reach_stateless_clients_too() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    stepper.release("modern", 3);
    let body = modern_raw(
        &server,
        "tools/call",
        json!({"name": "steps", "arguments": {"gate": "modern", "steps": 3},
               "_meta": {"progressToken": 17}}),
        false,
    )
    .await;
    assert_progress_counts_up(&progress_notifications(&body), &json!(17), 3);
    assert_eq!(
        response_from(&body)["result"]["content"][1]["text"],
        "3 steps"
    );
}

#[tokio::test]
async fn a_stateless_call_answered_by_its_result_alone_is_one_json_body_and_one_with_progress_streams()
 {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    stepper.release("plain", 2);
    let call = json!({"name": "steps", "arguments": {"gate": "plain", "steps": 2}});
    let body = modern_raw(&server, "tools/call", call, false).await;
    let whole: Value =
        serde_json::from_str(&body).unwrap_or_else(|_| panic!("one JSON body: {body}"));
    assert_eq!(whole["result"]["content"][1]["text"], "2 steps", "{whole}");
    stepper.release("told", 2);
    let call = json!({"name": "steps", "arguments": {"gate": "told", "steps": 2},
                      "_meta": {"progressToken": "t"}});
    let body = modern_raw(&server, "tools/call", call, false).await;
    assert!(
        serde_json::from_str::<Value>(&body).is_err(),
        "an event stream: {body}"
    );
    assert_progress_counts_up(&progress_notifications(&body), &json!("t"), 2);
    assert_eq!(
        response_from(&body)["result"]["content"][1]["text"],
        "2 steps"
    );
}

#[tokio::test]
async fn calls_without_a_progress_token_get_no_notifications() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    stepper.release("quiet", 2);
    let mut mcp = server.mcp_session().await;
    let body = mcp
        .request_raw(
            "tools/call",
            json!({"name": "steps", "arguments": {"gate": "quiet", "steps": 2}}),
        )
        .await;
    assert!(progress_notifications(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn a_returned_stream_is_collected_into_the_result_content() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut mcp = server.mcp_session().await;
    let response = mcp
        .request(
            "tools/call",
            json!({"name": "count", "arguments": {"upto": 3}}),
        )
        .await;
    assert_eq!(
        response["result"]["content"],
        json!([{"type": "text", "text": "1\n2\n3\n"}])
    );
}

#[tokio::test]
async fn notifications_cancelled_reaches_the_running_skill() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut mcp = server.mcp_session().await;
    let call = mcp.next_request(
        "tools/call",
        json!({"name": "wait", "arguments": {"millis": 600_000}}),
    );
    let request_id = mcp.last_id();
    let caller = mcp.clone();
    let pending = tokio::spawn(async move { caller.send_envelope(call).await });
    let waiting = stepper.logged_with_prefix("waiting:").await.unwrap();
    let call_id = waiting.trim_start_matches("waiting:");
    mcp.notify_with(
        "notifications/cancelled",
        json!({"requestId": request_id, "reason": "user gave up"}),
    )
    .await;
    assert!(stepper.logged(&format!("cancelled:{call_id}")).await);
    pending.abort();
}

#[tokio::test]
async fn closing_the_response_stream_cancels_a_stateless_call() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let pending = {
        let server_base = server.base.clone();
        let http = server.http.clone();
        tokio::spawn(async move {
            let probe = TestServer {
                base: server_base,
                addr: "127.0.0.1:1".parse().unwrap(),
                http,
            };
            modern_raw(
                &probe,
                "tools/call",
                json!({"name": "wait", "arguments": {"millis": 600_000}}),
                false,
            )
            .await
        })
    };
    let waiting = stepper.logged_with_prefix("waiting:").await.unwrap();
    let call_id = waiting.trim_start_matches("waiting:").to_owned();
    // Dropping the in-flight request closes its connection.
    pending.abort();
    assert!(stepper.logged(&format!("cancelled:{call_id}")).await);
}

#[tokio::test]
async fn a_slow_call_from_a_tasks_client_becomes_a_task_both_protocols_see() {
    let stepper = Stepper::default();
    let server = serve_with(
        stepper
            .clone()
            .server()
            .mcp_task_after(Duration::from_millis(50)),
    )
    .await;
    let created = modern(
        &server,
        "tools/call",
        json!({"name": "steps", "arguments": {"gate": "task", "steps": 2}}),
        true,
    )
    .await;
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working");
    assert_eq!(result["ttlMs"], 3_600_000);
    let task_id = result["taskId"].as_str().unwrap().to_owned();
    // The same task over A2A.
    let a2a = server.rpc("GetTask", json!({"id": task_id})).await;
    assert_eq!(
        a2a["result"]["status"]["state"], "TASK_STATE_WORKING",
        "{a2a}"
    );
    assert_eq!(
        a2a["result"]["history"][0]["metadata"]["skill"], "steps",
        "{a2a}"
    );
    let polled = modern(&server, "tasks/get", json!({"taskId": task_id}), true).await;
    assert_eq!(polled["result"]["status"], "working", "{polled}");
    // Progress shows as the status message while the task works.
    stepper.release("task", 1);
    let progressed = server
        .poll_mcp_task(&task_id, |t| t["statusMessage"] == "step 1")
        .await;
    assert_eq!(progressed["status"], "working");
    stepper.release("task", 1);
    let done = server
        .poll_mcp_task(&task_id, |t| t["status"] == "completed")
        .await;
    let content = &done["result"]["content"];
    assert_eq!(content[0]["text"], "chunk 1;chunk 2;", "{done}");
    assert_eq!(done["result"]["isError"], false);
    assert_eq!(content[1]["text"], "2 steps");
}

#[tokio::test]
async fn a_quick_call_from_a_tasks_client_is_answered_directly() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let response = modern(
        &server,
        "tools/call",
        json!({"name": "count", "arguments": {"upto": 2}}),
        true,
    )
    .await;
    assert_ne!(response["result"]["resultType"], "task", "{response}");
    assert_eq!(response["result"]["content"][0]["text"], "1\n2\n");
}

#[tokio::test]
async fn tasks_cancel_reaches_the_skill_and_the_task_ends_cancelled() {
    let stepper = Stepper::default();
    let server = serve_with(stepper.clone().server().mcp_task_after(Duration::ZERO)).await;
    let created = modern(
        &server,
        "tools/call",
        json!({"name": "wait", "arguments": {"millis": 600_000}}),
        true,
    )
    .await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    assert!(stepper.logged(&format!("waiting:{task_id}")).await);
    let ack = modern(&server, "tasks/cancel", json!({"taskId": task_id}), true).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(stepper.logged(&format!("cancelled:{task_id}")).await);
    let polled = modern(&server, "tasks/get", json!({"taskId": task_id}), true).await;
    assert_eq!(polled["result"]["status"], "cancelled", "{polled}");
    let a2a = server.rpc("GetTask", json!({"id": task_id})).await;
    assert_eq!(a2a["result"]["status"]["state"], "TASK_STATE_CANCELED");
    // Cancelling again is acknowledged; the task keeps its final status.
    let again = modern(&server, "tasks/cancel", json!({"taskId": task_id}), true).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
}

#[tokio::test]
async fn tasks_methods_name_unknown_tasks() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let missing = modern(&server, "tasks/get", json!({"taskId": "nope"}), true).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
    let cancel = modern(&server, "tasks/cancel", json!({"taskId": "nope"}), true).await;
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");
}

#[tokio::test]
async fn a_session_busy_with_calls_outlives_its_idle_time() {
    let stepper = Stepper::default();
    let mut limits = a2a_runtime::server::Limits::default();
    limits.mcp_session_idle = Duration::from_secs(2);
    let server = serve_with(stepper.clone().server().limits(limits)).await;
    let mut mcp = server.mcp_session().await;
    // Calls for two idle times, a twentieth of one apart: the session is never idle that long.
    for _ in 0..40 {
        let response = mcp
            .request(
                "tools/call",
                json!({"name": "count", "arguments": {"upto": 1}}),
            )
            .await;
        assert_eq!(
            response["result"]["content"][0]["text"], "1\n",
            "{response}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Left alone, it ends.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let body = mcp
        .send_envelope(mcp.clone().next_request("tools/list", json!({})))
        .await;
    assert_eq!(body.status(), 404);
}

#[tokio::test]
async fn stateless_calls_sharing_a_progress_token_each_stream_only_their_own_progress() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let call = |gate: &str, steps: u64| {
        let server = TestServer {
            base: server.base.clone(),
            addr: server.addr,
            http: server.http.clone(),
        };
        let call = json!({"name": "steps", "arguments": {"gate": gate, "steps": steps},
                          "_meta": {"progressToken": "same"}});
        tokio::spawn(async move { modern_raw(&server, "tools/call", call, false).await })
    };
    let (two, three) = (call("two", 2), call("three", 3));
    // Both calls are running before either takes a step, so their progress interleaves.
    tokio::time::sleep(Duration::from_millis(200)).await;
    for gate in ["two", "three", "two", "three", "three"] {
        stepper.release(gate, 1);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (two, three) = (two.await.unwrap(), three.await.unwrap());
    assert_progress_counts_up(&progress_notifications(&two), &json!("same"), 2);
    assert_progress_counts_up(&progress_notifications(&three), &json!("same"), 3);
    assert_eq!(
        response_from(&two)["result"]["content"][1]["text"],
        "2 steps"
    );
    assert_eq!(
        response_from(&three)["result"]["content"][1]["text"],
        "3 steps"
    );
}
