//! Authentication, per-skill scopes and task ownership over real sockets: API keys, HS256 and
//! JWKS-verified JWTs, on every A2A binding and on MCP.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::AgentServer;
use a2a_runtime::auth::{ApiKeys, JwtConfig};
use a2a_tests::tokens::{self, JwksServer, SECRET};
use a2a_tests::vault::Vault;
use a2a_tests::{TestServer, start};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};

/// What a token's header must say (`typ`, `crit`).
#[path = "auth/token_headers.rs"]
mod token_headers;

const ALICE_KEY: &str = "alice-key-0123456789";
const BOB_KEY: &str = "bob-key-9876543210abc";

fn keys() -> ApiKeys {
    ApiKeys::parse(&format!("alice={ALICE_KEY},bob={BOB_KEY}")).unwrap()
}

fn secured() -> AgentServer {
    Vault.server().api_keys(keys()).jwt(
        JwtConfig::hs256(SECRET)
            .issuer("https://issuer.test")
            .audience("vault"),
    )
}

/// Credentials sent with a request.
#[derive(Clone, Copy)]
enum Auth<'a> {
    None,
    Key(&'a str),
    Bearer(&'a str),
}

fn with(request: reqwest::RequestBuilder, auth: Auth<'_>) -> reqwest::RequestBuilder {
    match auth {
        Auth::None => request,
        Auth::Key(key) => request.header("X-API-Key", key),
        Auth::Bearer(token) => request.bearer_auth(token),
    }
}

/// A JSON-RPC call: status, `WWW-Authenticate` values and body.
async fn rpc(
    server: &TestServer,
    auth: Auth<'_>,
    method: &str,
    params: Value,
) -> (u16, Vec<String>, Value) {
    rpc_with(server, auth, &[("A2A-Version", "1.0")], method, params).await
}

/// [`rpc`] with these headers (and no `A2A-Version` unless they name one).
async fn rpc_with(
    server: &TestServer,
    auth: Auth<'_>,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> (u16, Vec<String>, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(with(request, auth).send().await.unwrap()).await
}

async fn answer(response: reqwest::Response) -> (u16, Vec<String>, Value) {
    let status = response.status().as_u16();
    let challenges = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let text = response.text().await.unwrap();
    (
        status,
        challenges,
        serde_json::from_str(&text).unwrap_or(json!({"raw": text})),
    )
}

fn message(skill: &str, data: Value) -> Value {
    json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": data}],
                        "metadata": {"skill": skill}}})
}

fn text_of(task: &Value) -> String {
    task["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn token(sub: &str, scope: &str) -> String {
    let mut claims = tokens::claims(sub, scope);
    claims["iss"] = json!("https://issuer.test");
    claims["aud"] = json!("vault");
    tokens::hs256(&claims)
}

#[tokio::test]
async fn requests_without_credentials_get_401_with_every_schemes_challenge() {
    let server = start(secured()).await;
    let (status, challenges, body) = rpc(
        &server,
        Auth::None,
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(
        challenges.iter().any(|c| c.starts_with("ApiKey")),
        "{challenges:?}"
    );
    assert!(
        challenges.iter().any(|c| c.starts_with("Bearer")),
        "{challenges:?}"
    );
    assert_eq!(
        body["error"]["data"][0]["reason"], "UNAUTHENTICATED",
        "{body}"
    );
    // HTTP+JSON answers a google.rpc.Status.
    let response = server
        .http
        .get(format!("{}tasks", server.base))
        .send()
        .await
        .unwrap();
    let (status, challenges, body) = answer(response).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["status"], "UNAUTHENTICATED", "{body}");
    assert!(!challenges.is_empty());
    // The card stays public.
    let card = server.card().await;
    assert_eq!(card["name"], "Vault");
}

#[tokio::test]
async fn a_wrong_api_key_is_refused_and_a_right_one_names_its_principal() {
    let server = start(secured()).await;
    let (status, challenges, body) = rpc(
        &server,
        Auth::Key("not-a-key-at-all-123"),
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(
        challenges.iter().any(|c| c.contains("invalid_key")),
        "{challenges:?}"
    );
    let (status, _, body) = rpc(
        &server,
        Auth::Key(ALICE_KEY),
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        text_of(&body["result"]["task"]),
        "alice via apiKey []",
        "{body}"
    );
}

#[tokio::test]
async fn a_token_without_the_skills_scope_gets_403_naming_it_on_every_binding() {
    let server = start(secured()).await;
    let reader = token("carol", "vault:read");
    let (status, challenges, body) = rpc(
        &server,
        Auth::Bearer(&reader),
        "SendMessage",
        message("open", json!({"item": "gold"})),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenges
            .iter()
            .any(|c| c.contains("insufficient_scope") && c.contains("vault:open")),
        "{challenges:?}"
    );
    assert_eq!(
        body["error"]["data"][0]["reason"], "PERMISSION_DENIED",
        "{body}"
    );
    // HTTP+JSON 1.0 and 0.3.
    for path in ["message:send", "v1/message:send"] {
        let body = if path.starts_with("v1") {
            json!({"message": {"messageId": "m", "role": "ROLE_USER",
                   "content": [{"data": {"data": {"item": "gold"}}}],
                   "metadata": {"skill": "open"}}})
        } else {
            message("open", json!({"item": "gold"}))
        };
        let response = server
            .http
            .post(format!("{}{path}", server.base))
            .header("content-type", "application/json")
            .bearer_auth(&reader)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let (status, _, body) = answer(response).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(
            body["error"]["status"], "PERMISSION_DENIED",
            "{path}: {body}"
        );
    }
    // With the scope the call succeeds and the skill sees the principal and scopes.
    let opener = token("carol", "vault:open vault:read");
    let (status, _, body) = rpc(
        &server,
        Auth::Bearer(&opener),
        "SendMessage",
        message("open", json!({"item": "gold"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body["result"]["task"]), "took gold", "{body}");
    let (_, _, body) = rpc(
        &server,
        Auth::Bearer(&opener),
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(
        text_of(&body["result"]["task"]),
        "carol via bearer [vault:open vault:read]",
        "{body}"
    );
}

#[tokio::test]
async fn expired_future_wrong_or_missing_audience_and_issuer_tokens_are_refused_by_name() {
    let server = start(secured()).await;
    let base = |claims: &mut Value| {
        claims["iss"] = json!("https://issuer.test");
        claims["aud"] = json!("vault");
    };
    type Spoil = fn(&mut Value);
    fn remove(claims: &mut Value, claim: &str) {
        claims.as_object_mut().unwrap().remove(claim);
    }
    let cases: [(&str, Spoil); 6] = [
        ("expired", |c| c["exp"] = json!(tokens::now() - 3600)),
        ("not valid yet", |c| c["nbf"] = json!(tokens::now() + 3600)),
        ("`aud` does not", |c| c["aud"] = json!("someone-else")),
        ("`iss` is not", |c| c["iss"] = json!("https://evil.test")),
        // A configured audience or issuer is required, not only checked when present.
        ("no `aud` claim", |c| remove(c, "aud")),
        ("no `iss` claim", |c| remove(c, "iss")),
    ];
    for (expected, spoil) in cases {
        let mut claims = tokens::claims("dave", "");
        base(&mut claims);
        spoil(&mut claims);
        let token = tokens::hs256(&claims);
        let (status, challenges, body) =
            rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 401, "{expected}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{expected}: {message}");
        assert!(
            challenges.iter().any(|c| c.contains("invalid_token")),
            "{challenges:?}"
        );
    }
}

#[tokio::test]
async fn a_cached_token_is_still_refused_once_it_expires() {
    // Verified once, trusted from the cache afterwards: its `exp` is still checked every time.
    let jwt = JwtConfig::hs256(SECRET).leeway(Duration::ZERO);
    let server = start(Vault.server().api_keys(keys()).jwt(jwt)).await;
    let mut claims = tokens::claims("hal", "");
    claims["exp"] = json!(tokens::now() + 2);
    let token = tokens::hs256(&claims);
    for _ in 0..2 {
        let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{body}"
    );
}

#[tokio::test]
async fn jwks_keys_verify_rs256_and_es256_and_a_rotated_key_is_fetched() {
    let (rsa1, rsa2, ec) = (tokens::rsa_key(1), tokens::rsa_key(2), tokens::ec_key());
    let jwks = JwksServer::start(vec![
        tokens::jwk(Algorithm::RS256, &rsa1),
        tokens::jwk(Algorithm::ES256, &ec),
    ])
    .await;
    let server = start(
        Vault
            .server()
            .api_keys(keys())
            .jwt(JwtConfig::jwks(&jwks.url)),
    )
    .await;
    let claims = tokens::claims("erin", "");
    for token in [
        tokens::signed(Algorithm::RS256, &rsa1, &claims),
        tokens::signed(Algorithm::ES256, &ec, &claims),
    ] {
        let (status, _, body) = rpc(
            &server,
            Auth::Bearer(&token),
            "SendMessage",
            message("whoami", json!({})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(text_of(&body["result"]["task"]), "erin via bearer []");
    }
    assert_eq!(jwks.fetches(), 1, "the set is cached");
    // An unknown kid is refused by name.
    let rotated = tokens::signed(Algorithm::RS256, &rsa2, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&rotated), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("rsa-2"),
        "{body}"
    );
    // The provider rotates to key 2: after the refetch cool-down the new kid is fetched.
    jwks.rotate(vec![tokens::jwk(Algorithm::RS256, &rsa2)]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, _, body) = rpc(&server, Auth::Bearer(&rotated), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    // A token signed with HMAC over the public key is not accepted (algorithm confusion).
    let forged = tokens::hs256(&claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&forged), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn jwks_tokens_without_the_configured_audience_or_issuer_are_refused() {
    let rsa = tokens::rsa_key(1);
    let jwks = JwksServer::start(vec![tokens::jwk(Algorithm::RS256, &rsa)]).await;
    let config = JwtConfig::jwks(&jwks.url)
        .issuer("https://issuer.test")
        .audience("vault");
    let server = start(Vault.server().api_keys(keys()).jwt(config)).await;
    let mut claims = tokens::claims("gina", "");
    claims["iss"] = json!("https://issuer.test");
    claims["aud"] = json!(["other", "vault"]);
    let good = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&good), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    for claim in ["aud", "iss"] {
        let mut spoiled = claims.clone();
        spoiled.as_object_mut().unwrap().remove(claim);
        let token = tokens::signed(Algorithm::RS256, &rsa, &spoiled);
        let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 401, "{claim}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("no `{claim}` claim")),
            "{message}"
        );
    }
}

#[tokio::test]
async fn openid_connect_discovery_finds_the_keys_and_the_issuer() {
    let rsa = tokens::rsa_key(1);
    let jwks = JwksServer::start(vec![tokens::jwk(Algorithm::RS256, &rsa)]).await;
    let discovery = format!("{}/.well-known/openid-configuration", jwks.issuer());
    let server = start(
        Vault
            .server()
            .api_keys(keys())
            .jwt(JwtConfig::discover(discovery)),
    )
    .await;
    let mut claims = tokens::claims("frank", "");
    claims["iss"] = json!(jwks.issuer());
    let good = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&good), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    claims["iss"] = json!("https://elsewhere.test");
    let foreign = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&foreign), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn another_callers_task_is_not_found_for_every_operation() {
    let server = start(secured()).await;
    let (alice, bob) = (Auth::Key(ALICE_KEY), Auth::Key(BOB_KEY));
    let mut held = message("hold", json!({}));
    held["configuration"] = json!({"returnImmediately": true});
    let (_, _, body) = rpc(&server, alice, "SendMessage", held).await;
    let task_id = body["result"]["task"]["id"].as_str().unwrap().to_owned();
    let (_, _, body) = rpc(&server, alice, "SendMessage", message("confirm", json!({}))).await;
    let asking = body["result"]["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );

    let not_found = |body: &Value| body["error"]["code"] == -32001;
    let (_, _, body) = rpc(&server, bob, "GetTask", json!({"id": task_id})).await;
    assert!(not_found(&body), "get: {body}");
    let (_, _, body) = rpc(&server, bob, "CancelTask", json!({"id": task_id})).await;
    assert!(not_found(&body), "cancel: {body}");
    let (_, _, body) = rpc(&server, bob, "ListTasks", json!({})).await;
    assert_eq!(body["result"]["totalSize"], 0, "list: {body}");
    let response = server
        .http
        .post(format!("{}tasks/{task_id}:subscribe", server.base))
        .header("X-API-Key", BOB_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404, "subscribe");
    let answer_body = json!({"message": {"messageId": "a", "role": "ROLE_USER",
        "taskId": asking, "parts": [{"data": true}]}});
    let (_, _, body) = rpc(&server, bob, "SendMessage", answer_body.clone()).await;
    assert!(not_found(&body), "answer: {body}");
    // Alice still sees, answers and cancels her own.
    let (_, _, body) = rpc(&server, alice, "ListTasks", json!({})).await;
    assert_eq!(body["result"]["totalSize"], 2, "{body}");
    let (_, _, body) = rpc(&server, alice, "SendMessage", answer_body).await;
    assert_eq!(text_of(&body["result"]["task"]), "answered true", "{body}");
    let (_, _, body) = rpc(&server, alice, "CancelTask", json!({"id": task_id})).await;
    assert_eq!(
        body["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{body}"
    );
}

/// An MCP request: `initialize` as a 2025-11-25 client, anything else statelessly (2026-07-28).
async fn mcp(
    server: &TestServer,
    auth: Auth<'_>,
    method: &str,
    params: Value,
) -> (u16, Vec<String>, Value) {
    mcp_as(server, auth, method, params, json!({})).await
}

/// [`mcp`] from a client declaring `capabilities`.
async fn mcp_as(
    server: &TestServer,
    auth: Auth<'_>,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> (u16, Vec<String>, Value) {
    let version = if method == "initialize" {
        "2025-11-25"
    } else {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        "2026-07-28"
    };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = server
        .http
        .post(format!("{}mcp", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", version)
        .header("mcp-method", method)
        .body(body.to_string());
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .or_else(|| params.get("uri"));
    if let Some(name) = name.and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    let response = with(request, auth).send().await.unwrap();
    let (status, challenges, body) = answer(response).await;
    // Streamable HTTP may answer with one SSE event.
    let body = match body["raw"].as_str() {
        Some(raw) => raw
            .lines()
            .find_map(|line| line.strip_prefix("data:"))
            .and_then(|data| serde_json::from_str(data.trim()).ok())
            .unwrap_or(body),
        None => body,
    };
    (status, challenges, body)
}

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
async fn the_card_publishes_the_schemes_and_each_skills_requirements() {
    let server = start(secured()).await;
    let card = server.card().await;
    assert_eq!(
        card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"],
        json!({"location": "header", "name": "X-API-Key"}),
        "{card}"
    );
    assert_eq!(
        card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"],
        json!({"scheme": "Bearer", "bearerFormat": "JWT"}),
        "{card}"
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"apiKey": {"list": []}}}, {"schemes": {"bearer": {"list": []}}}]),
        "{card}"
    );
    let open = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "open")
        .unwrap();
    assert_eq!(
        open["securityRequirements"],
        json!([{"schemes": {"bearer": {"list": ["vault:open"]}}}]),
        "{open}"
    );
    // The v0.3 view of the same data.
    assert_eq!(
        card["securitySchemes"]["apiKey"]["type"], "apiKey",
        "{card}"
    );
    assert_eq!(
        open["security"],
        json!([{"bearer": ["vault:open"]}]),
        "{open}"
    );
    assert_eq!(
        card["security"],
        json!([{"apiKey": []}, {"bearer": []}]),
        "{card}"
    );
}

#[tokio::test]
async fn a_declared_scheme_with_nothing_to_verify_it_is_a_startup_error() {
    // `security(api_key, bearer)` in code, keys configured, no JWT secret or JWKS.
    let error = Vault
        .server()
        .api_keys(keys())
        .router()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`bearer`") && error.contains("A2A_JWT_SECRET"),
        "{error}"
    );
    // Nothing configured: the first declared scheme says what to set.
    let error = Vault.server().router().unwrap_err().to_string();
    assert!(
        error.contains("`apiKey`") && error.contains("A2A_API_KEYS"),
        "{error}"
    );
}

#[tokio::test]
async fn mcp_tasks_and_retries_belong_to_their_caller() {
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

    // An MRTR retry answers only the call of the caller that made it.
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
async fn authenticated_callers_read_the_extended_card_with_its_extended_only_skills() {
    let server = start(secured()).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true, "{card}");
    let ids = |card: &Value| -> Vec<String> {
        card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!ids(&card).contains(&"audit".to_owned()), "{card}");
    let schemas = &card["capabilities"]["extensions"][0]["params"]["skills"];
    assert!(schemas.get("audit").is_none(), "{schemas}");

    let alice = Auth::Key(ALICE_KEY);
    let (status, _, body) = rpc(&server, alice, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(ids(&body["result"]).contains(&"audit".to_owned()), "{body}");
    // The 0.3 method and both HTTP+JSON forms answer the same card.
    let (_, _, body) = rpc_with(
        &server,
        alice,
        &[],
        "agent/getAuthenticatedExtendedCard",
        json!({}),
    )
    .await;
    assert!(ids(&body["result"]).contains(&"audit".to_owned()), "{body}");
    for path in ["extendedAgentCard", "v1/card"] {
        let request = server.http.get(format!("{}{path}", server.base));
        let (status, _, body) = answer(with(request, alice).send().await.unwrap()).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(ids(&body).contains(&"audit".to_owned()), "{path}: {body}");
        let request = server.http.get(format!("{}{path}", server.base));
        let (status, challenges, _) = answer(with(request, Auth::None).send().await.unwrap()).await;
        assert_eq!(status, 401, "{path}");
        assert!(!challenges.is_empty(), "{path}");
    }
    // Hidden from the public card, not from callers: it is called like any skill.
    let (_, _, body) = rpc(&server, alice, "SendMessage", message("audit", json!({}))).await;
    assert_eq!(text_of(&body["result"]["task"]), "3 items", "{body}");
}

#[tokio::test]
async fn an_agent_without_security_has_no_extended_card() {
    let server = start(a2a_tests::talker::Talker::default().server()).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], false, "{card}");
    let (_, _, body) = rpc(&server, Auth::None, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(body["error"]["code"], -32004, "{body}");
}

#[tokio::test]
async fn the_callers_trace_context_reaches_the_skill_on_both_protocols() {
    let server = start(secured()).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let traced = |traceparent| [("A2A-Version", "1.0"), ("traceparent", traceparent)];
    let alice = Auth::Key(ALICE_KEY);
    let params = message("traced", json!({}));
    let (_, _, body) = rpc_with(
        &server,
        alice,
        &traced(traceparent),
        "SendMessage",
        params.clone(),
    )
    .await;
    assert_eq!(
        text_of(&body["result"]["task"]),
        "4bf92f3577b34da6a3ce929d0e0e4736/00f067aa0ba902b7",
        "{body}"
    );
    // MCP: the same header on the tool call.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "traced", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        ("mcp-name", "traced"),
        ("X-API-Key", ALICE_KEY),
        ("traceparent", traceparent),
    ];
    let (_, text) = server
        .mcp_modern_raw("tools/call", call.to_string(), &headers)
        .await;
    assert!(
        text.contains("4bf92f3577b34da6a3ce929d0e0e4736/00f067aa0ba902b7"),
        "{text}"
    );
    // A malformed traceparent is ignored, not an error.
    let malformed = traced("00-not-a-trace-01");
    let (status, _, body) = rpc_with(&server, alice, &malformed, "SendMessage", params).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body["result"]["task"]), "untraced", "{body}");
}

#[tokio::test]
async fn only_the_owner_can_authorize_its_task_out_of_band() {
    let server = secured();
    let tasks = server.tasks();
    let server = start(server).await;
    let (_, _, body) = rpc(
        &server,
        Auth::Key(ALICE_KEY),
        "SendMessage",
        message("signin", json!({})),
    )
    .await;
    let task = &body["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_AUTH_REQUIRED",
        "{body}"
    );
    let id = task["id"].as_str().unwrap();
    let bob = a2a_runtime::auth::Caller::authenticated("apiKey", "bob");
    let refused = tasks.authorize(id, &bob, json!({"user": "bob"})).await;
    assert!(
        matches!(refused, Err(a2a_runtime::server::TasksError::NotFound(_))),
        "{refused:?}"
    );
    let alice = a2a_runtime::auth::Caller::authenticated("apiKey", "alice");
    tasks.authorize(id, &alice, json!("alice")).await.unwrap();
    let (_, _, body) = rpc(&server, Auth::Key(ALICE_KEY), "GetTask", json!({"id": id})).await;
    let state = body["result"]["status"]["state"].as_str().unwrap();
    assert!(
        ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"].contains(&state),
        "{body}"
    );
}

#[tokio::test]
async fn an_answer_needs_the_skills_scopes_as_the_call_did() {
    let server = start(secured()).await;
    let opener = token("ivy", "vault:open");
    let (_, _, body) = rpc(
        &server,
        Auth::Bearer(&opener),
        "SendMessage",
        message("withdraw", json!({})),
    )
    .await;
    let task_id = body["result"]["task"]["id"].as_str().unwrap().to_owned();
    let answer = json!({"message": {"messageId": "a", "role": "ROLE_USER",
        "taskId": task_id, "parts": [{"data": 20}]}});
    // The same principal, with a token that has lost the scope since.
    let reader = token("ivy", "vault:read");
    let (status, _, body) = rpc(
        &server,
        Auth::Bearer(&reader),
        "SendMessage",
        answer.clone(),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], -32043, "{body}");
    let (_, _, body) = rpc(&server, Auth::Bearer(&opener), "SendMessage", answer).await;
    assert_eq!(text_of(&body["result"]["task"]), "withdrew 20", "{body}");
}

/// A scheme of the application's own: the caller names itself in `X-Session` (a stand-in for
/// a session cookie checked against an application's store).
struct SessionAuth;

impl a2a_runtime::auth::Authenticator for SessionAuth {
    fn authenticate<'a>(
        &'a self,
        request: &'a a2a_runtime::axum::http::request::Parts,
    ) -> a2a_runtime::store::BoxFuture<
        'a,
        Result<Option<a2a_runtime::auth::Caller>, a2a_runtime::auth::AuthError>,
    > {
        let outcome = match request.headers.get("x-session").map(|v| v.to_str()) {
            None => Ok(None),
            Some(Ok(name)) if name.starts_with("s-") => Ok(Some(
                a2a_runtime::auth::Caller::authenticated("session", &name[2..])
                    .with_scopes(["vault:open"]),
            )),
            Some(_) => Err(a2a_runtime::auth::AuthError::invalid("unknown session")),
        };
        Box::pin(std::future::ready(outcome))
    }

    fn challenge(&self, _error: Option<&a2a_runtime::auth::AuthError>) -> String {
        "Session realm=\"vault\"".into()
    }
}

#[tokio::test]
async fn a_custom_authenticator_is_one_more_scheme() {
    use a2a_runtime::auth::{ApiKeyLocation, NamedScheme, SecurityScheme};
    let scheme = NamedScheme::new(
        "session",
        SecurityScheme::ApiKey {
            location: ApiKeyLocation::Header,
            name: "X-Session".into(),
        },
    );
    let server = start(secured().authenticator(scheme, SessionAuth)).await;
    let session = |value: &'static str| [("A2A-Version", "1.0"), ("X-Session", value)];
    let (status, _, body) = rpc_with(
        &server,
        Auth::None,
        &session("s-zoe"),
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        text_of(&body["result"]["task"]),
        "zoe via session [vault:open]",
        "{body}"
    );
    let (status, challenges, body) = rpc_with(
        &server,
        Auth::None,
        &session("forged"),
        "ListTasks",
        json!({}),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`session`: unknown session"),
        "{body}"
    );
    assert!(
        challenges.iter().any(|c| c.starts_with("Session")),
        "{challenges:?}"
    );
    let card = server.card().await;
    assert_eq!(
        card["securitySchemes"]["session"]["apiKeySecurityScheme"]["name"], "X-Session",
        "{card}"
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
