//! Fair sharing: one caller (here, one source address) at its quota gets a retryable "busy"
//! answer (HTTP 429, `Retry-After`, JSON-RPC -32029 with `ErrorInfo.reason` RESOURCE_EXHAUSTED),
//! while another caller's work goes on. Callers are told apart by binding their clients to
//! different loopback addresses.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::net::{IpAddr, Ipv4Addr};

use a2a_runtime::{server::Limits, store::MemoryStoreLimits};
use a2a_tests::lab::Lab;
use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

/// A client whose connections come from `127.0.0.<n>`.
fn caller(n: u8) -> reqwest::Client {
    a2a_tests::http_builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
        .build()
        .unwrap()
}

fn send_body(skill: &str, data: Value, return_immediately: bool) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": data}],
                    "metadata": {"skill": skill}},
        "configuration": {"returnImmediately": return_immediately}}})
    .to_string()
}

async fn send(
    server: &TestServer,
    client: &reqwest::Client,
    skill: &str,
    data: Value,
    return_immediately: bool,
) -> (u16, Option<String>, Value) {
    let response = client
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(send_body(skill, data, return_immediately))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, retry, response.json().await.unwrap())
}

fn long_wait() -> Value {
    json!({"millis": 3_600_000})
}

fn assert_busy(status: u16, retry: Option<&str>, body: &Value) {
    assert_eq!(status, 429, "{body}");
    assert!(
        retry.is_some_and(|s| s.parse::<u64>().unwrap() >= 1),
        "{retry:?}"
    );
    assert_eq!(body["error"]["code"], -32029, "{body}");
    assert_eq!(
        body["error"]["data"][0]["reason"], "RESOURCE_EXHAUSTED",
        "{body}"
    );
}

#[tokio::test]
async fn one_caller_at_its_quota_does_not_stop_another_callers_task() {
    let mut limits = Limits::default();
    limits.max_running_per_caller = 2;
    let server = start(Lab.server().limits(limits)).await;
    let (greedy, polite) = (caller(2), caller(3));
    for _ in 0..2 {
        let (status, _, body) = send(&server, &greedy, "wait", long_wait(), true).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, retry, body) = send(&server, &greedy, "wait", long_wait(), true).await;
    assert_busy(status, retry.as_deref(), &body);
    let (status, _, body) = send(&server, &polite, "echo", json!({"text": "hi"}), false).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    // The same quota guards HTTP+JSON and MCP.
    let rest = greedy
        .post(format!("{}message:send", server.base))
        .header("content-type", "application/json")
        .body(
            json!({"message": {"messageId": "r", "role": "ROLE_USER",
            "parts": [{"data": {"text": "x"}}], "metadata": {"skill": "echo"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status().as_u16(), 429);
    assert!(rest.headers().contains_key("retry-after"));
    let status: Value = rest.json().await.unwrap();
    assert_eq!(status["error"]["status"], "RESOURCE_EXHAUSTED", "{status}");
    let mcp = greedy
        .post(format!("{}mcp", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "x"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let mcp = a2a_tests::response_from(&mcp.text().await.unwrap());
    assert_eq!(mcp["error"]["code"], -32029, "{mcp}");
    assert_eq!(
        mcp["error"]["data"]["reason"], "RESOURCE_EXHAUSTED",
        "{mcp}"
    );
}

#[tokio::test]
async fn a_store_full_of_live_tasks_answers_busy_not_internal_error() {
    let mut limits = Limits::default();
    limits.max_tasks = 2;
    let server = start(Lab.server().limits(limits)).await;
    for n in 2..4 {
        let (status, _, body) = send(&server, &caller(n), "wait", long_wait(), true).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, retry, body) = send(&server, &caller(4), "wait", long_wait(), true).await;
    assert_busy(status, retry.as_deref(), &body);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("store is full")
    );
}

#[tokio::test]
async fn memory_store_limits_still_configure_the_default_store() {
    let server = start(Lab.server().memory_store_limits(MemoryStoreLimits {
        max_tasks: 1,
        ..MemoryStoreLimits::default()
    }))
    .await;
    send(&server, &caller(2), "wait", long_wait(), true).await;
    let (status, _, _) = send(&server, &caller(3), "wait", long_wait(), true).await;
    assert_eq!(status, 429);
}

#[tokio::test]
async fn streams_are_capped_per_caller() {
    let mut limits = Limits::default();
    limits.max_streams_per_caller = 1;
    let server = start(Lab.server().limits(limits)).await;
    let stream = |client: reqwest::Client| {
        let base = server.base.clone();
        async move {
            client
                .post(base)
                .header("content-type", "application/json")
                .header("A2A-Version", "1.0")
                .body(
                    send_body("wait", long_wait(), false)
                        .replace("\"SendMessage\"", "\"SendStreamingMessage\""),
                )
                .send()
                .await
                .unwrap()
        }
    };
    let open = stream(caller(2)).await;
    assert_eq!(open.headers()["content-type"], "text/event-stream");
    let refused = stream(caller(2)).await;
    assert_eq!(refused.status().as_u16(), 429);
    let other = stream(caller(3)).await;
    assert_eq!(other.headers()["content-type"], "text/event-stream");
    drop(open);
}

#[tokio::test]
async fn the_rate_of_new_tasks_is_per_caller() {
    let mut limits = Limits::default();
    limits.tasks_per_second_per_caller = 1;
    limits.task_burst_per_caller = 2;
    let server = start(Lab.server().limits(limits)).await;
    let fast = caller(2);
    for _ in 0..2 {
        let (status, _, _) = send(&server, &fast, "echo", json!({"text": "a"}), false).await;
        assert_eq!(status, 200);
    }
    let (status, retry, body) = send(&server, &fast, "echo", json!({"text": "a"}), false).await;
    assert_busy(status, retry.as_deref(), &body);
    let (status, _, _) = send(&server, &caller(3), "echo", json!({"text": "b"}), false).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn unanswered_questions_of_one_caller_do_not_block_another_callers_questions() {
    let mut limits = Limits::default();
    limits.max_waiting_per_caller = 1;
    let server = start(Talker::default().server().limits(limits)).await;
    let (silent, other) = (caller(2), caller(3));
    let (_, _, first) = send(&server, &silent, "greet", json!({}), false).await;
    assert_eq!(
        first["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let (_, _, second) = send(&server, &silent, "greet", json!({}), false).await;
    let status = &second["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{second}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(reason.contains("waiting for answers"), "{reason}");
    let (_, _, theirs) = send(&server, &other, "greet", json!({}), false).await;
    assert_eq!(
        theirs["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
}
