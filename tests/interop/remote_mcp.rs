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
async fn the_official_mcp_client_calls_a_python_mcp_servers_tools_through_the_host() {
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
