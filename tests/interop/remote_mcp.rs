//! An MCP server written with the official Python MCP SDK, fronted by a host twice: over
//! streamable HTTP as `web` and started over stdio as `local`. The official MCP client calls its
//! tools through the host (structured output, progress, elicitation, cancellation, a tool
//! added at run time), and A2A callers call them as skills.

use super::*;

use a2a_runtime::server::Host;

/// The Python MCP server serving streamable HTTP on a port of its own: the child and its
/// endpoint.
async fn python_mcp_over_http() -> (Child, String) {
    require_packages().await;
    let mut child = Command::new(python())
        .args([script("mcp_remote_server.py").to_str().unwrap(), "http"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python runs");
    let stdout = child.stdout.take().expect("piped stdout");
    let port = tokio::time::timeout(
        Duration::from_secs(60),
        BufReader::new(stdout).lines().next_line(),
    )
    .await
    .expect("the Python server printed its port in time")
    .unwrap()
    .expect("it printed its port");
    (child, format!("http://127.0.0.1:{}/mcp", port.trim()))
}

/// A host fronting the Python server over HTTP (`web`) and over stdio (`local`).
async fn fronting_python_mcp() -> (Child, a2a_tests::TestServer) {
    let (server, url) = python_mcp_over_http().await;
    let command = [
        python(),
        script("mcp_remote_server.py").display().to_string(),
        "stdio".into(),
    ];
    let host = Host::new()
        .remote_mcp("web", url)
        .remote_mcp_stdio("local", command)
        .agent("hello", hello::Hello);
    (server, a2a_tests::start_host(host).await)
}

#[tokio::test]
async fn the_official_mcp_client_calls_a_python_mcp_servers_tools_and_reads_its_resources_and_prompts_through_the_host()
 {
    let (_server, host) = fronting_python_mcp().await;
    let driver = script("remote_mcp.py");
    for remote in ["web", "local"] {
        let marker = a2a_tests::scratch_dir().join(format!("{remote}-canceled"));
        let args = [
            driver.to_str().unwrap(),
            &host.base,
            remote,
            marker.to_str().unwrap(),
        ];
        let ran = run_python(&args).await;
        assert!(ran.contains(&format!("{remote} ok")), "{ran}");
    }
}

/// A JSON-RPC `SendMessage` to the agent at `path` on `host`, choosing `skill` with `input`.
async fn send(
    host: &a2a_tests::TestServer,
    path: &str,
    skill: &str,
    part: serde_json::Value,
) -> serde_json::Value {
    let params = json!({"message": {
        "messageId": format!("m-{skill}-{path}"), "role": "ROLE_USER", "parts": [part],
        "metadata": {"skill": skill},
    }});
    host.http
        .post(format!("{}{path}", host.base))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_python_mcp_servers_tools_are_the_skills_of_an_a2a_agent_at_the_host() {
    let (_server, host) = fronting_python_mcp().await;
    for remote in ["web", "local"] {
        let card = host.mounted(remote).card().await;
        assert_eq!(card["name"], "Python Tools", "{card}");
        assert_eq!(card["description"], "Small tools for tests.", "{card}");
        let skills: Vec<_> = card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].clone())
            .collect();
        assert_eq!(
            skills,
            ["add", "ask_city", "count", "grow", "wait"],
            "{card}"
        );
        let path = format!("{remote}/");
        let added = send(&host, &path, "add", json!({"data": {"a": 2, "b": 40}})).await;
        let task = &added["result"]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{added}");
        assert_eq!(
            task["artifacts"][0]["parts"][0]["data"],
            json!({"result": 42}),
            "{added}"
        );
        // The remote's elicitation is the A2A task's question; the answer goes back to it.
        let asked = send(&host, &path, "ask_city", json!({"data": {}})).await;
        let task = &asked["result"]["task"];
        assert_eq!(
            task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{asked}"
        );
        assert!(
            task["status"]["message"]
                .to_string()
                .contains("Which city?"),
            "{asked}"
        );
        let answer = json!({"message": {
            "messageId": format!("answer-{remote}"), "role": "ROLE_USER", "taskId": task["id"],
            "parts": [{"data": {"city": "Porto"}}],
        }});
        let answered = host.mounted(remote).rpc("SendMessage", answer).await;
        let task = &answered["result"]["task"];
        assert_eq!(
            task["status"]["state"], "TASK_STATE_COMPLETED",
            "{answered}"
        );
        assert!(task.to_string().contains("You chose Porto"), "{answered}");
        // Input the tool's schema refuses is refused at the host, naming the field.
        let refused = send(&host, &path, "add", json!({"data": {"a": "two", "b": 1}})).await;
        assert!(refused.to_string().contains('a'), "{refused}");
        assert!(
            refused["error"].is_object()
                || refused["result"]["task"]["status"]["state"] == "TASK_STATE_FAILED",
            "{refused}"
        );
    }
}

/// The command starting the misbehaving Python server over stdio.
fn hostile_command() -> Vec<String> {
    let script = script("mcp_remote_server.py").display().to_string();
    vec![python(), script, "hostile".into()]
}

/// Calls `tool` of the agent `id` on `host` over MCP (2026-07-28): its result.
async fn call_tool(
    host: &a2a_tests::TestServer,
    id: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let params = json!({"name": tool, "arguments": arguments});
    let (status, body) = host
        .mounted(id)
        .mcp_modern("tools/call", params, json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    a2a_tests::response_from(&body)
}

#[tokio::test]
async fn a_misbehaving_mcp_server_fails_its_own_callers_in_time_and_the_host_serves_on() {
    use a2a_runtime::remote::{McpSource, RemoteMcpSettings};
    require_packages().await;
    let settings = RemoteMcpSettings {
        timeout: Duration::from_secs(2),
        ..RemoteMcpSettings::default()
    };
    let mut host = Host::new().agent("hello", hello::Hello);
    for id in ["hang", "garble", "flood", "crash"] {
        let source = McpSource::Stdio(hostile_command());
        host = host.remote_mcp_with(id, source, settings.clone());
    }
    let host = a2a_tests::start_host(host).await;
    for id in ["hang", "garble", "flood", "crash"] {
        let started = std::time::Instant::now();
        let called = call_tool(&host, id, id, json!({})).await;
        let result = &called["result"];
        assert_eq!(result["isError"], true, "{id}: {called}");
        // The 100 MB line is dropped unread past the bound; whatever the remote says after it
        // (its own error, or nothing until the timeout) is what its caller gets.
        let said = result["content"][0]["text"].as_str().unwrap_or_default();
        let named = said.contains(&format!("remote MCP server `{id}`"));
        assert!(named || id == "flood", "{id}: {called}");
        // Within the call timeout, and a few seconds' grace on a loaded machine.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{id} took {:?}",
            started.elapsed()
        );
        let greeted = call_tool(&host, "hello", "greet", json!({"name": "Ada"})).await;
        assert_eq!(greeted["result"]["isError"], false, "after {id}: {greeted}");
    }
}

/// Whether the process `pid` still runs.
fn alive(pid: u64) -> bool {
    let mut probe = std::process::Command::new("kill");
    probe.args(["-0", &pid.to_string()]).stderr(Stdio::null());
    probe.status().is_ok_and(|status| status.success())
}

/// The pid the remote `tools` answers with, once it answers (a restarted process takes a
/// moment).
async fn remote_pid(host: &a2a_tests::TestServer, other_than: u64) -> u64 {
    for _ in 0..200 {
        let called = call_tool(host, "tools", "pid", json!({})).await;
        if let Some(pid) = called["result"]["structuredContent"]["result"].as_u64()
            && pid != other_than
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the remote never answered with a pid other than {other_than}");
}

#[tokio::test]
async fn a_stdio_mcp_server_that_exits_is_started_again_and_is_stopped_with_the_host() {
    require_packages().await;
    let stop = a2a_runtime::server::CancellationToken::new();
    let host = Host::new()
        .remote_mcp_stdio("tools", hostile_command())
        .agent("hello", hello::Hello)
        .shutdown_signal(stop.clone());
    let host = a2a_tests::start_host(host).await;
    let first = remote_pid(&host, 0).await;
    let killed = std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status();
    assert!(killed.unwrap().success());
    let second = remote_pid(&host, first).await;
    assert!(alive(second));
    stop.cancel();
    for _ in 0..100 {
        if !alive(second) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server's process {second} outlived the host");
}
