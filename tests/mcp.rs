//! MCP over streamable HTTP on a real socket, in both eras.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, response_from, start};
use currency::Currency;
use serde_json::{Value, json};

/// The currency agent, built inside the test crate, for its stdio transport.
const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");

async fn lab() -> TestServer {
    start(Lab.server()).await
}

/// One stateless (2026-07-28) request.
async fn modern(server: &TestServer, method: &str, params: Value) -> (u16, Value) {
    let (status, body) = server.mcp_modern(method, params, json!({})).await;
    (status, response_from(&body))
}

#[tokio::test]
async fn tools_list_is_sorted_with_object_input_schemas_and_output_schemas() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let listed = mcp.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
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
        ]
    );
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
    let add = &tools[0];
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["description"],
        "First addend."
    );
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer");
    assert!(
        tools[1].get("outputSchema").is_none(),
        "text skills have no output schema"
    );
}

#[tokio::test]
async fn tools_call_returns_structured_content_with_a_text_mirror() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
        )
        .await;
    let result = &called["result"];
    assert_eq!(result["structuredContent"], json!({"sum": 42}));
    let mirrored: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(mirrored, json!({"sum": 42}));
    assert_eq!(result["isError"], false);
}

#[tokio::test]
async fn skill_errors_and_bad_arguments_are_tool_errors() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let failed = mcp
        .request(
            "tools/call",
            json!({"name": "fail", "arguments": {"reason": "no stock"}}),
        )
        .await;
    assert_eq!(failed["result"]["isError"], true);
    assert_eq!(failed["result"]["content"][0]["text"], "no stock");
    let bad = mcp
        .request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": "two", "b": 1}}),
        )
        .await;
    assert_eq!(bad["result"]["isError"], true);
    let text = bad["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("a:"), "names the field: {text}");
    let missing = mcp
        .request("tools/call", json!({"name": "add", "arguments": {"a": 1}}))
        .await;
    assert!(
        missing["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains('b')
    );
    let panicked = mcp
        .request(
            "tools/call",
            json!({"name": "explode", "arguments": {"why": "boom"}}),
        )
        .await;
    assert_eq!(panicked["result"]["isError"], true);
}

#[tokio::test]
async fn unknown_tool_is_a_jsonrpc_error() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let response = mcp
        .request("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(response["error"]["code"], -32602);
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
}

#[tokio::test]
async fn stateless_era_discovers_and_calls_tools() {
    let server = lab().await;
    let (status, discovered) = modern(&server, "server/discover", json!({})).await;
    assert_eq!(status, 200);
    assert!(
        discovered["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    let (_, listed) = modern(&server, "tools/list", json!({})).await;
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 13);
    let (_, called) = modern(
        &server,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(called["result"]["content"][0]["text"], "hi");
    assert_eq!(called["result"]["resultType"], "complete");
}

#[tokio::test]
async fn foreign_host_header_is_rejected_on_loopback() {
    let server = lab().await;
    let response = server
        .http
        .post(format!("{}mcp", server.base))
        .header("host", "evil.example")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);
}

#[tokio::test]
async fn foreign_origin_is_rejected_and_local_origin_accepted_on_loopback() {
    let server = lab().await;
    let post = |origin: &'static str| {
        server
            .http
            .post(format!("{}mcp", server.base))
            .header("origin", origin)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string())
            .send()
    };
    assert_eq!(
        post("https://evil.example")
            .await
            .unwrap()
            .status()
            .as_u16(),
        403
    );
    assert_eq!(
        post("http://localhost:3000")
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
}

#[tokio::test]
async fn non_object_outputs_are_wrapped_in_result_for_mcp() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let listed = mcp.request("tools/list", json!({})).await;
    let rates = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "rates")
        .unwrap()
        .clone();
    assert_eq!(rates["outputSchema"]["type"], "object");
    assert_eq!(rates["outputSchema"]["required"], json!(["result"]));
    assert_eq!(rates["annotations"]["readOnlyHint"], true);
    let called = mcp
        .request("tools/call", json!({"name": "rates", "arguments": {}}))
        .await;
    assert_eq!(
        called["result"]["structuredContent"]["result"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[tokio::test]
async fn only_advertised_capabilities_are_served() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let init = server.mcp_session_init().await;
    let capabilities = init["result"]["capabilities"].as_object().unwrap();
    // Every agent serves resources (its tasks' artifacts) and completion; this one has no
    // prompts.
    for declared in ["tools", "resources", "completions", "logging"] {
        assert!(capabilities.contains_key(declared), "{declared} in {init}");
    }
    assert_eq!(capabilities["resources"]["subscribe"], true, "{init}");
    assert!(!capabilities.contains_key("prompts"), "{init}");
    for method in ["prompts/list", "prompts/get"] {
        let response = mcp.request(method, json!({"name": "x"})).await;
        assert_eq!(response["error"]["code"], -32601, "{method}: {response}");
    }
    let templates = mcp.request("resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "a2a://tasks/{taskId}/artifacts/{artifactId}",
        "{templates}"
    );
    let (_, discovered) = modern(&server, "server/discover", json!({})).await;
    let declared = discovered["result"]["capabilities"].as_object().unwrap();
    assert!(!declared.contains_key("prompts"), "{discovered}");
    let (_, prompts) = modern(&server, "prompts/list", json!({})).await;
    assert_eq!(prompts["error"]["code"], -32601, "{prompts}");
}

#[tokio::test]
async fn content_and_logging_methods_with_missing_or_malformed_params_are_invalid_params() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let cases = [
        ("resources/read", json!({}), "uri"),
        ("resources/read", json!({"uri": 7}), "uri"),
        ("resources/subscribe", json!({}), "uri"),
        ("prompts/get", json!({"arguments": {}}), "name"),
        ("prompts/get", json!({"name": ["explain"]}), "name"),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt"}}),
            "ref: missing field `name`",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "explain_conversion"}}),
            "argument",
        ),
        ("logging/setLevel", json!({"level": "loud"}), "level"),
        ("logging/setLevel", json!({}), "level"),
    ];
    for (method, params, field) in cases {
        let response = mcp.request(method, params.clone()).await;
        assert_eq!(
            response["error"]["code"], -32602,
            "{method} {params}: {response}"
        );
        let message = response["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{method} {params}: {message}");
    }
    // Without params at all, too.
    let bare = mcp
        .send_envelope(json!({"jsonrpc": "2.0", "id": "r1", "method": "resources/read"}))
        .await;
    let bare = response_from(&bare.text().await.unwrap());
    assert_eq!(bare["error"]["code"], -32602, "{bare}");
    // The stateless revision answers the same.
    let (_, modern_response) = modern(&server, "prompts/get", json!({})).await;
    assert_eq!(
        modern_response["error"]["code"], -32602,
        "{modern_response}"
    );
}

#[tokio::test]
async fn invalid_json_is_http_400_with_a_parse_error() {
    let server = lab().await;
    let response = server
        .http
        .post(format!("{}mcp", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700, "{body}");
}

/// A 2026-07-28 `tools/call` (its method named in `Mcp-Method`) is read by rmcp before the
/// gate; a body rmcp refuses still gets the JSON-RPC error the specification names.
#[tokio::test]
async fn a_malformed_stateless_call_gets_the_json_rpc_error_not_rmcps() {
    let server = lab().await;
    let post = async |body: &str| {
        let headers = [("mcp-name", "add")];
        let (status, text) = server
            .mcp_modern_raw("tools/call", body.to_owned(), &headers)
            .await;
        (status, serde_json::from_str::<Value>(&text).unwrap())
    };
    let (status, body) = post("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32700)),
        "{body}"
    );
    let (status, body) = post(r#"{"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}"#).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32600)),
        "{body}"
    );
    let (status, body) =
        post(r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": [1]}"#).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (200, json!(-32602)),
        "{body}"
    );
    assert_eq!(body["id"], 4, "{body}");
}

#[tokio::test]
async fn wrong_typed_arguments_are_invalid_params_naming_the_field() {
    let server = lab().await;
    let mut mcp = server.mcp_session().await;
    let response = mcp
        .request("tools/call", json!({"name": "add", "arguments": [1, 2]}))
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("params.arguments"), "{message}");
    let (_, modern_response) = modern(
        &server,
        "tools/call",
        json!({"name": "add", "arguments": "a=1"}),
    )
    .await;
    assert_eq!(
        modern_response["error"]["code"], -32602,
        "{modern_response}"
    );
    let message = modern_response["error"]["message"].as_str().unwrap();
    assert!(message.contains("params.arguments"), "{message}");
    // The error answers the request by its id, as sent.
    let unnamed = mcp
        .send_envelope(
            json!({"jsonrpc": "2.0", "id": "call-7", "method": "tools/call",
            "params": {"arguments": {}}}),
        )
        .await;
    let unnamed = response_from(&unnamed.text().await.unwrap());
    assert_eq!(unnamed["id"], "call-7", "{unnamed}");
    assert_eq!(unnamed["error"]["code"], -32602, "{unnamed}");
    let message = unnamed["error"]["message"].as_str().unwrap();
    assert!(message.contains("name"), "{message}");
}

#[tokio::test]
async fn binary_parts_become_image_content() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut mcp = server.mcp_session().await;
    let called = mcp
        .request("tools/call", json!({"name": "chart", "arguments": {}}))
        .await;
    let image = &called["result"]["content"][0];
    assert_eq!(image["type"], "image", "{called}");
    assert_eq!(image["mimeType"], "image/svg+xml");
    assert!(
        image["data"].as_str().unwrap().starts_with("PHN2Zy"),
        "base64 of <svg"
    );
}

/// A stateless call's log messages ride its own response and all of them come before its
/// answer, however quickly the skill logs and returns (the answer closes the stream: a message
/// queued behind it would be lost).
#[tokio::test]
async fn a_stateless_calls_log_messages_all_precede_its_answer() {
    let server = start(Currency::with_reference_rates().server()).await;
    let codes = ["USD", "JPY", "GBP", "CHF", "EUR"];
    for round in 0..5 {
        let call = json!({"name": "report", "arguments": {"currencies": codes, "pace_ms": 0},
                          "_meta": {"io.modelcontextprotocol/logLevel": "info"}});
        let (status, body) = server.mcp_modern("tools/call", call, json!({})).await;
        assert_eq!(status, 200, "{body}");
        assert_logged_then_answered(&body, &codes, round);
    }
}

/// `body`, a `report` call's event stream, logged each of `codes` in order and ended with the
/// call's answer.
fn assert_logged_then_answered(body: &str, codes: &[&str], round: usize) {
    let messages: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    let logged: Vec<&str> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .filter_map(|m| m["params"]["data"]["currency"].as_str())
        .collect();
    assert_eq!(logged, codes, "round {round}: {body}");
    let last = messages.last().unwrap();
    assert!(last["result"].is_object(), "round {round}: {body}");
}

/// In a 2025-11-25 session too, a call's log messages ride its own response, all before its
/// answer (they went through the session's queue to its GET stream, where a client that read
/// the answer first could miss them: the official Python client did, at times).
#[tokio::test]
async fn a_session_calls_log_messages_all_precede_its_answer_on_its_own_stream() {
    let server = start(Currency::with_reference_rates().server()).await;
    let mut session = server.mcp_session().await;
    let codes = ["USD", "JPY", "GBP", "CHF", "EUR"];
    for round in 0..5 {
        let call = json!({"name": "report", "arguments": {"currencies": codes, "pace_ms": 0}});
        let body = session.request_raw("tools/call", call).await;
        assert_logged_then_answered(&body, &codes, round);
    }
}

/// A stdio server's one client is the host that started it: hundreds of pipelined calls are
/// all answered, none refused as busy by limits meant to share a server among callers.
#[tokio::test]
async fn over_stdio_hundreds_of_pipelined_calls_are_all_answered() {
    use tokio::io::AsyncWriteExt as _;
    let a2a_tests::StdioServer {
        child: _child,
        mut stdin,
        mut stdout,
    } = a2a_tests::spawn_stdio(CURRENCY, &["--stdio", "--store", "memory"]);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let mut batch =
        format!("{initialize}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n");
    for id in 1..=400 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "convert",
            "arguments": {"money": {"amount": id, "currency": "USD"}, "to": "EUR"}}});
        batch.push_str(&format!("{call}\n"));
    }
    stdin.write_all(batch.as_bytes()).await.unwrap();
    let mut answered = std::collections::BTreeSet::new();
    let guard = std::time::Duration::from_secs(60);
    while answered.len() < 401 {
        let line = tokio::time::timeout(guard, stdout.next_line()).await;
        let message: Value = serde_json::from_str(&line.unwrap().unwrap().unwrap()).unwrap();
        let Some(id) = message["id"].as_u64() else {
            continue;
        };
        assert!(message.get("error").is_none(), "call {id}: {message}");
        assert_ne!(message["result"]["isError"], true, "call {id}: {message}");
        answered.insert(id);
    }
    assert_eq!(answered.len(), 401);
}

#[tokio::test]
async fn over_stdio_an_oversized_line_and_a_garbage_line_are_answered_and_serving_goes_on() {
    use tokio::io::AsyncWriteExt as _;
    let a2a_tests::StdioServer {
        mut child,
        mut stdin,
        mut stdout,
    } = a2a_tests::spawn_stdio(CURRENCY, &["--stdio", "--store", "memory"]);
    let guard = std::time::Duration::from_secs(30);
    let mut next = async || {
        let line = tokio::time::timeout(guard, stdout.next_line()).await;
        serde_json::from_str::<Value>(&line.unwrap().unwrap().unwrap()).unwrap()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    stdin
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(next().await["id"], 1);
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    // 20 MiB on one line: refused naming the limit, never buffered whole.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{{\"x\":\"{}\"}}}}\n",
        "x".repeat(20 * 1024 * 1024)
    );
    stdin.write_all(huge.as_bytes()).await.unwrap();
    let refused = next().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(
        refused["id"], 2,
        "answered under the request's id: {refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("1048576 bytes") && message.contains("--max-body-bytes"),
        "{message}"
    );
    // The official SDKs write the id before the params (checked above); a client whose
    // serializer puts it last (members have no order) is answered under it too.
    let id_last = format!(
        "{{\"method\":\"tools/call\",\"params\":{{\"name\":\"convert\",\"arguments\":{{\"x\":\"{}\"}}}},\"jsonrpc\":\"2.0\",\"id\":\"last-9\"}}\n",
        "y".repeat(2 * 1024 * 1024)
    );
    stdin.write_all(id_last.as_bytes()).await.unwrap();
    let refused = next().await;
    assert_eq!(refused["id"], "last-9", "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    stdin.write_all(b"this is not json\n").await.unwrap();
    let garbage = next().await;
    assert_eq!(garbage["error"]["code"], -32700, "{garbage}");
    assert_eq!(garbage["id"], Value::Null, "{garbage}");
    // Still serving.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    stdin
        .write_all(format!("{list}\n").as_bytes())
        .await
        .unwrap();
    let listed = next().await;
    assert_eq!(listed["id"], 3, "{listed}");
    assert!(
        listed["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );
    drop(stdin);
    let status = tokio::time::timeout(guard, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}
