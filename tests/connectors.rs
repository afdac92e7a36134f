//! What hosted assistants (ChatGPT and Claude connectors) need of a resource server, on a host
//! whose authentication is configured once: public tools without a token and 401 with the
//! metadata for the rest, a 403 naming every missing scope, scope hierarchies, tokens of
//! several issuers, and metadata readable from any origin.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::auth::JwtConfig;
use a2a_runtime::server::{Host, ServeConfig};
use a2a_tests::library::Library;
use a2a_tests::tokens::{JwksServer, SECRET, claims, hs256, jwk, rsa_key, signed};
use a2a_tests::{TestServer, response_from};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};

#[path = "oauth/mod.rs"]
mod oauth;

/// The issuer of the HS256 test tokens.
const ISSUER: &str = "https://issuer.test";

/// The library (bearer tokens, its own) and hello (no security at all) on one host,
/// `librarian` granting both loan scopes. (A host's own credentials would secure every agent:
/// configured credentials imply a scheme, as they do for one agent.)
fn host() -> Host {
    let library = Library
        .server()
        .jwt(JwtConfig::hs256(SECRET).issuer(ISSUER));
    Host::new()
        .server("library", library)
        .agent("hello", hello::Hello)
        .scope_implies("librarian", ["library:loans:write", "library:members:read"])
}

fn token(sub: &str, scope: &str) -> String {
    let mut claims = claims(sub, scope);
    claims["iss"] = json!(ISSUER);
    hs256(&claims)
}

/// A stateless (2026-07-28) MCP request on `path` with an optional bearer token: status,
/// `WWW-Authenticate` values, and the JSON-RPC response.
async fn mcp(
    server: &TestServer,
    path: &str,
    bearer: Option<&str>,
    method: &str,
    mut params: Value,
) -> (u16, Vec<String>, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut request = server
        .http
        .post(format!("{}{path}", server.base))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenges = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let text = response.text().await.unwrap();
    (status, challenges, response_from(&text))
}

#[tokio::test]
async fn with_a_token_required_even_discovery_and_the_session_stream_without_one_answer_401() {
    for required in [false, true] {
        let mut config = a2a_runtime::server::ServeConfig::default();
        config.oauth.require_token_for_initialize = required;
        let server = a2a_tests::start(
            Library
                .server()
                .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
                .config(config),
        )
        .await;
        let (status, challenges, _) = mcp(&server, "mcp", None, "server/discover", json!({})).await;
        let (listed, _, _) = mcp(&server, "mcp", None, "tools/list", json!({})).await;
        // A 2025 client's first request.
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "stalling client", "version": "1"}}});
        let opened = server
            .http
            .post(format!("{}mcp", server.base))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
            .await
            .unwrap();
        let initialized = opened.status().as_u16();
        let session = opened.headers().get("mcp-session-id").cloned();
        // The session's standalone stream, as the MCP TypeScript SDK opens it once connected.
        let mut stream = server
            .http
            .get(format!("{}mcp", server.base))
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = &session {
            stream = stream.header("mcp-session-id", session);
        }
        let streamed = stream.send().await.unwrap();
        let listening = streamed.status().as_u16();
        let streamed_type = streamed.headers().get("content-type").cloned();
        drop(streamed);
        if required {
            assert_eq!(
                (status, listed, initialized, listening),
                (401, 401, 401, 401)
            );
            assert!(
                challenges.iter().any(|c| c.contains("resource_metadata=")),
                "{challenges:?}"
            );
        } else {
            // Where anyone may open a session, anyone may listen to it: a 401 on the stream
            // would start a sign-in racing the one the client's first protected call starts.
            assert_eq!(
                (status, listed, initialized, listening),
                (200, 200, 200, 200)
            );
            let streamed_type = streamed_type.expect("the stream's content type");
            assert!(
                streamed_type
                    .to_str()
                    .unwrap()
                    .starts_with("text/event-stream")
            );
        }
        // A valid token passes either way.
        let token = token("ann", "library:members:read");
        let (status, _, _) = mcp(&server, "mcp", Some(&token), "tools/list", json!({})).await;
        assert_eq!(status, 200);
    }
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

#[tokio::test]
async fn a_public_tool_is_listed_and_called_without_a_token_and_a_protected_one_answers_401() {
    let server = a2a_tests::start_host(host()).await;
    let (status, _, listed) = mcp(&server, "mcp", None, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{listed}");
    let tools = listed["result"]["tools"].as_array().unwrap();
    let schemes = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {tools:?}"))["_meta"]["securitySchemes"]
            .clone()
    };
    assert_eq!(
        schemes("library_search"),
        json!([{"type": "noauth"}, {"type": "oauth2", "scopes": []}])
    );
    assert_eq!(
        schemes("library_borrow"),
        json!([{"type": "oauth2", "scopes": ["library:loans:write", "library:members:read"]}])
    );
    assert_eq!(
        schemes("hello_greet"),
        json!([{"type": "noauth"}]),
        "an open agent's tool"
    );
    for (name, arguments) in [
        ("library_search", json!({"query": "dune"})),
        ("hello_greet", json!({"name": "Ada"})),
    ] {
        let (status, _, called) =
            mcp(&server, "mcp", None, "tools/call", call(name, arguments)).await;
        assert_eq!(status, 200, "{called}");
        assert_eq!(called["result"]["isError"], false, "{called}");
    }
    let metadata_url = format!("{}.well-known/oauth-protected-resource/mcp", server.base);
    let (status, challenges, refused) = mcp(
        &server,
        "mcp",
        None,
        "tools/call",
        call("library_borrow", json!({"title": "Dune"})),
    )
    .await;
    assert_eq!(status, 401, "{refused}");
    assert!(
        challenges
            .iter()
            .any(|c| c.starts_with("Bearer") && c.contains(&metadata_url)),
        "{challenges:?}"
    );
    // The agent's own endpoint, and every other method, still need the token.
    let (status, challenges, _) = mcp(
        &server,
        "library/mcp",
        None,
        "tools/call",
        call("borrow", json!({"title": "Dune"})),
    )
    .await;
    assert_eq!(status, 401);
    let own_metadata = format!(
        "{}.well-known/oauth-protected-resource/library/mcp",
        server.base
    );
    assert!(
        challenges.iter().any(|c| c.contains(&own_metadata)),
        "{challenges:?}"
    );
    let (status, _, _) = mcp(&server, "mcp", None, "resources/list", json!({})).await;
    assert_eq!(status, 401);
    let metadata = server
        .get_json(".well-known/oauth-protected-resource/library/mcp")
        .await;
    assert_eq!(metadata["resource"], format!("{}library/mcp", server.base));
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
}

#[tokio::test]
async fn a_403_names_every_missing_scope_and_challenges_with_every_needed_one() {
    let server = a2a_tests::start_host(host()).await;
    let borrow = call("library_borrow", json!({"title": "Dune"}));
    let member = token("mia", "library:members:read");
    let (status, challenges, refused) =
        mcp(&server, "mcp", Some(&member), "tools/call", borrow.clone()).await;
    assert_eq!(status, 403, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`library:loans:write`") && !message.contains("`library:members:read`"),
        "names the scope missing, not the one granted: {message}"
    );
    let challenge = challenges
        .iter()
        .find(|c| c.contains("insufficient_scope"))
        .unwrap();
    assert!(
        challenge.contains("scope=\"library:loans:write library:members:read\"")
            && challenge.contains("resource_metadata="),
        "every scope the call needs and where the metadata is: {challenge}"
    );
    let nobody = token("nils", "other");
    let (status, _, refused) = mcp(&server, "mcp", Some(&nobody), "tools/call", borrow).await;
    assert_eq!(status, 403);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("scopes `library:loans:write`, `library:members:read`"),
        "{message}"
    );
    // A2A says the same through the agent's JSON-RPC endpoint.
    let response = server
        .http
        .post(format!("{}library/", server.base))
        .bearer_auth(&nobody)
        .header("A2A-Version", "1.0")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
            "messageId": "m1", "role": "ROLE_USER",
            "parts": [{"data": {"title": "Dune"}}], "metadata": {"skill": "borrow"}}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(challenge.contains("scope=\"library:loans:write library:members:read\""));
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`library:members:read`")
    );
}

#[tokio::test]
async fn a_wildcard_or_a_configured_parent_scope_grants_the_scopes_below_it() {
    let server = a2a_tests::start_host(host()).await;
    let tools = token("tess", "mcp:tools:*");
    let (status, _, called) = mcp(
        &server,
        "mcp",
        Some(&tools),
        "tools/call",
        call("library_notes", json!({})),
    )
    .await;
    assert_eq!(status, 200, "{called}");
    assert_eq!(called["result"]["content"][0]["text"], "closed on Sundays");
    let librarian = token("lee", "librarian");
    let (status, _, called) = mcp(
        &server,
        "library/mcp",
        Some(&librarian),
        "tools/call",
        call("borrow", json!({"title": "Dune"})),
    )
    .await;
    assert_eq!(status, 200, "{called}");
    assert_eq!(called["result"]["content"][0]["text"], "lee borrowed Dune");
    let (status, _, _) = mcp(
        &server,
        "mcp",
        Some(&librarian),
        "tools/call",
        call("library_notes", json!({})),
    )
    .await;
    assert_eq!(status, 403, "`librarian` grants the loan scopes only");
}

#[tokio::test]
async fn tokens_of_two_issuers_are_each_verified_with_their_own_keys() {
    let (key_a, key_b) = (rsa_key(1), rsa_key(2));
    let issuer_a = JwksServer::start(vec![jwk(Algorithm::RS256, &key_a)]).await;
    let issuer_b = JwksServer::start(vec![jwk(Algorithm::RS256, &key_b)]).await;
    let server = a2a_tests::start_host(
        Host::new()
            .agent("library", Library)
            .jwt(JwtConfig::jwks(&issuer_a.url).issuer(issuer_a.issuer()))
            .trust_issuer(JwtConfig::jwks(&issuer_b.url).issuer(issuer_b.issuer())),
    )
    .await;
    let minted = |key, issuer: String| {
        let mut claims = claims("ivy", "library:loans:write library:members:read");
        claims["iss"] = json!(issuer);
        signed(Algorithm::RS256, key, &claims)
    };
    let borrow = call("library_borrow", json!({"title": "Dune"}));
    for (token, expected) in [
        (minted(&key_a, issuer_a.issuer()), 200),
        (minted(&key_b, issuer_b.issuer()), 200),
        // Signed by B's key but claiming A: A's keys do not verify it.
        (minted(&key_b, issuer_a.issuer()), 401),
        // An issuer nobody trusts.
        (minted(&key_a, "https://elsewhere.test".into()), 401),
    ] {
        let (status, _, body) =
            mcp(&server, "mcp", Some(&token), "tools/call", borrow.clone()).await;
        assert_eq!(status, expected, "{body}");
    }
    let metadata = server
        .get_json(".well-known/oauth-protected-resource/mcp")
        .await;
    assert_eq!(
        metadata["authorization_servers"],
        json!([issuer_a.issuer(), issuer_b.issuer()])
    );
}

#[tokio::test]
async fn metadata_cards_and_the_catalog_are_readable_from_any_origin() {
    let mut config = ServeConfig::default();
    config.cors_origins = vec!["https://app.example".into()];
    config.cors_headers = vec!["x-request-id".into()];
    let server = a2a_tests::start_host(host().config(config)).await;
    for path in [
        ".well-known/oauth-protected-resource/mcp",
        ".well-known/oauth-protected-resource/library/mcp",
        ".well-known/agent-card.json",
        "library/.well-known/agent-card.json",
        "agents",
    ] {
        let response = server
            .http
            .get(format!("{}{path}", server.base))
            .header("Origin", "https://chatgpt.com")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            "*",
            "{path}"
        );
    }
    // A configured browser origin may send the extra request header to the MCP endpoint.
    let preflight = server
        .http
        .request(reqwest::Method::OPTIONS, format!("{}mcp", server.base))
        .header("Origin", "https://app.example")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, x-request-id",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 200);
    let allowed = preflight.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        allowed.contains("x-request-id") && allowed.contains("authorization"),
        "{allowed}"
    );
}
