//! Authentication and ownership over MCP: discovery before credentials, tools listed by scope,
//! tasks, retries and artifacts that belong to their caller.

use super::*;

#[tokio::test]
async fn mcp_discovery_works_before_authentication_and_calls_need_it() {
    let server = start(secured()).await;
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "tests", "version": "1"}});
    let (status, _, body) = mcp(&server, Auth::None, "initialize", init.clone()).await;
    assert_eq!(status, 200, "{body}");
    // A stale token does not fail an unauthenticated method.
    let (status, _, body) = mcp(
        &server,
        Auth::Bearer("stale.token.here"),
        "initialize",
        init,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, challenges, body) = mcp(
        &server,
        Auth::None,
        "tools/call",
        json!({"name": "whoami", "arguments": {}}),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    let metadata_url = format!("{}.well-known/oauth-protected-resource/mcp", server.base);
    assert!(
        challenges
            .iter()
            .any(|c| c.starts_with("Bearer") && c.contains(&metadata_url)),
        "{challenges:?}"
    );
    let metadata: Value = server
        .http
        .get(&metadata_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], format!("{}mcp", server.base));
    assert_eq!(metadata["scopes_supported"], json!(["vault:open"]));
    assert_eq!(
        metadata["authorization_servers"],
        json!(["https://issuer.test"])
    );
}

#[tokio::test]
async fn mcp_lists_only_the_tools_the_caller_may_call_and_refuses_the_rest_with_403() {
    let server = start(secured()).await;
    let reader = token("gina", "vault:read");
    let (status, _, body) = mcp(&server, Auth::Bearer(&reader), "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"whoami") && !names.contains(&"open"),
        "{names:?}"
    );
    let (status, challenges, body) = mcp(
        &server,
        Auth::Bearer(&reader),
        "tools/call",
        json!({"name": "open", "arguments": {"item": "gold"}}),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenges
            .iter()
            .any(|c| c.contains("insufficient_scope") && c.contains("vault:open")),
        "{challenges:?}"
    );
    let opener = token("gina", "vault:open");
    let (status, _, body) = mcp(
        &server,
        Auth::Bearer(&opener),
        "tools/call",
        json!({"name": "whoami", "arguments": {}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["content"][0]["text"], "gina via bearer [vault:open]",
        "{body}"
    );
}

#[tokio::test]
async fn mcp_tasks_belong_to_their_caller() {
    let server = start(secured().mcp_task_after(Duration::ZERO)).await;
    let (alice, bob) = (Auth::Key(ALICE_KEY), Auth::Key(BOB_KEY));
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let (_, _, created) = mcp_as(
        &server,
        alice,
        "tools/call",
        json!({"name": "hold", "arguments": {}}),
        tasks.clone(),
    )
    .await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    for method in ["tasks/get", "tasks/cancel"] {
        let (_, _, body) = mcp_as(
            &server,
            bob,
            method,
            json!({"taskId": task_id}),
            tasks.clone(),
        )
        .await;
        assert!(body["error"]["code"].is_i64(), "{method}: {body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&task_id),
            "{body}"
        );
    }
    // Not over A2A either: the MCP task is in the same store, owned the same way.
    let (_, _, body) = rpc(&server, bob, "GetTask", json!({"id": task_id})).await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
    let (_, _, body) = mcp_as(
        &server,
        alice,
        "tasks/get",
        json!({"taskId": task_id}),
        tasks.clone(),
    )
    .await;
    assert_eq!(body["result"]["status"], "working", "{body}");
    let (_, _, body) = mcp_as(
        &server,
        alice,
        "tasks/cancel",
        json!({"taskId": task_id}),
        tasks,
    )
    .await;
    assert!(body["error"].is_null(), "{body}");
}

/// An MRTR retry answers only the call of the caller that made it.
#[tokio::test]
async fn an_input_required_retry_answers_only_its_callers_call() {
    let server = start(secured().mcp_task_after(Duration::ZERO)).await;
    let (alice, bob) = (Auth::Key(ALICE_KEY), Auth::Key(BOB_KEY));
    let forms = json!({"elicitation": {"form": {}}});
    let (_, _, asked) = mcp_as(
        &server,
        alice,
        "tools/call",
        json!({"name": "confirm", "arguments": {}}),
        forms.clone(),
    )
    .await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let key = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let retry = json!({
        "name": "confirm",
        "arguments": {},
        "requestState": result["requestState"],
        "inputResponses": {key: {"action": "accept", "content": {"answer": true}}},
    });
    let (_, _, body) = mcp_as(&server, bob, "tools/call", retry.clone(), forms.clone()).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["error"]["data"]["field"], "requestState", "{body}");
    let (_, _, body) = mcp_as(&server, alice, "tools/call", retry, forms).await;
    assert_eq!(
        body["result"]["content"][0]["text"], "answered true",
        "{body}"
    );
}

#[tokio::test]
async fn a_task_artifact_resource_is_readable_by_its_owner_only() {
    let server = start(secured()).await;
    let (alice, bob) = (Auth::Key(ALICE_KEY), Auth::Key(BOB_KEY));
    let send = json!({"message": {"messageId": "m", "role": "ROLE_USER",
        "parts": [{"text": "ignored"}], "metadata": {"skill": "whoami"}}});
    let (_, _, body) = rpc(&server, alice, "SendMessage", send).await;
    let task = &body["result"]["task"];
    let uri = format!(
        "a2a://tasks/{}/artifacts/{}",
        task["id"].as_str().unwrap(),
        task["artifacts"][0]["artifactId"].as_str().unwrap()
    );
    let (_, _, read) = mcp(&server, alice, "resources/read", json!({"uri": uri})).await;
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("alice via"), "{read}");
    // Bob learns nothing, not even that the task exists.
    let (_, _, read) = mcp(&server, bob, "resources/read", json!({"uri": uri})).await;
    assert_eq!(read["error"]["code"], -32602, "{read}");
    assert_eq!(read["error"]["data"]["uri"], uri.as_str(), "{read}");
    // And without credentials MCP is refused before anything is read.
    let (status, _, _) = mcp(&server, Auth::None, "resources/read", json!({"uri": uri})).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_skill_client_over_mcp_calls_as_its_credential() {
    use a2a_runtime::client::{ClientError, McpCredential, SkillClient};
    let server = start(secured()).await;
    let url = format!("{}mcp", server.base);
    let whoami =
        |skills: SkillClient| async move { skills.call("whoami", Default::default()).await };
    let mut claims = tokens::claims("carol", "");
    claims["iss"] = json!("https://issuer.test");
    claims["aud"] = json!("vault");
    let bearer = McpCredential::Bearer(tokens::hs256(&claims));
    let skills = SkillClient::connect_mcp_as(&url, bearer).await.unwrap();
    let answer = whoami(skills).await.unwrap();
    assert!(
        answer.as_str().unwrap().starts_with("carol via "),
        "{answer}"
    );
    let key = McpCredential::Header("X-API-Key".into(), ALICE_KEY.into());
    let skills = SkillClient::connect_mcp_as(&url, key).await.unwrap();
    let answer = whoami(skills).await.unwrap();
    assert!(
        answer.as_str().unwrap().starts_with("alice via "),
        "{answer}"
    );
    // Without one the call is refused by the endpoint, not by the skill.
    let anonymous = SkillClient::connect_mcp(&url).await.unwrap();
    let refused = whoami(anonymous).await.unwrap_err();
    assert!(matches!(refused, ClientError::Mcp { .. }), "{refused}");
    // A header that cannot be sent is refused before anything is, naming it.
    let bad = McpCredential::Header("X-API-Key".into(), "line\nbreak".into());
    let refused = SkillClient::connect_mcp_as(&url, bad).await.unwrap_err();
    assert!(refused.to_string().contains("X-API-Key"), "{refused}");
}
