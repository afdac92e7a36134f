//! OpenTelemetry traces: a chain of two agents in two processes (a skill of one calling the
//! other with `ctx.call_agent`) exports one trace to an OTLP receiver, each request a server
//! span parented on its caller's span, each skill call a span under its request, each request a
//! skill sends a client span under it.

use a2a_tests::otlp::{Collector, Received};
use a2a_tests::{TestServer, spawn_served_with};
use serde_json::{Value, json};

/// The caller's trace and span, as its `traceparent` says.
const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN: &str = "b7ad6b7169203331";

pub(crate) fn named<'a>(spans: &'a [Received], name: &str) -> Option<&'a Received> {
    spans.iter().find(|span| span.span.name == name)
}

/// The span named `name` of kind `kind` (2 SERVER, 3 CLIENT).
pub(crate) fn of_kind<'a>(spans: &'a [Received], name: &str, kind: i32) -> Option<&'a Received> {
    spans
        .iter()
        .find(|span| span.span.name == name && span.span.kind == kind)
}

/// A lab-server process exporting its spans to `collector`: the child and its base URL.
pub(crate) async fn traced_lab(collector: &Collector) -> (tokio::process::Child, String) {
    let lab = env!("CARGO_BIN_EXE_lab-server");
    let flags = ["--store", "memory", "--otlp-endpoint", &collector.endpoint];
    spawn_served_with(lab, &flags).await
}

/// The kinds and attributes of the semantic conventions on the chain's spans: the first
/// process's request and skill call (`relay`, whose task `sent` answered) and the second's call.
fn follows_the_conventions(request: &Received, relay: &Received, echo: &Received, sent: &Value) {
    // Kinds and attributes of the semantic conventions.
    assert_eq!(request.span.kind, 2, "SERVER");
    assert_eq!(relay.span.kind, 1, "INTERNAL");
    assert_eq!(
        request.attribute("a2a.method.name").as_deref(),
        Some("SendMessage")
    );
    assert_eq!(
        request.attribute("a2a.task.state").as_deref(),
        Some("TASK_STATE_COMPLETED")
    );
    assert_eq!(request.attribute("a2a.message.id").as_deref(), Some("m-1"));
    assert_eq!(
        relay.attribute("gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        relay.attribute("gen_ai.tool.name").as_deref(),
        Some("relay")
    );
    assert_eq!(
        relay.attribute("a2a.call.outcome").as_deref(),
        Some("completed")
    );
    assert_eq!(
        relay.attribute("a2a.task.id"),
        sent["result"]["task"]["id"].as_str().map(str::to_owned)
    );
    assert!(request.span.start_time_unix_nano <= relay.span.start_time_unix_nano);
    assert!(relay.span.end_time_unix_nano >= echo.span.end_time_unix_nano);
    assert!(
        request
            .span
            .status
            .as_ref()
            .is_none_or(|status| status.code == 0)
    );
}

#[tokio::test]
async fn a_chain_of_two_agents_exports_one_trace_with_parents_across_both_processes() {
    let collector = Collector::start().await;
    let (_first, first) = traced_lab(&collector).await;
    let (_second, second) = traced_lab(&collector).await;

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-1", "role": "ROLE_USER", "metadata": {"skill": "relay"},
        "parts": [{"data": {"url": second, "skill": "echo", "input": {"text": "over there"}}}]}}});
    let traceparent = format!("00-{TRACE}-{CALLER_SPAN}-01");
    let sent = TestServer::at(first)
        .rpc_with(&body, &[("traceparent", &traceparent)])
        .await;
    let artifact = &sent["result"]["task"]["artifacts"][0]["parts"][0]["text"];
    assert_eq!(artifact, "over there", "{sent}");

    let spans = collector
        .until(|spans| {
            of_kind(spans, "SendStreamingMessage", 3).is_some()
                && of_kind(spans, "SendStreamingMessage", 2).is_some()
                && ["SendMessage", "execute_tool relay", "execute_tool echo"]
                    .iter()
                    .all(|name| named(spans, name).is_some())
        })
        .await;
    assert!(
        spans.iter().all(|span| span.trace_id() == TRACE),
        "one trace: {spans:#?}"
    );
    let request = of_kind(&spans, "SendMessage", 2).unwrap();
    let relay = named(&spans, "execute_tool relay").unwrap();
    let sending = of_kind(&spans, "SendStreamingMessage", 3).unwrap();
    let delegated = of_kind(&spans, "SendStreamingMessage", 2).unwrap();
    let echo = named(&spans, "execute_tool echo").unwrap();
    // The caller's span, then a request and its skill call in each process, the outgoing
    // request between them.
    assert_eq!(request.parent_id(), CALLER_SPAN);
    assert_eq!(relay.parent_id(), request.span_id());
    assert_eq!(
        sending.parent_id(),
        relay.span_id(),
        "the client span hangs under the skill"
    );
    assert_eq!(delegated.parent_id(), sending.span_id());
    assert_eq!(echo.parent_id(), delegated.span_id());
    assert_eq!(
        sending.attribute("server.address").as_deref(),
        Some("127.0.0.1")
    );
    assert!(
        sending
            .int_attribute("server.port")
            .is_some_and(|port| port > 0)
    );
    let instance = |span: &Received| span.resource("service.instance.id").unwrap();
    assert_eq!(instance(request), instance(relay));
    assert_eq!(instance(relay), instance(sending));
    assert_eq!(instance(delegated), instance(echo));
    assert_ne!(
        instance(request),
        instance(delegated),
        "two processes exported them"
    );
    assert_eq!(request.resource("service.name").as_deref(), Some("Lab"));

    follows_the_conventions(request, relay, echo, &sent);
}

#[tokio::test]
async fn an_mcp_tool_error_is_an_error_span_and_unsampled_traces_export_nothing() {
    let collector = Collector::start().await;
    let (_server, base) = traced_lab(&collector).await;
    let mcp = format!("{}mcp", base);
    let call = |tool: &str, arguments: Value, flags: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": tool, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        a2a_tests::http()
            .post(&mcp)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .header("traceparent", format!("00-{TRACE}-{CALLER_SPAN}-{flags}"))
            .body(body.to_string())
            .send()
    };
    // Not sampled by its caller: nothing of it is exported.
    call("echo", json!({"text": "quiet"}), "00").await.unwrap();
    call("fail", json!({"reason": "out of luck"}), "01")
        .await
        .unwrap();
    let spans = collector
        .until(|spans| {
            named(spans, "execute_tool fail").is_some() && named(spans, "tools/call fail").is_some()
        })
        .await;
    let operation = named(&spans, "tools/call fail").unwrap();
    assert_eq!(
        operation.attribute("mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        operation.attribute("gen_ai.tool.name").as_deref(),
        Some("fail")
    );
    assert_eq!(
        operation.attribute("error.type").as_deref(),
        Some("tool_error")
    );
    assert_eq!(
        operation.attribute("network.transport").as_deref(),
        Some("tcp")
    );
    assert_eq!(
        operation.attribute("jsonrpc.request.id").as_deref(),
        Some("1")
    );
    assert_eq!(
        operation.span.status.as_ref().map(|s| s.code),
        Some(2),
        "ERROR"
    );
    let call_span = named(&spans, "execute_tool fail").unwrap();
    assert_eq!(call_span.parent_id(), operation.span_id());
    assert_eq!(
        call_span.attribute("error.type").as_deref(),
        Some("skill_error")
    );
    assert_eq!(
        call_span.span.status.as_ref().map(|s| s.message.as_str()),
        Some("out of luck")
    );
    assert!(named(&spans, "execute_tool echo").is_none(), "{spans:#?}");
    assert!(named(&spans, "tools/call echo").is_none());
}

#[tokio::test]
async fn a_call_a_host_forwards_to_a_remote_agent_continues_the_callers_trace() {
    let collector = Collector::start().await;
    let (_remote, remote) = traced_lab(&collector).await;
    let host = env!("CARGO_BIN_EXE_interop-host");
    let mount = format!("lab={remote}");
    let flags = [
        "--store",
        "memory",
        "--otlp-endpoint",
        &collector.endpoint,
        "--remote-agent",
        &mount,
    ];
    let (_host, base) = spawn_served_with(host, &flags).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-remote", "role": "ROLE_USER", "metadata": {"skill": "echo"},
        "parts": [{"data": {"text": "through the host"}}]}}});
    let traceparent = format!("00-{TRACE}-{CALLER_SPAN}-01");
    let sent = TestServer::at(base)
        .mounted("lab")
        .rpc_with(&body, &[("traceparent", &traceparent)])
        .await;
    let state = &sent["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_COMPLETED", "{sent}");
    let spans = collector
        .until(|spans| {
            of_kind(spans, "SendStreamingMessage", 3).is_some()
                && of_kind(spans, "SendStreamingMessage", 2).is_some()
                && of_kind(spans, "SendMessage", 2).is_some()
                && spans
                    .iter()
                    .filter(|s| s.span.name == "execute_tool echo")
                    .count()
                    == 2
        })
        .await;
    assert!(
        spans.iter().all(|span| span.trace_id() == TRACE),
        "one trace: {spans:#?}"
    );
    let request = of_kind(&spans, "SendMessage", 2).unwrap();
    let forwarded = spans
        .iter()
        .find(|s| s.span.name == "execute_tool echo" && s.parent_id() == request.span_id())
        .expect("the host's call of the remote's skill, under its request");
    let sending = of_kind(&spans, "SendStreamingMessage", 3).unwrap();
    let received = of_kind(&spans, "SendStreamingMessage", 2).unwrap();
    assert_eq!(request.parent_id(), CALLER_SPAN);
    assert_eq!(
        sending.parent_id(),
        forwarded.span_id(),
        "a CLIENT span per forwarded call"
    );
    assert_eq!(
        received.parent_id(),
        sending.span_id(),
        "the remote continues the trace"
    );
}
