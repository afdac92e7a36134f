//! A2A clients find the authorization server as MCP clients do (RFC 9728): a 401 or 403 on
//! either A2A binding names the agent's protected-resource metadata, which names this server's
//! issuer; a token asked for the agent's URL then reaches its skills over JSON-RPC and
//! HTTP+JSON alike. Played with raw HTTP, step by step, as a client library would.

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::server::Host;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{authorized_code, register, token};
use a2a_tests::start_host;
use serde_json::{Value, json};

use super::{CALLBACK, library};

/// A `SendMessage` asking the library to lend `title`.
fn borrow(title: &str) -> Value {
    json!({
        "message": {
            "messageId": format!("m-{title}"),
            "role": "ROLE_USER",
            "parts": [{"data": {"title": title}}],
            "metadata": {"skill": "borrow"},
        }
    })
}

/// POSTs `params` as `SendMessage` over JSON-RPC at `url` (or over HTTP+JSON at
/// `{url}message:send` with `rest`), with `token` if any: status, `WWW-Authenticate` values and
/// body.
async fn send(
    url: &str,
    rest: bool,
    params: &Value,
    token: Option<&str>,
) -> (u16, Vec<String>, Value) {
    let (target, body) = if rest {
        (format!("{url}message:send"), params.clone())
    } else {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
        (url.to_owned(), call)
    };
    let mut request = a2a_tests::http()
        .post(target)
        .header("a2a-version", "1.0")
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    let challenges = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .collect();
    (
        status,
        challenges,
        response.json().await.unwrap_or(Value::Null),
    )
}

/// The `resource_metadata` URL of the Bearer challenge among `challenges`.
fn metadata_url(challenges: &[String]) -> String {
    let bearer = challenges
        .iter()
        .find(|c| c.starts_with("Bearer"))
        .unwrap_or_else(|| panic!("no Bearer challenge in {challenges:?}"));
    let (_, rest) = bearer
        .split_once("resource_metadata=\"")
        .unwrap_or_else(|| panic!("no resource_metadata in {bearer}"));
    rest.split('"').next().unwrap_or_default().to_owned()
}

async fn get_json(url: &str) -> Value {
    let response = a2a_tests::get(url).await.expect("GET sent");
    assert_eq!(response.status(), 200, "{url}");
    response.json().await.expect("JSON")
}

/// From a refused call at the agent `url` to a token for it: the metadata the challenge names,
/// the issuer it names, registration, consent and the code exchange. The access token.
async fn discovered_token(base: &str, url: &str, rest: bool, scope: &str) -> String {
    let (status, challenges, _) = send(url, rest, &borrow("Dune"), None).await;
    assert_eq!(status, 401, "rest: {rest}");
    let resource = get_json(&metadata_url(&challenges)).await;
    assert_eq!(resource["resource"], url, "{resource}");
    let issuer = resource["authorization_servers"][0].as_str().unwrap();
    assert_eq!(issuer, base);
    let server = get_json(&format!("{issuer}.well-known/oauth-authorization-server")).await;
    assert_eq!(server["issuer"], issuer);
    let (status, client) = register(issuer, CALLBACK).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap();
    let (code, pkce) = authorized_code(issuer, client_id, CALLBACK, url, scope).await;
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", CALLBACK),
        ("client_id", client_id),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", url),
    ];
    let (status, tokens) = token(issuer, &exchange).await;
    assert_eq!(status, 200, "{tokens}");
    tokens["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_a2a_401_on_either_binding_leads_to_the_authorization_server_and_its_token_works() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = server.base.as_str();
    for rest in [false, true] {
        let access =
            discovered_token(base, base, rest, "library:loans:write library:members:read").await;
        for binding in [false, true] {
            let (status, _, answer) = send(base, binding, &borrow("Emma"), Some(&access)).await;
            assert_eq!(status, 200, "rest: {binding}: {answer}");
            assert!(
                answer.to_string().contains("alice borrowed Emma"),
                "{answer}"
            );
        }
    }
    // A token short of a scope: the 403 names what is missing and where to ask again.
    let access = discovered_token(base, base, false, "library:members:read").await;
    for rest in [false, true] {
        let (status, challenges, answer) = send(base, rest, &borrow("Emma"), Some(&access)).await;
        assert_eq!(status, 403, "rest: {rest}: {answer}");
        let scoped = challenges
            .iter()
            .find(|c| c.contains("insufficient_scope"))
            .unwrap_or_else(|| panic!("{challenges:?}"));
        assert!(scoped.contains("library:loans:write"), "{scoped}");
        assert_eq!(
            metadata_url(&challenges),
            format!("{base}.well-known/oauth-protected-resource")
        );
    }
}

#[tokio::test]
async fn a_hosted_agents_401_names_its_own_resource_below_the_hosts() {
    let host = Host::new()
        .server("library", Library.server())
        .authorization_server(OAuthServer::dev_user("alice"));
    let server = start_host(host).await;
    let base = server.base.as_str();
    let url = format!("{base}library/");
    let access = discovered_token(
        base,
        &url,
        false,
        "library:loans:write library:members:read",
    )
    .await;
    let (status, _, answer) = send(&url, true, &borrow("Emma"), Some(&access)).await;
    assert_eq!(status, 200, "{answer}");
    // The host's own URL (every agent, by tenant) is a resource of its own.
    let root = get_json(&format!("{base}.well-known/oauth-protected-resource")).await;
    assert_eq!(root["resource"], base);
    assert!(
        root["scopes_supported"]
            .as_array()
            .is_some_and(|s| s.contains(&json!("library:loans:write"))),
        "{root}"
    );
    // Asked for without the trailing `/` too.
    let bare = get_json(&format!(
        "{base}.well-known/oauth-protected-resource/library"
    ))
    .await;
    assert_eq!(bare["resource"], url.as_str());
}
