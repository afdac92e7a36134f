//! The official MCP Python SDK against our servers: tools with progress over streamable HTTP and
//! stdio, resources and prompts, every bridge tool, questions by elicitation and retry.

use super::*;

#[tokio::test]
async fn official_mcp_client_calls_tools_with_progress_over_streamable_http() {
    require_packages().await;
    let (_server, base) = start_server().await;
    run_python(&[
        script("mcp_client.py").to_str().unwrap(),
        "http",
        &format!("{base}mcp"),
    ])
    .await;
}

#[tokio::test]
async fn official_mcp_client_reads_resources_templates_prompts_and_task_artifacts() {
    require_packages().await;
    let (_server, base) = start_server().await;
    let script = script("mcp_content.py");
    run_python(&[script.to_str().unwrap(), &base]).await;
}

#[tokio::test]
async fn official_mcp_client_calls_tools_with_progress_over_stdio() {
    require_packages().await;
    run_python(&[script("mcp_client.py").to_str().unwrap(), "stdio", SERVER]).await;
}

#[tokio::test]
async fn official_mcp_client_drives_the_currency_agent_through_every_bridge_tool_over_stdio() {
    require_packages().await;
    let (_agent, base) = a2a_tests::spawn_served_with(SERVER, &["--push-allow-private"]).await;
    let mut receiver = Receiver::start(RECEIVER, &[]).await;
    let out = run_python(&[
        script("mcp_bridge.py").to_str().unwrap(),
        BRIDGE,
        &base,
        &receiver.url,
    ])
    .await;
    // The webhook configured through the bridge got the canceled report's updates.
    let task = out.trim().lines().last().unwrap().trim().to_owned();
    let delivered = receiver.accepted_until_terminal().await;
    let last = delivered.last().unwrap();
    assert_eq!(last["taskId"], task.as_str(), "{delivered:#?}");
    assert!(
        last["state"]
            .as_str()
            .unwrap()
            .to_ascii_lowercase()
            .contains("cancel"),
        "{delivered:#?}"
    );
}

#[tokio::test]
async fn official_mcp_client_drives_a_grpc_only_agent_through_every_bridge_tool_over_stdio() {
    require_packages().await;
    let (_agent, base) = a2a_tests::spawn_served_with(SERVER, &["--push-allow-private"]).await;
    // The bridge reads a card naming the agent's gRPC interface alone, so it calls over gRPC.
    let grpc_only = a2a_tests::grpc_only::card_of(&base).await;
    let mut receiver = Receiver::start(RECEIVER, &[]).await;
    let out = run_python(&[
        script("mcp_bridge.py").to_str().unwrap(),
        BRIDGE,
        &grpc_only,
        &receiver.url,
    ])
    .await;
    let task = out.trim().lines().last().unwrap().trim().to_owned();
    let delivered = receiver.accepted_until_terminal().await;
    assert_eq!(delivered.last().unwrap()["taskId"], task.as_str());
}

#[tokio::test]
async fn official_mcp_client_answers_questions_by_elicitation_and_input_required_retry() {
    require_packages().await;
    let (_server, base) = a2a_tests::spawn_served(BOOKING).await;
    run_python(&[
        script("mcp_ask.py").to_str().unwrap(),
        "http",
        &format!("{base}mcp"),
    ])
    .await;
}

#[tokio::test]
async fn official_mcp_client_answers_questions_by_elicitation_over_stdio() {
    require_packages().await;
    run_python(&[script("mcp_ask.py").to_str().unwrap(), "stdio", BOOKING]).await;
}
