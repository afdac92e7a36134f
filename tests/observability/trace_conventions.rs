//! Spans exactly as OpenTelemetry's A2A and MCP conventions name and describe them, captured by
//! an OTLP receiver: `SendMessage` over each A2A binding (the logical operation, its task,
//! message, conversation and state), an MCP request parented on its own `_meta.traceparent`
//! with the HTTP request's context as a link, and an agent calling another over MCP as one
//! trace (its skill's client span between the two servers).

use a2a_runtime::client::{A2aClient, Binding, SendResult};
use a2a_runtime::{Message, Part};
use a2a_tests::TestServer;
use a2a_tests::otlp::{Collector, Received};
use serde_json::{Value, json};

use super::traces::{named, of_kind, traced_lab};

const SERVER: i32 = 2;
const CLIENT: i32 = 3;

/// A `SendMessage` of the lab's `echo` with message id `id`.
fn echo_message(id: &str) -> Value {
    json!({"message": {"messageId": id, "role": "ROLE_USER", "metadata": {"skill": "echo"},
        "parts": [{"data": {"text": id}}]}})
}

/// `traceparent` for span `span` of trace `trace`, sampled.
fn traceparent(trace: &str, span: &str) -> String {
    format!("00-{trace}-{span}-01")
}

/// The server span of `SendMessage` whose message was `id`.
fn send_of<'a>(spans: &'a [Received], id: &str) -> Option<&'a Received> {
    spans.iter().find(|span| {
        span.span.name == "SendMessage"
            && span.span.kind == SERVER
            && span.attribute("a2a.message.id").as_deref() == Some(id)
    })
}

/// `span` describes the completed task `task` the way the A2A conventions ask, over `binding`.
fn describes(span: &Received, task: &Value, binding: &str) {
    let text = |key: &str| span.attribute(key);
    assert_eq!(text("a2a.method.name").as_deref(), Some("SendMessage"));
    assert_eq!(text("a2a.binding").as_deref(), Some(binding));
    assert_eq!(text("a2a.protocol.version").as_deref(), Some("1.0"));
    assert_eq!(text("gen_ai.agent.name").as_deref(), Some("Lab"));
    assert_eq!(text("a2a.task.id").as_deref(), task["id"].as_str());
    assert_eq!(
        text("gen_ai.conversation.id").as_deref(),
        task["contextId"].as_str()
    );
    assert_eq!(
        text("a2a.task.state").as_deref(),
        Some("TASK_STATE_COMPLETED")
    );
    assert!(text("error.type").is_none(), "{span:#?}");
}

#[tokio::test]
async fn send_message_over_each_binding_is_one_server_span_named_by_its_operation() {
    let collector = Collector::start().await;
    let (_lab, base) = traced_lab(&collector).await;
    let over_rpc = TestServer::at(base.clone())
        .rpc_with(
            &json!({"jsonrpc": "2.0", "id": 7, "method": "SendMessage",
                "params": echo_message("m-rpc")}),
            &[(
                "traceparent",
                &traceparent(&"1".repeat(32), &"a".repeat(16)),
            )],
        )
        .await;
    let over_rest: Value = a2a_tests::http()
        .post(format!("{base}acme/message:send"))
        .header("A2A-Version", "1.0")
        .header("traceparent", traceparent(&"2".repeat(32), &"b".repeat(16)))
        .json(&echo_message("m-rest"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let grpc = A2aClient::builder(base.clone())
        .only(Binding::Grpc)
        .connect()
        .await
        .unwrap();
    let message = Message::user(vec![Part::data(json!({"text": "m-grpc"}))]);
    let mut message = message;
    message.metadata = json!({"skill": "echo"}).as_object().cloned();
    let grpc_id = message.message_id.clone();
    let SendResult::Task(grpc_task) = grpc.send(message).await.unwrap() else {
        panic!("a task over gRPC");
    };

    let spans = collector
        .until(|spans| {
            ["m-rpc", "m-rest", grpc_id.as_str()]
                .iter()
                .all(|id| send_of(spans, id).is_some())
        })
        .await;
    let rpc = send_of(&spans, "m-rpc").unwrap();
    describes(rpc, &over_rpc["result"]["task"], "jsonrpc");
    assert_eq!(rpc.parent_id(), "a".repeat(16));
    assert_eq!(rpc.attribute("jsonrpc.request.id").as_deref(), Some("7"));
    let rest = send_of(&spans, "m-rest").unwrap();
    describes(rest, &over_rest["task"], "http+json");
    assert_eq!(rest.attribute("a2a.tenant").as_deref(), Some("acme"));
    assert_eq!(rest.trace_id(), "2".repeat(32));
    assert_eq!(rest.parent_id(), "b".repeat(16));
    let over_grpc = send_of(&spans, &grpc_id).unwrap();
    let task = json!({"id": grpc_task.id, "contextId": grpc_task.context_id});
    describes(over_grpc, &task, "grpc");
    // Each request is one span, whatever path or dialect it came by.
    let sends = spans
        .iter()
        .filter(|s| s.span.name == "SendMessage")
        .count();
    assert_eq!(sends, 3, "{spans:#?}");
    assert!(spans.iter().all(|s| !s.span.name.starts_with("A2A ")));
}

#[tokio::test]
async fn an_mcp_request_takes_its_parent_from_meta_and_links_the_http_request() {
    let collector = Collector::start().await;
    let (_lab, base) = traced_lab(&collector).await;
    let (http_trace, http_span) = ("3".repeat(32), "c".repeat(16));
    let (own_trace, own_span) = ("4".repeat(32), "d".repeat(16));
    let body = json!({"jsonrpc": "2.0", "id": "call-9", "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "traced"}, "_meta": {
            "traceparent": traceparent(&own_trace, &own_span),
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let answer = a2a_tests::http()
        .post(format!("{base}mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .header("traceparent", traceparent(&http_trace, &http_span))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let spans = collector
        .until(|spans| {
            named(spans, "tools/call echo").is_some() && named(spans, "execute_tool echo").is_some()
        })
        .await;
    let request = named(&spans, "tools/call echo").unwrap();
    assert_eq!(request.span.kind, SERVER);
    assert_eq!(
        request.trace_id(),
        own_trace,
        "the request's own context is its parent"
    );
    assert_eq!(request.parent_id(), own_span);
    assert_eq!(
        request.links(),
        [(http_trace, http_span)],
        "the HTTP request is a link"
    );
    assert_eq!(
        request.attribute("jsonrpc.request.id").as_deref(),
        Some("call-9")
    );
    assert_eq!(
        request.attribute("mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    let call = named(&spans, "execute_tool echo").unwrap();
    assert_eq!(call.trace_id(), own_trace);
    assert_eq!(call.parent_id(), request.span_id());
}

#[tokio::test]
async fn an_agent_calling_another_over_mcp_is_one_trace_through_its_client_span() {
    let collector = Collector::start().await;
    let (_first, first) = traced_lab(&collector).await;
    let (_second, second) = traced_lab(&collector).await;
    let (trace, caller) = ("5".repeat(32), "e".repeat(16));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-mcp", "role": "ROLE_USER", "metadata": {"skill": "relay_mcp"},
        "parts": [{"data": {"url": format!("{second}mcp"), "tool": "echo",
            "input": {"text": "over mcp"}}}]}}});
    let sent = TestServer::at(first)
        .rpc_with(&body, &[("traceparent", &traceparent(&trace, &caller))])
        .await;
    let state = &sent["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_COMPLETED", "{sent}");

    let in_trace = |spans: &[Received]| -> Vec<Received> {
        spans
            .iter()
            .filter(|s| s.trace_id() == trace)
            .cloned()
            .collect()
    };
    let spans = collector
        .until(|spans| {
            let spans = in_trace(spans);
            of_kind(&spans, "tools/call echo", CLIENT).is_some()
                && of_kind(&spans, "tools/call echo", SERVER).is_some()
                && named(&spans, "execute_tool echo").is_some()
        })
        .await;
    let spans = in_trace(&spans);
    let request = of_kind(&spans, "SendMessage", SERVER).unwrap();
    let relay = named(&spans, "execute_tool relay_mcp").unwrap();
    let calling = of_kind(&spans, "tools/call echo", CLIENT).unwrap();
    let called = of_kind(&spans, "tools/call echo", SERVER).unwrap();
    let echo = named(&spans, "execute_tool echo").unwrap();
    assert_eq!(request.parent_id(), caller);
    assert_eq!(relay.parent_id(), request.span_id());
    assert_eq!(calling.parent_id(), relay.span_id());
    assert_eq!(
        called.parent_id(),
        calling.span_id(),
        "parented through _meta"
    );
    assert_eq!(echo.parent_id(), called.span_id());
    assert_eq!(
        calling.attribute("gen_ai.tool.name").as_deref(),
        Some("echo")
    );
    assert_eq!(
        calling.attribute("mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert!(calling.int_attribute("server.port").is_some());
    assert!(called.attribute("jsonrpc.request.id").is_some());
    let instance = |span: &Received| span.resource("service.instance.id").unwrap();
    assert_eq!(instance(calling), instance(relay));
    assert_ne!(
        instance(calling),
        instance(called),
        "two processes exported them"
    );
}

#[tokio::test]
async fn a_hosts_root_names_the_tenant_a_request_chose_its_agent_by() {
    let collector = Collector::start().await;
    let host = env!("CARGO_BIN_EXE_interop-host");
    let flags = ["--store", "memory", "--otlp-endpoint", &collector.endpoint];
    let (_host, base) = a2a_tests::spawn_served_with(host, &flags).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "tenant": "hello", "message": {"messageId": "m-tenant", "role": "ROLE_USER",
            "metadata": {"skill": "greet"}, "parts": [{"data": {"name": "Ada"}}]}}});
    let sent = TestServer::at(base).rpc_with(&body, &[]).await;
    assert!(sent["result"].is_object(), "{sent}");
    let spans = collector
        .until(|spans| send_of(spans, "m-tenant").is_some())
        .await;
    let span = send_of(&spans, "m-tenant").unwrap();
    assert_eq!(span.attribute("a2a.tenant").as_deref(), Some("hello"));
    assert_eq!(
        span.attribute("gen_ai.agent.name").as_deref(),
        Some("hello")
    );
}
