//! Prometheus metrics count a known mix of calls exactly: A2A over every binding and version,
//! MCP plain calls, task calls, tool errors, bad arguments, refusals by scope and by quota.

use std::time::Duration;

use a2a_runtime::client::Binding;
use a2a_runtime::model::TaskState;
use a2a_runtime::server::{Host, ObserveOptions, ServeConfig};
use a2a_runtime::{Message, Part};
use a2a_tests::client_kit::{client_over, task_of};
use a2a_tests::lab::Lab;
use a2a_tests::library::Library;
use a2a_tests::tokens::{SECRET, claims, hs256};
use a2a_tests::{TestServer, response_from, start_host};
use serde_json::{Value, json};

use super::exposition::Exposition;

/// Every interface the typed client calls, as `(binding, version)`.
const EVERY_INTERFACE: [(Binding, &str); 5] = [
    (Binding::JsonRpc, "1.0"),
    (Binding::HttpJson, "1.0"),
    (Binding::Grpc, "1.0"),
    (Binding::JsonRpc, "0.3"),
    (Binding::HttpJson, "0.3"),
];

/// A host's configuration serving metrics, each caller allowed one working task, every MCP
/// call of a tasks client made a task.
pub(crate) fn observed_config() -> ServeConfig {
    let mut config = ServeConfig::default();
    config.limits.max_running_per_caller = 1;
    config.limits.mcp_task_after = Duration::ZERO;
    config.observe.metrics = true;
    config
}

/// The lab and the library (bearer tokens, scoped skills) on one host configured by `config`.
pub(crate) fn host_of(config: ServeConfig) -> Host {
    Host::new().config(config).agent("lab", Lab).server(
        "library",
        Library
            .server()
            .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET)),
    )
}

/// The lab and the library on one host serving metrics (see [`observed_config`]).
pub(crate) fn observed_host() -> Host {
    host_of(observed_config())
}

/// A message for `skill` with `input` as its data part.
pub(crate) fn call(skill: &str, input: Value) -> Message {
    let mut message = Message::user(vec![Part::data(input)]);
    message.metadata = json!({ "skill": skill }).as_object().cloned();
    message
}

/// `/metrics` of the server at `base`, parsed.
pub(crate) async fn scrape(base: &str) -> Exposition {
    let response = a2a_tests::get(format!("{base}metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    Exposition::parse(response.text().await.unwrap())
}

/// A stateless MCP `tools/call` of `tool` on `server`, declaring `capabilities`.
async fn tool(server: &TestServer, tool: &str, arguments: Value, capabilities: Value) -> Value {
    let params = json!({ "name": tool, "arguments": arguments });
    let (status, body) = server.mcp_modern("tools/call", params, capabilities).await;
    assert_eq!(status, 200, "{body}");
    response_from(&body)["result"].clone()
}

/// Runs the mix on the host at `base`; returns how many MCP `tasks/get` it sent.
pub(crate) async fn run_the_mix(server: &TestServer) -> usize {
    let agent = |id: &str| TestServer {
        base: format!("{}{id}/", server.base),
        addr: server.addr,
        http: a2a_tests::http(),
    };
    let (lab, library) = (agent("lab"), agent("library"));
    a2a_part_of_the_mix(&lab).await;
    let polls = mcp_part_of_the_mix(&lab).await;
    refused_by_scope(&library).await;
    polls
}

/// The mix's A2A calls: every binding and version the typed client speaks, and the early draft;
/// a skill error, a question and its answer, a task canceled while another call is over the
/// caller's quota of one working task.
async fn a2a_part_of_the_mix(lab: &TestServer) {
    // A2A over every binding and version the typed client speaks, and the early draft.
    for (binding, version) in &EVERY_INTERFACE {
        let client = client_over(&lab.base, binding, version).await;
        let done = task_of(
            client
                .send(call("echo", json!({"text": "hi"})))
                .await
                .unwrap(),
        );
        assert_eq!(
            done.status.state,
            TaskState::Completed,
            "{binding} {version}"
        );
    }
    let draft = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/send", "params": {
        "id": "draft-1", "message": {"role": "user", "parts": [{"type": "data", "data": {"text": "hi"}}],
        "metadata": {"skill": "echo"}}}});
    let (_, sent) = lab.post_raw(draft.to_string(), None).await;
    assert_eq!(sent["result"]["status"]["state"], "completed", "{sent}");
    // A skill error, a question and its answer, a task canceled while another call is over
    // the caller's quota of one working task.
    let failed = lab
        .send(
            json!([{"data": {"reason": "no"}}]),
            json!({"skill": "fail"}),
            json!({}),
        )
        .await;
    assert_eq!(
        failed["result"]["task"]["status"]["state"], "TASK_STATE_FAILED",
        "{failed}"
    );
    let asked = lab
        .send(json!([{"data": {}}]), json!({"skill": "nap"}), json!({}))
        .await;
    let task = &asked["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let answer = json!({"message": {"messageId": "m-2", "role": "ROLE_USER", "taskId": task["id"],
        "parts": [{"data": 1}]}});
    let napped = lab.rpc("SendMessage", answer).await;
    assert_eq!(
        napped["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{napped}"
    );
    let waiting = lab
        .send(
            json!([{"data": {"millis": 60_000}}]),
            json!({"skill": "wait"}),
            json!({"returnImmediately": true}),
        )
        .await;
    let waiting = waiting["result"]["task"]["id"].as_str().unwrap().to_owned();
    let busy = lab
        .send(
            json!([{"data": {"text": "hi"}}]),
            json!({"skill": "echo"}),
            json!({}),
        )
        .await;
    assert_eq!(busy["error"]["code"], -32029, "{busy}");
    let canceled = lab.rpc("CancelTask", json!({"id": waiting})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    lab.wait_for_state(&waiting, "TASK_STATE_CANCELED").await;
}

/// The mix's MCP calls; returns how many `tasks/get` it sent.
async fn mcp_part_of_the_mix(lab: &TestServer) -> usize {
    // MCP: a plain call, a tool error, arguments that do not fit, a task.
    let plain = tool(lab, "echo", json!({"text": "hi"}), json!({})).await;
    assert_eq!(plain["content"][0]["text"], "hi", "{plain}");
    let error = tool(lab, "fail", json!({"reason": "no"}), json!({})).await;
    assert_eq!(error["isError"], true, "{error}");
    let invalid = tool(lab, "add", json!({"a": "one"}), json!({})).await;
    assert_eq!(invalid["isError"], true, "{invalid}");
    let tasks = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let created = tool(lab, "wait", json!({"millis": 50}), tasks.clone()).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().unwrap();
    let mut polls = 0;
    loop {
        polls += 1;
        let (_, body) = lab
            .mcp_modern("tasks/get", json!({"taskId": task_id}), tasks.clone())
            .await;
        if response_from(&body)["result"]["status"] == "completed" {
            break;
        }
        assert!(polls < 1000, "the task never completed: {body}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    polls
}

/// Calls the library refuses for want of a scope, over MCP (the gate's 403) and A2A.
async fn refused_by_scope(library: &TestServer) {
    // Refused by scope: over MCP (the gate's 403) and A2A.
    let mut ann = claims("ann", "library:members:read");
    ann["tenant"] = json!("acme");
    let token = hs256(&ann);
    let bearer = format!("Bearer {token}");
    let params = json!({"name": "borrow", "arguments": {"title": "Dune"}});
    let headers = [("authorization", bearer.as_str())];
    let (status, _) = library
        .mcp_modern_with("tools/call", params, json!({}), &headers)
        .await;
    assert_eq!(status, 403);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-3", "role": "ROLE_USER", "parts": [{"data": {"title": "Dune"}}],
        "metadata": {"skill": "borrow"}}}});
    let refused = library
        .http
        .post(&library.base)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("authorization", &bearer)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
}

/// The count of skill calls with these labels.
fn calls(
    scrape: &Exposition,
    agent: &str,
    skill: &str,
    protocol: &str,
    binding: &str,
    outcome: &str,
) -> f64 {
    let labels = [
        ("agent", agent),
        ("skill", skill),
        ("protocol", protocol),
        ("binding", binding),
        ("outcome", outcome),
    ];
    scrape.value("a2a_skill_call_duration_seconds_count", &labels)
}

/// The mix's requests, as A2A and MCP operations.
fn operations_counted(scrape: &Exposition, polls: usize) {
    let a2a_ops = |method, version, binding, error| {
        let labels = [
            ("agent", "lab"),
            ("a2a_method_name", method),
            ("a2a_protocol_version", version),
            ("a2a_binding", binding),
            ("error_type", error),
        ];
        scrape.value("a2a_server_operation_duration_seconds_count", &labels)
    };
    assert_eq!(
        a2a_ops("SendMessage", "1.0", "jsonrpc", ""),
        5.0,
        "echo, fail, nap, its answer, wait"
    );
    assert_eq!(
        a2a_ops("SendMessage", "1.0", "jsonrpc", "-32029"),
        1.0,
        "the busy echo"
    );
    assert_eq!(a2a_ops("CancelTask", "1.0", "jsonrpc", ""), 1.0);
    assert_eq!(a2a_ops("SendMessage", "1.0", "http+json", ""), 1.0);
    assert_eq!(a2a_ops("SendMessage", "1.0", "grpc", ""), 1.0);
    assert_eq!(a2a_ops("SendMessage", "0.3", "jsonrpc", ""), 1.0);
    assert_eq!(a2a_ops("SendMessage", "0.3", "http+json", ""), 1.0);
    assert_eq!(a2a_ops("SendMessage", "draft", "jsonrpc", ""), 1.0);

    let mcp_ops = |method, tool, error| {
        let labels = [
            ("agent", "lab"),
            ("mcp_method_name", method),
            ("gen_ai_tool_name", tool),
            ("gen_ai_prompt_name", ""),
            ("error_type", error),
            ("network_transport", "tcp"),
        ];
        scrape.value("mcp_server_operation_duration_seconds_count", &labels)
    };
    assert_eq!(mcp_ops("tools/call", "echo", ""), 1.0);
    assert_eq!(mcp_ops("tools/call", "fail", "tool_error"), 1.0);
    assert_eq!(mcp_ops("tools/call", "add", "tool_error"), 1.0);
    assert_eq!(mcp_ops("tools/call", "wait", ""), 1.0);
    assert_eq!(mcp_ops("tasks/get", "", ""), polls as f64);
}

/// The mix's tasks entering each state, and the gauges once it is over.
fn transitions_counted(scrape: &Exposition) {
    let entered = |state| {
        scrape.value(
            "a2a_task_transitions_total",
            &[("agent", "lab"), ("state", state)],
        )
    };
    // Six echoes, fail, nap (twice: before and after its question), wait twice.
    assert_eq!(entered("working"), 11.0, "{}", scrape.text);
    assert_eq!(entered("completed"), 8.0);
    assert_eq!(entered("failed"), 1.0);
    assert_eq!(entered("input_required"), 1.0);
    assert_eq!(entered("canceled"), 1.0);
    assert_eq!(
        scrape.value("a2a_quota_refusals_total", &[("kind", "running")]),
        1.0
    );
    assert_eq!(scrape.value("a2a_tasks_working", &[("agent", "lab")]), 0.0);
    assert_eq!(
        scrape.value("a2a_questions_waiting", &[("agent", "lab")]),
        0.0
    );
    assert!(
        scrape.value(
            "a2a_store_write_duration_seconds_count",
            &[("outcome", "stored")]
        ) >= 12.0
    );
}

#[tokio::test]
async fn metrics_count_a_known_mix_of_calls_over_both_protocols_exactly() {
    let server = start_host(observed_host()).await;
    let polls = run_the_mix(&server).await;
    let scrape = scrape(&server.base).await;
    let a2a = |binding| ("a2a", binding);
    let mcp = ("mcp", "streamable-http");
    let expected = [
        (("lab", "echo"), a2a("jsonrpc"), "completed", 3.0),
        (("lab", "echo"), a2a("http+json"), "completed", 2.0),
        (("lab", "echo"), a2a("grpc"), "completed", 1.0),
        (("lab", "fail"), a2a("jsonrpc"), "skill_error", 1.0),
        (("lab", "nap"), a2a("jsonrpc"), "input_required", 1.0),
        (("lab", "nap"), a2a("jsonrpc"), "completed", 1.0),
        (("lab", "wait"), a2a("jsonrpc"), "canceled", 1.0),
        (("lab", "echo"), a2a("jsonrpc"), "busy", 1.0),
        (("lab", "echo"), mcp, "completed", 1.0),
        (("lab", "fail"), mcp, "skill_error", 1.0),
        (("lab", "add"), mcp, "invalid_input", 1.0),
        (("lab", "wait"), mcp, "completed", 1.0),
        (("library", "borrow"), mcp, "forbidden", 1.0),
        (("library", "borrow"), a2a("jsonrpc"), "forbidden", 1.0),
    ];
    for (skill, via, outcome, count) in expected {
        let ((agent, name), (protocol, binding)) = (skill, via);
        assert_eq!(
            calls(&scrape, agent, name, protocol, binding, outcome),
            count,
            "{skill:?} {via:?} {outcome}\n{}",
            scrape.text
        );
    }
    let total: f64 = expected.iter().map(|e| e.3).sum();
    assert_eq!(
        scrape.sum("a2a_skill_call_duration_seconds_count", &[]),
        total,
        "no other call was counted"
    );

    operations_counted(&scrape, polls);
    transitions_counted(&scrape);
}

#[tokio::test]
async fn a_metrics_token_is_required_of_scrapers_and_compared_whole() {
    let mut observe = ObserveOptions::default();
    observe.metrics = true;
    observe.metrics_token = Some("s3cret-scrape".into());
    let server = start_host(Host::new().agent("lab", Lab).observe_options(observe)).await;
    let url = format!("{}metrics", server.base);
    let http = a2a_tests::http();
    let bare = http.get(&url).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    assert_eq!(
        bare.headers()["www-authenticate"],
        "Bearer realm=\"metrics\""
    );
    for wrong in ["s3cret", "s3cret-scrape-", "S3cret-scrape"] {
        let refused = http.get(&url).bearer_auth(wrong).send().await.unwrap();
        assert_eq!(refused.status(), 401, "{wrong}");
    }
    // The scheme's name is case-insensitive (RFC 7235 §2.1).
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let scraped = http
            .get(&url)
            .header("authorization", format!("{scheme} s3cret-scrape"))
            .send()
            .await
            .unwrap();
        assert_eq!(scraped.status(), 200, "{scheme}");
    }
    let scraped = http
        .get(&url)
        .bearer_auth("s3cret-scrape")
        .send()
        .await
        .unwrap();
    assert_eq!(scraped.status(), 200);
    assert!(
        scraped
            .text()
            .await
            .unwrap()
            .contains("# TYPE a2a_streams_open gauge")
    );
}

#[tokio::test]
async fn metrics_on_an_address_of_their_own_are_not_on_the_agents() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut observe = ObserveOptions::default();
    observe.metrics = true;
    observe.metrics_bind = Some(format!("127.0.0.1:{port}").parse().unwrap());
    let server = start_host(Host::new().agent("lab", Lab).observe_options(observe)).await;
    let on_agents = a2a_tests::get(format!("{}metrics", server.base))
        .await
        .unwrap();
    assert_eq!(on_agents.status(), 404);
    // A hang guard while the metrics listener binds.
    let mut apart = None;
    for _ in 0..100 {
        if let Ok(response) = a2a_tests::get(format!("http://127.0.0.1:{port}/metrics")).await {
            apart = Some(response);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let apart = apart.expect("the metrics listener answers");
    assert_eq!(apart.status(), 200);
    assert!(apart.text().await.unwrap().contains("a2a_streams_open 0"));
}

#[test]
fn metrics_beyond_loopback_need_a_token_or_an_address_of_their_own() {
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.bind = "0.0.0.0:8080".parse().unwrap();
    config.observe.metrics = true;
    let refused = config.validate().unwrap_err().to_string();
    assert!(refused.contains("--metrics-token"), "{refused}");
    config.observe.metrics_token = Some("t".into());
    config.validate().unwrap();
    config.observe.metrics_token = None;
    config.observe.metrics_bind = Some("127.0.0.1:9464".parse().unwrap());
    config.validate().unwrap();
}

#[tokio::test]
async fn a_remote_agents_calls_are_counted_by_agent_and_skill_as_a_compiled_ones() {
    let remote = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let mut observe = ObserveOptions::default();
    observe.metrics = true;
    let host = Host::new()
        .remote_agent("fx", remote.base.clone())
        .agent("lab", Lab)
        .observe_options(observe);
    let host = start_host(host).await;
    let fx = host.mounted("fx");
    let convert = json!({"message": {
        "messageId": "m-remote-metrics", "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}}],
        "metadata": {"skill": "convert"},
    }});
    let sent = fx.rpc("SendMessage", convert).await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
    let arguments = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
    let called = tool(&fx, "convert", arguments, json!({})).await;
    assert_eq!(called["structuredContent"]["currency"], "EUR", "{called}");
    let scrape = scrape(&host.base).await;
    let counted =
        |protocol, binding| calls(&scrape, "fx", "convert", protocol, binding, "completed");
    assert_eq!(counted("a2a", "jsonrpc"), 1.0, "{}", scrape.text);
    assert_eq!(counted("mcp", "streamable-http"), 1.0, "{}", scrape.text);
}
