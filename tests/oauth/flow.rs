//! The flow and its refusals: discovery to a refreshed token, the authorization endpoint's
//! errors, single-use codes, audiences, expiry, the card of an agent without a scheme, and the
//! development sign-in kept to loopback.

use std::time::Duration;

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::server::Host;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{
    Browser, Outcome, Pkce, authorize_url, authorized_code, query, register, token,
};
use a2a_tests::{TestServer, start, start_host};
use serde_json::{Value, json};

use super::super::{call, mcp};
use super::{CALLBACK, LOAN_SCOPES, library, signed_in, text_of};

/// What a connector reads before it registers: the resource's metadata naming the issuer, the
/// issuer's metadata (OAuth and OpenID Connect) and its keys.
async fn discovery_says_where_to_sign_in(server: &TestServer) {
    let base = &server.base;
    let mcp_url = format!("{base}mcp");
    let resource = server
        .get_json(".well-known/oauth-protected-resource/mcp")
        .await;
    assert_eq!(resource["resource"], mcp_url.as_str());
    // The issuer exactly as tokens and the redirect's `iss` carry it: a root URL with its `/`.
    assert_eq!(resource["authorization_servers"], json!([base]));
    let metadata = server
        .get_json(".well-known/oauth-authorization-server")
        .await;
    assert_eq!(metadata["issuer"], base.as_str());
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    assert_eq!(
        metadata["authorization_response_iss_parameter_supported"],
        true
    );
    assert_eq!(
        metadata["registration_endpoint"],
        format!("{base}oauth/register")
    );
    let openid = server.get_json(".well-known/openid-configuration").await;
    assert_eq!(openid["token_endpoint"], metadata["token_endpoint"]);
    let keys = server.get_json("oauth/jwks").await;
    assert_eq!(keys["keys"][0]["alg"], "ES256");
}

#[tokio::test]
async fn a_connector_discovers_registers_signs_in_calls_and_refreshes() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = &server.base;
    let mcp_url = format!("{base}mcp");
    let borrow = call("borrow", json!({"title": "Dune"}));
    let (status, challenges, _) = mcp(&server, "mcp", None, "tools/call", borrow.clone()).await;
    assert_eq!(status, 401);
    assert!(
        challenges[0].contains("resource_metadata="),
        "{challenges:?}"
    );

    discovery_says_where_to_sign_in(&server).await;

    let (client_id, tokens) = signed_in(&server, &mcp_url, LOAN_SCOPES).await;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["scope"], LOAN_SCOPES);
    let access = tokens["access_token"].as_str().unwrap();
    let (status, _, called) = mcp(&server, "mcp", Some(access), "tools/call", borrow.clone()).await;
    assert_eq!(status, 200, "{called}");
    assert_eq!(text_of(&called), "alice borrowed Dune");

    // Each refresh rotates the refresh token; the rotated one presented again revokes them all.
    let first = tokens["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |refresh_token: String| {
        let client_id = client_id.clone();
        async move {
            token(
                base,
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &refresh_token),
                    ("client_id", &client_id),
                ],
            )
            .await
        }
    };
    let (status, renewed) = refresh(first.clone()).await;
    assert_eq!(status, 200, "{renewed}");
    let second = renewed["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    let access = renewed["access_token"].as_str().unwrap();
    let (status, _, called) = mcp(&server, "mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "alice borrowed Dune")
    );
    let (status, reused) = refresh(first).await;
    assert_eq!(
        (status, reused["error"].as_str()),
        (400, Some("invalid_grant")),
        "{reused}"
    );
    assert!(
        reused["error_description"]
            .as_str()
            .unwrap()
            .contains("revoked")
    );
    let (status, after) = refresh(second).await;
    assert_eq!(
        (status, after["error"].as_str()),
        (400, Some("invalid_grant")),
        "{after}"
    );
}

/// The library with its authorization server, and a client registered with it.
async fn registered_client() -> (TestServer, String) {
    let server = library(OAuthServer::dev_user("alice")).await;
    let (_, client) = register(&server.base, CALLBACK).await;
    let client_id = client["client_id"].as_str().unwrap().to_owned();
    (server, client_id)
}

/// An authorization request of `client_id` for the MCP endpoint, with `overrides` replacing
/// its parameters (an empty value leaves one out).
fn authorization(base: &str, client_id: &str, pkce: &Pkce, overrides: &[(&str, &str)]) -> String {
    let mcp_url = format!("{base}mcp");
    let mut params: Vec<(&str, &str)> = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", CALLBACK),
        ("state", "xyz"),
        ("code_challenge", &pkce.challenge),
        ("code_challenge_method", "S256"),
        ("resource", &mcp_url),
    ];
    for (name, value) in overrides {
        params.retain(|(n, _)| n != name);
        if !value.is_empty() {
            params.push((name, value));
        }
    }
    authorize_url(base, &params)
}

#[tokio::test]
async fn the_authorization_endpoint_sends_errors_back_only_to_a_verified_redirect() {
    let (server, client_id) = registered_client().await;
    let base = &server.base;
    let pkce = Pkce::new();
    let request = |overrides: &[(&str, &str)]| authorization(base, &client_id, &pkce, overrides);
    let mut browser = Browser::new();
    for (overrides, error, says) in [
        (
            vec![("code_challenge_method", "plain")],
            "invalid_request",
            "S256",
        ),
        (
            vec![("code_challenge_method", "")],
            "invalid_request",
            "plain",
        ),
        (
            vec![("code_challenge", "")],
            "invalid_request",
            "code_challenge",
        ),
        (
            vec![("response_type", "token")],
            "unsupported_response_type",
            "token",
        ),
        (
            vec![("resource", "http://127.0.0.1:9/elsewhere")],
            "invalid_target",
            "resource",
        ),
        // Only unknown scopes: a mistake to name, not a token that reaches nothing.
        (
            vec![("scope", "library:loans:raed offline_access")],
            "invalid_scope",
            "library:loans:raed",
        ),
    ] {
        let Outcome::Redirect(back) = browser.open(&request(&overrides)).await else {
            panic!("{overrides:?} was not sent back to the client");
        };
        assert!(back.as_str().starts_with(CALLBACK), "{back}");
        assert_eq!(
            query(&back, "error").as_deref(),
            Some(error),
            "{overrides:?}"
        );
        assert!(
            query(&back, "error_description").unwrap().contains(says),
            "{back}"
        );
        assert_eq!(query(&back, "state").as_deref(), Some("xyz"));
        assert_eq!(query(&back, "iss").as_deref(), Some(base.as_str()));
    }
    // An unverified redirect URI or client never gets a redirect: the person sees why.
    for (overrides, code) in [
        (
            vec![("redirect_uri", "https://evil.example/cb")],
            "invalid_redirect_uri",
        ),
        (vec![("client_id", "c-unknown")], "invalid_client"),
    ] {
        let Outcome::Page(status, html) = browser.open(&request(&overrides)).await else {
            panic!("{overrides:?} redirected");
        };
        assert_eq!(status, 400);
        assert!(html.contains(code), "{html}");
    }
}

#[tokio::test]
async fn a_denial_is_sent_back_and_a_consent_cannot_be_replayed_nor_decided_elsewhere() {
    let (server, client_id) = registered_client().await;
    let base = &server.base;
    let pkce = Pkce::new();
    let request = |overrides: &[(&str, &str)]| authorization(base, &client_id, &pkce, overrides);
    let mut browser = Browser::new();
    // Denying sends access_denied back.
    let Outcome::Consent {
        request: id, csrf, ..
    } = browser.open(&request(&[])).await
    else {
        panic!("no consent page");
    };
    let Outcome::Redirect(back) = browser
        .decide(&format!("{base}oauth/consent"), &id, &csrf, "deny", &[])
        .await
    else {
        panic!("denying did not redirect");
    };
    assert_eq!(query(&back, "error").as_deref(), Some("access_denied"));
    // The consent form cannot be replayed, nor submitted from another browser.
    let mut other = Browser::new();
    let Outcome::Consent {
        request: id, csrf, ..
    } = browser.open(&request(&[])).await
    else {
        panic!("no consent page");
    };
    let Outcome::Page(status, _) = other
        .decide(&format!("{base}oauth/consent"), &id, &csrf, "approve", &[])
        .await
    else {
        panic!("another browser's decision was taken");
    };
    assert_eq!(status, 403);
}

/// A token request refused as `invalid_grant`, saying `says`.
fn refused((status, answer): (u16, Value), says: &str) {
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_grant")),
        "{answer}"
    );
    let description = answer["error_description"].as_str().unwrap();
    assert!(description.contains(says), "{description}");
}

#[tokio::test]
async fn identity_scopes_and_unknown_ones_beside_known_ones_are_left_out_of_the_token() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let resource = format!("{}mcp", server.base);
    // As SEP-2207 clients ask: the resource's scope, plus offline_access for a refresh token.
    let asked = "library:loans:write offline_access openid library:other";
    let (_, tokens) = signed_in(&server, &resource, asked).await;
    assert_eq!(tokens["scope"], "library:loans:write", "{tokens}");
    assert!(tokens["refresh_token"].is_string(), "{tokens}");
}

#[tokio::test]
async fn codes_are_single_use_and_bound_to_client_redirect_and_verifier() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = &server.base;
    let mcp_url = format!("{base}mcp");
    let (_, client) = register(base, CALLBACK).await;
    let client_id = client["client_id"].as_str().unwrap();
    let (_, other) = register(base, CALLBACK).await;
    let other_id = other["client_id"].as_str().unwrap();
    let exchange = |code: String, client: String, verifier: String, redirect: &'static str| async move {
        token(
            base,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", redirect),
                ("client_id", &client),
                ("code_verifier", &verifier),
            ],
        )
        .await
    };
    let (code, pkce) = authorized_code(base, client_id, CALLBACK, &mcp_url, LOAN_SCOPES).await;
    let wrong = Pkce::new().verifier;
    refused(
        exchange(code.clone(), client_id.into(), wrong, CALLBACK).await,
        "code_verifier",
    );
    // A failed redemption still spends the code: whoever holds it is not its client.
    refused(
        exchange(code, client_id.into(), pkce.verifier, CALLBACK).await,
        "already redeemed",
    );

    let (code, pkce) = authorized_code(base, client_id, CALLBACK, &mcp_url, LOAN_SCOPES).await;
    refused(
        exchange(code, other_id.into(), pkce.verifier, CALLBACK).await,
        "another client",
    );

    let (code, pkce) = authorized_code(base, client_id, CALLBACK, &mcp_url, LOAN_SCOPES).await;
    let elsewhere = "http://127.0.0.1:33418/other";
    refused(
        exchange(code, client_id.into(), pkce.verifier, elsewhere).await,
        "redirect_uri",
    );

    let (code, pkce) = authorized_code(base, client_id, CALLBACK, &mcp_url, LOAN_SCOPES).await;
    let (status, tokens) = exchange(
        code.clone(),
        client_id.into(),
        pkce.verifier.clone(),
        CALLBACK,
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    refused(
        exchange(code, client_id.into(), pkce.verifier, CALLBACK).await,
        "already redeemed",
    );
    // The second redemption revoked what the first was given.
    let refresh_token = tokens["refresh_token"].as_str().unwrap();
    let refreshed = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
    ];
    let (status, revoked) = token(base, &refreshed).await;
    assert_eq!(
        (status, revoked["error"].as_str()),
        (400, Some("invalid_grant"))
    );
}

#[tokio::test]
async fn an_agent_refuses_a_token_issued_for_another_agents_resource() {
    let host = Host::new()
        .server("library", Library.server())
        .server("annex", Library.server())
        .authorization_server(OAuthServer::dev_user("alice"));
    let server = start_host(host).await;
    let resource = format!("{}library/mcp", server.base);
    let (_, tokens) = signed_in(&server, &resource, LOAN_SCOPES).await;
    let access = tokens["access_token"].as_str().unwrap();
    let borrow = call("borrow", json!({"title": "Emma"}));
    let (status, _, called) = mcp(
        &server,
        "library/mcp",
        Some(access),
        "tools/call",
        borrow.clone(),
    )
    .await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "alice borrowed Emma")
    );
    let (status, challenges, _) =
        mcp(&server, "annex/mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(status, 401);
    assert!(
        challenges.iter().any(|c| c.contains("aud")),
        "{challenges:?}"
    );
    // The shared endpoint's resource is not the library's either.
    let shared = call("library_borrow", json!({"title": "Emma"}));
    let (status, _, _) = mcp(&server, "mcp", Some(access), "tools/call", shared).await;
    assert_eq!(status, 401);
}

/// POSTs `token` to the revocation endpoint as `client_id` (RFC 7009): the status.
async fn revoke(server: &TestServer, client_id: &str, token: &str) -> u16 {
    let form = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("token", token), ("client_id", client_id)])
        .finish();
    a2a_tests::http()
        .post(format!("{}oauth/revoke", server.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_revoked_access_token_and_refresh_token_are_refused_by_every_agent_and_the_shared_mcp() {
    let host = Host::new()
        .server("library", Library.server())
        .server("annex", Library.server())
        .authorization_server(OAuthServer::dev_user("alice"));
    let server = start_host(host).await;
    for (path, tool) in [
        ("library/mcp", "borrow"),
        ("annex/mcp", "borrow"),
        ("mcp", "library_borrow"),
    ] {
        let resource = format!("{}{path}", server.base);
        let (client_id, tokens) = signed_in(&server, &resource, LOAN_SCOPES).await;
        let access = tokens["access_token"].as_str().unwrap();
        let borrow = call(tool, json!({"title": "Emma"}));
        // Verified (and cached as verified) before it is revoked.
        let (status, _, called) =
            mcp(&server, path, Some(access), "tools/call", borrow.clone()).await;
        assert_eq!(
            (status, text_of(&called).as_str()),
            (200, "alice borrowed Emma")
        );
        assert_eq!(revoke(&server, &client_id, access).await, 200);
        let (status, challenges, _) = mcp(&server, path, Some(access), "tools/call", borrow).await;
        assert_eq!(status, 401, "{path}: a revoked token");
        assert!(
            challenges.iter().any(|c| c.contains("revoked")),
            "{path}: {challenges:?}"
        );
        let refresh_token = tokens["refresh_token"].as_str().unwrap();
        assert_eq!(revoke(&server, &client_id, refresh_token).await, 200);
        let refresh = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", client_id.as_str()),
        ];
        let (status, refused) = token(&server.base, &refresh).await;
        assert_eq!(
            (status, &refused["error"]),
            (400, &json!("invalid_grant")),
            "{path}"
        );
    }
    // Another client's token is not this client's to revoke: answered 200, and it still works.
    let resource = format!("{}library/mcp", server.base);
    let (_, tokens) = signed_in(&server, &resource, LOAN_SCOPES).await;
    let (stranger, _) = signed_in(&server, &resource, LOAN_SCOPES).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(revoke(&server, &stranger, access).await, 200);
    let borrow = call("borrow", json!({"title": "Dune"}));
    let (status, _, _) = mcp(&server, "library/mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(status, 200, "another client's revocation is ignored");
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let settings = OAuthServer::dev_user("alice").access_token_ttl(Duration::from_secs(1));
    let server = library(settings).await;
    let mcp_url = format!("{}mcp", server.base);
    let (_, tokens) = signed_in(&server, &mcp_url, LOAN_SCOPES).await;
    let access = tokens["access_token"].as_str().unwrap();
    // One second of life and five of tolerated skew.
    tokio::time::sleep(Duration::from_secs(7)).await;
    let borrow = call("borrow", json!({"title": "Dune"}));
    let (status, challenges, _) = mcp(&server, "mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(status, 401);
    assert!(challenges[0].contains("expired"), "{challenges:?}");
}

#[tokio::test]
async fn an_agent_without_a_scheme_publishes_the_authorization_server_as_oauth2() {
    let server = start(
        hello::Hello
            .server()
            .authorization_server(OAuthServer::dev_user("bob")),
    )
    .await;
    let card = server.card().await;
    let scheme = &card["securitySchemes"]["oauth2"]["oauth2SecurityScheme"];
    let flow = &scheme["flows"]["authorizationCode"];
    assert_eq!(
        flow["tokenUrl"],
        format!("{}oauth/token", server.base),
        "{card}"
    );
    assert_eq!(
        scheme["oauth2MetadataUrl"],
        format!("{}.well-known/oauth-authorization-server", server.base)
    );
    let (status, _, _) = mcp(&server, "mcp", None, "tools/list", json!({})).await;
    assert_eq!(status, 401, "the agent now requires its tokens");
}

#[tokio::test]
async fn a_development_sign_in_is_refused_off_loopback() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let refused = Library
        .server()
        .authorization_server(OAuthServer::dev_user("alice"))
        .serve_on(listener)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("loopback"), "{refused}");
}
