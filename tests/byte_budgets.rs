//! Memory bounded by bytes, not only counts: parts per message and bytes per part, history and
//! artifact bytes per task, the store's total bytes, `ListTasks` pages, and MCP sessions.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::server::Limits;
use a2a_tests::lab::Lab;
use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

fn message(parts: Value, skill: &str) -> Value {
    json!({"messageId": "m", "role": "ROLE_USER", "parts": parts, "metadata": {"skill": skill}})
}

async fn send(server: &TestServer, message: Value, configuration: Value) -> Value {
    server
        .rpc(
            "SendMessage",
            json!({"message": message, "configuration": configuration}),
        )
        .await
}

/// The raw body and its JSON.
async fn rpc_raw(server: &TestServer, method: &str, params: Value) -> (usize, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    (text.len(), serde_json::from_str(&text).unwrap())
}

#[tokio::test]
async fn parts_per_message_and_bytes_per_part_are_limited() {
    let mut limits = Limits::default();
    limits.max_message_parts = 4;
    limits.max_part_bytes = 1_000;
    let server = start(Lab.server().limits(limits)).await;
    let many = vec![json!({"text": "a"}); 5];
    let refused = send(&server, message(json!(many), "echo"), json!({})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("message.parts:")
    );
    let large = json!([{"text": "x".repeat(2_000)}]);
    let refused = send(&server, message(large, "echo"), json!({})).await;
    assert_eq!(refused["error"]["code"], -32602);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("message.parts[0]:"),
        "{refused}"
    );
}

#[tokio::test]
async fn artifacts_over_the_task_budget_fail_the_task() {
    let mut limits = Limits::default();
    limits.max_task_artifact_bytes = 10_000;
    let server = start(Lab.server().limits(limits)).await;
    let big = json!([{"data": {"text": "x".repeat(20_000)}}]);
    let answered = send(&server, message(big, "echo"), json!({})).await;
    let status = &answered["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{answered}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(reason.contains("10000 bytes"), "{reason}");
    assert!(
        answered["result"]["task"]["artifacts"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
}

#[tokio::test]
async fn history_is_bounded_by_bytes_however_many_answers_arrive() {
    let mut limits = Limits::default();
    limits.max_task_history_bytes = 1_000_000;
    let server = start(Talker::default().server().limits(limits)).await;
    let asked = send(
        &server,
        message(json!([{"text": "go"}]), "double"),
        json!({}),
    )
    .await;
    let task = &asked["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let (id, context) = (task["id"].clone(), task["contextId"].clone());
    for n in 0..6 {
        // Not a number: each answer is kept, then the question is asked again.
        let wrong = json!({"messageId": format!("w{n}"), "role": "ROLE_USER", "taskId": id,
            "contextId": context, "parts": [{"text": "z".repeat(400_000)}]});
        let again = send(&server, wrong, json!({})).await;
        assert_eq!(
            again["result"]["task"]["status"]["state"],
            "TASK_STATE_INPUT_REQUIRED"
        );
    }
    let (bytes, task) = rpc_raw(&server, "GetTask", json!({"id": id})).await;
    assert!(bytes < 1_500_000, "GetTask answered {bytes} bytes");
    assert!(task["result"]["history"].as_array().unwrap().len() >= 2);
}

#[tokio::test]
async fn list_tasks_pages_shrink_to_the_byte_budget_and_page_on() {
    let mut limits = Limits::default();
    limits.max_list_bytes = 500_000;
    let server = start(Lab.server().limits(limits)).await;
    for n in 0..5 {
        let text = format!("{n}{}", "y".repeat(100_000));
        let done = send(
            &server,
            message(json!([{"data": {"text": text}}]), "echo"),
            json!({}),
        )
        .await;
        assert_eq!(
            done["result"]["task"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
    }
    let mut token = String::new();
    let mut seen = Vec::new();
    loop {
        let params = json!({"pageSize": 100, "includeArtifacts": true, "pageToken": token});
        let (bytes, page) = rpc_raw(&server, "ListTasks", params).await;
        assert!(bytes < 750_000, "a page of {bytes} bytes");
        assert_eq!(page["result"]["totalSize"], 5);
        let tasks = page["result"]["tasks"].as_array().unwrap();
        assert!(
            !tasks.is_empty() && tasks.len() < 5,
            "{} tasks",
            tasks.len()
        );
        seen.extend(tasks.iter().map(|t| t["id"].as_str().unwrap().to_owned()));
        token = page["result"]["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 5);
}

#[tokio::test]
async fn a_store_full_of_live_bytes_refuses_new_work_as_busy() {
    let mut limits = Limits::default();
    limits.max_store_bytes = 350_000;
    limits.max_task_history_bytes = 200_000;
    let server = start(Lab.server().limits(limits)).await;
    let mut statuses = Vec::new();
    for n in 0..4 {
        let mut large = message(
            json!([{"data": {"millis": 3_600_000}}, {"data": {"pad": "p".repeat(100_000)}}]),
            "wait",
        );
        large["messageId"] = json!(format!("m{n}"));
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": large, "configuration": {"returnImmediately": true}}});
        let response = server
            .http
            .post(&server.base)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        if status == 200 {
            let state = &body["result"]["task"]["status"]["state"];
            assert!(
                state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING",
                "{body}"
            );
        } else {
            assert_eq!(body["error"]["code"], -32029, "{body}");
        }
        statuses.push(status);
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
}

#[tokio::test]
async fn mcp_sessions_are_capped() {
    let mut limits = Limits::default();
    limits.max_mcp_sessions = 2;
    let server = start(Lab.server().limits(limits)).await;
    for _ in 0..2 {
        let init = server.mcp_session_init().await;
        assert!(init.get("result").is_some(), "{init}");
    }
    let refused = server.mcp_session_init().await;
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
}

/// A body sent in pieces to a host's tenant endpoint, which reads it before it knows the agent:
/// within the limit it reaches the agent it names; beyond it (no `Content-Length` to refuse it
/// early) it is 413 with a JSON-RPC error, and nothing past the limit is kept.
#[tokio::test]
async fn a_hosts_tenant_endpoint_reads_a_body_in_pieces_within_its_limit() {
    let mut limits = Limits::default();
    limits.max_body_bytes = 4096;
    let host = a2a_runtime::server::Host::new()
        .agent("hello", hello::Hello)
        .agent("currency", currency::Currency::with_reference_rates())
        .primary("currency")
        .limits(limits);
    let server = a2a_tests::start_host(host).await;
    let pieces = |pieces: Vec<String>| {
        let stream = futures::stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
        reqwest::Body::wrap_stream(stream)
    };
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": {
        "tenant": "hello",
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}})
    .to_string();
    let (head, tail) = body.split_at(body.len() / 2);
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(pieces(vec![head.to_owned(), tail.to_owned()]))
        .send()
        .await
        .unwrap();
    let answered: Value = response.json().await.unwrap();
    assert_eq!(
        answered["result"]["task"]["artifacts"][0]["parts"][0]["text"], "Hello, Ada!",
        "{answered}"
    );
    let padding = "x".repeat(1000);
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .body(pieces(vec![padding; 6]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let refused: Value = response.json().await.unwrap();
    assert_eq!(refused["jsonrpc"], "2.0", "{refused}");
}

/// An agent's own JSON-RPC URL, answered without the router, reads a body sent in pieces
/// within the agent's own limit, whatever axum's default: a request padded past that default
/// (2 MiB) is served under a limit of 3 MiB, and one past 3 MiB is 413 with a JSON-RPC error.
#[tokio::test]
async fn an_agents_own_url_reads_a_body_in_pieces_within_its_own_limit() {
    let mut limits = Limits::default();
    limits.max_body_bytes = 3 * 1024 * 1024;
    let server = start(hello::Hello.server().limits(limits)).await;
    let request = json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": {
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}})
    .to_string();
    // JSON allows whitespace after the request: 2.5 MiB of it, in 64 KiB pieces.
    let padded = |mebibytes_tenths: usize| {
        let padding = " ".repeat(64 * 1024);
        let pieces = mebibytes_tenths * 1024 * 1024 / 10 / padding.len();
        let stream = futures::stream::iter(
            std::iter::once(request.clone())
                .chain(std::iter::repeat_n(padding, pieces))
                .map(Ok::<_, std::io::Error>),
        );
        reqwest::Body::wrap_stream(stream)
    };
    let post = |body| {
        server
            .http
            .post(&server.base)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .body(body)
            .send()
    };
    let response = post(padded(25)).await.unwrap();
    assert_eq!(response.status(), 200);
    let answered: Value = response.json().await.unwrap();
    assert_eq!(
        answered["result"]["task"]["artifacts"][0]["parts"][0]["text"], "Hello, Ada!",
        "{answered}"
    );
    let response = post(padded(35)).await.unwrap();
    assert_eq!(response.status(), 413);
    let refused: Value = response.json().await.unwrap();
    assert_eq!(refused["jsonrpc"], "2.0", "{refused}");
}
