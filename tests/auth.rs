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

#[path = "auth/over_mcp.rs"]
mod over_mcp;

#[path = "auth/bearer_tokens.rs"]
mod bearer_tokens;

#[path = "auth/cards.rs"]
mod cards;

#[path = "auth/keys.rs"]
mod keys;

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
