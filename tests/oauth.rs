//! The authorization server a connector signs in through (`oauth-server`): discovery,
//! registration, consent, codes, tokens the agents accept for their own resources only,
//! refresh rotation, client metadata documents, and every refusal the flow owes a client.
//! (A module of the `connectors` test binary.)

use std::time::Duration;

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::server::Host;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{
    Browser, Outcome, Pkce, authorize_url, authorized_code, query, register, register_with, token,
};
use a2a_tests::{TestServer, start, start_host};
use serde_json::{Value, json};

use super::{call, mcp};

const CALLBACK: &str = "http://127.0.0.1:33418/callback";
const LOAN_SCOPES: &str = "library:loans:write library:members:read";

/// The library (a declared bearer scheme) with an authorization server signing `alice` in.
async fn library(settings: OAuthServer) -> TestServer {
    start(Library.server().authorization_server(settings)).await
}

/// Registers a client and runs the flow to tokens for `resource`: the client id and the
/// token answer.
async fn signed_in(server: &TestServer, resource: &str, scope: &str) -> (String, Value) {
    let base = &server.base;
    let (status, client) = register(base, CALLBACK).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap().to_owned();
    let (code, pkce) = authorized_code(base, &client_id, CALLBACK, resource, scope).await;
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CALLBACK),
            ("client_id", &client_id),
            ("code_verifier", &pkce.verifier),
            ("resource", resource),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    (client_id, tokens)
}

fn text_of(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
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

#[tokio::test]
async fn the_authorization_endpoint_sends_errors_back_only_to_a_verified_redirect() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = &server.base;
    let (_, client) = register(base, CALLBACK).await;
    let client_id = client["client_id"].as_str().unwrap();
    let pkce = Pkce::new();
    let mcp_url = format!("{base}mcp");
    let request = |overrides: &[(&str, &str)]| {
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
    };
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
    assert_eq!(status, 400);
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
    let refused = |(status, answer): (u16, Value), says: &str| {
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some("invalid_grant")),
            "{answer}"
        );
        let description = answer["error_description"].as_str().unwrap();
        assert!(description.contains(says), "{description}");
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
    let (status, revoked) = token(
        base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", client_id),
        ],
    )
    .await;
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
async fn registration_refuses_redirects_off_the_allow_list_and_unsafe_ones() {
    let settings = OAuthServer::dev_user("alice")
        .redirect_preset("claude")
        .unwrap()
        .redirect_preset("chatgpt")
        .unwrap();
    let server = library(settings).await;
    let base = &server.base;
    for (uri, status) in [
        ("https://claude.ai/api/mcp/auth_callback", 201),
        ("https://chatgpt.com/connector/oauth/abc123", 201),
        ("http://127.0.0.1:4000/cb", 201),
        ("https://claude.ai/api/mcp/oauth/callback", 400),
        ("http://example.com/cb", 400),
        ("https://evil.example/cb", 400),
    ] {
        let (got, answer) = register(base, uri).await;
        assert_eq!(got, status, "{uri}: {answer}");
        if status == 400 {
            assert_eq!(answer["error"], "invalid_redirect_uri", "{uri}");
        }
    }
    let (status, answer) = register_with(
        base,
        json!({"redirect_uris": [CALLBACK], "grant_types": ["password"]}),
    )
    .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_client_metadata"))
    );
    // A confidential client (the default method) gets a secret and must send it.
    let (_, confidential) = register_with(base, json!({"redirect_uris": [CALLBACK]})).await;
    assert!(confidential["client_secret"].is_string(), "{confidential}");
    let (status, answer) = token(
        base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", "x"),
            ("client_id", confidential["client_id"].as_str().unwrap()),
        ],
    )
    .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (401, Some("invalid_client"))
    );
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

#[tokio::test]
async fn client_metadata_documents_that_redirect_are_too_large_misnamed_or_private_are_refused() {
    use a2a_tests::oauth_flow::document_server;
    let ca = a2a_tests::pki::TestCa::new("oauth-documents");
    let document = |id: String| {
        json!({
            "client_id": id,
            "client_name": "Documented",
            "redirect_uris": [CALLBACK],
            "token_endpoint_auth_method": "none",
        })
    };
    let documents = document_server(&ca, |base| {
        vec![
            (
                "/client.json".to_owned(),
                document(format!("{base}client.json")),
            ),
            (
                "/misnamed.json".to_owned(),
                document("https://elsewhere.example/c.json".into()),
            ),
        ]
    })
    .await;
    let trusting = OAuthServer::dev_user("alice")
        .client_documents_allow_private(true)
        .client_documents_ca(ca.cert_pem.clone());
    let server = library(trusting).await;
    let pkce = Pkce::new();
    let open = |server: &TestServer, client_id: String| {
        let url = authorize_url(
            &server.base,
            &[
                ("response_type", "code"),
                ("client_id", &client_id),
                ("redirect_uri", CALLBACK),
                ("code_challenge", &pkce.challenge),
                ("code_challenge_method", "S256"),
            ],
        );
        async move { Browser::new().open(&url).await }
    };
    let Outcome::Consent { html, .. } = open(&server, format!("{documents}client.json")).await
    else {
        panic!("a good document was refused");
    };
    assert!(html.contains("Documented"), "the page names the client");
    for (path, says) in [
        ("moved.json", "redirect"),
        ("big.json", "larger than"),
        ("misnamed.json", "its own URL"),
        ("missing.json", "404"),
    ] {
        let Outcome::Page(status, html) = open(&server, format!("{documents}{path}")).await else {
            panic!("{path} was accepted");
        };
        assert_eq!(status, 400, "{path}");
        assert!(
            html.contains("invalid_client") && html.contains(says),
            "{path}: {html}"
        );
    }
    // Without leave to fetch from private addresses, a document on loopback is never fetched.
    let guarded =
        library(OAuthServer::dev_user("alice").client_documents_ca(ca.cert_pem.clone())).await;
    let Outcome::Page(status, html) = open(&guarded, format!("{documents}client.json")).await
    else {
        panic!("a document on loopback was fetched");
    };
    assert_eq!(status, 400);
    assert!(html.contains("loopback"), "{html}");
}

#[tokio::test]
async fn administrators_list_and_delete_clients_and_a_deleted_client_registers_again() {
    let keys =
        a2a_runtime::auth::ApiKeys::parse("ops=ops-key-0123456789,eve=eve-key-0123456789").unwrap();
    let server = start(
        Library
            .server()
            .api_keys(keys)
            .authorization_server(OAuthServer::dev_user("alice").admin("ops")),
    )
    .await;
    let mcp_url = format!("{}mcp", server.base);
    let (client_id, tokens) = signed_in(&server, &mcp_url, LOAN_SCOPES).await;
    let admin = |key: Option<&'static str>| {
        let mut request = server.http.get(format!("{}oauth/clients", server.base));
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        async move {
            let response = request.send().await.unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let (status, listed) = admin(Some("ops-key-0123456789")).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["clients"][0]["client_id"], client_id.as_str());
    assert!(listed["clients"][0].get("secret_digest").is_none());
    for key in [Some("eve-key-0123456789"), None] {
        let (status, refused) = admin(key).await;
        assert_eq!(
            (status, refused["error"].as_str()),
            (403, Some("access_denied"))
        );
    }
    let deleted = server
        .http
        .delete(format!("{}oauth/clients/{client_id}", server.base))
        .header("x-api-key", "ops-key-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 204);
    let (status, answer) = token(
        &server.base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", &client_id),
        ],
    )
    .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (401, Some("invalid_client"))
    );
    assert!(
        answer["error_description"]
            .as_str()
            .unwrap()
            .contains("register again")
    );
}

#[tokio::test]
async fn clients_and_refresh_tokens_survive_a_restart_on_sqlite() {
    let dir = a2a_tests::scratch_dir();
    let serve = || {
        let mut config = a2a_runtime::server::ServeConfig::default();
        config.store = Some(a2a_runtime::server::StoreLocation::Sqlite(
            dir.join("tasks.sqlite3"),
        ));
        Library
            .server()
            .config(config)
            .authorization_server(OAuthServer::dev_user("alice"))
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let base = format!("http://{addr}/");
    let stop = a2a_runtime::server::CancellationToken::new();
    let first = serve()
        .public_url(base.clone())
        .shutdown_signal(stop.clone());
    let running = tokio::spawn(async move { first.serve_on(listener).await });
    let server = TestServer::at(base.clone());
    let (client_id, tokens) = signed_in(&server, &format!("{base}mcp"), LOAN_SCOPES).await;
    stop.cancel();
    running.await.unwrap().unwrap();
    // The same address and files, a new process's worth of state.
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let second = serve().public_url(base.clone());
    tokio::spawn(async move { second.serve_on(listener).await });
    let (status, renewed) = token(
        &base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", &client_id),
        ],
    )
    .await;
    assert_eq!(status, 200, "{renewed}");
    // Signed with the key the first run stored: the old access token still verifies too.
    let borrow = call("borrow", json!({"title": "Dune"}));
    let old = tokens["access_token"].as_str().unwrap();
    let (status, _, called) = mcp(&server, "mcp", Some(old), "tools/call", borrow).await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "alice borrowed Dune")
    );
}

#[tokio::test]
async fn replicas_on_postgres_share_clients_codes_refresh_tokens_and_signing_keys() {
    let Some(url) = a2a_tests::postgres::fresh_database("oauth").await else {
        return;
    };
    let a = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let b = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (base_a, base_b) = (
        format!("http://{}/", a.local_addr().unwrap()),
        format!("http://{}/", b.local_addr().unwrap()),
    );
    // Replicas behind one public URL: the first's.
    for listener in [a, b] {
        let mut config = a2a_runtime::server::ServeConfig::default();
        config.store = Some(a2a_runtime::server::StoreLocation::Postgres(url.clone()));
        let replica = Library
            .server()
            .config(config)
            .public_url(base_a.clone())
            .authorization_server(OAuthServer::dev_user("alice"));
        tokio::spawn(async move { replica.serve_on(listener).await });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mcp_url = format!("{base_a}mcp");
    let (_, client) = register(&base_a, CALLBACK).await;
    let client_id = client["client_id"].as_str().unwrap();
    let (code, pkce) = authorized_code(&base_a, client_id, CALLBACK, &mcp_url, LOAN_SCOPES).await;
    let (status, tokens) = token(
        &base_b,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CALLBACK),
            ("client_id", client_id),
            ("code_verifier", &pkce.verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "the other replica redeems the code: {tokens}");
    let (status, renewed) = token(
        &base_a,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", client_id),
        ],
    )
    .await;
    assert_eq!(status, 200, "{renewed}");
    let borrow = call("borrow", json!({"title": "Dune"}));
    for (base, access) in [
        (&base_a, &tokens["access_token"]),
        (&base_b, &renewed["access_token"]),
    ] {
        let server = TestServer::at(base.clone());
        let (status, _, called) = mcp(
            &server,
            "mcp",
            access.as_str(),
            "tools/call",
            borrow.clone(),
        )
        .await;
        assert_eq!(
            (status, text_of(&called).as_str()),
            (200, "alice borrowed Dune")
        );
    }
}

/// An application's own sign-in: a password form of its own, whose session cookie names the
/// user (what `SignIn` lets an application plug in: its login, an API-key exchange).
#[derive(Clone, Default)]
struct PasswordSignIn {
    sessions: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, String>>>,
}

impl a2a_runtime::oauth::SignIn for PasswordSignIn {
    fn user<'a>(
        &'a self,
        request: &'a a2a_runtime::axum::http::request::Parts,
    ) -> futures::future::BoxFuture<
        'a,
        Result<Option<a2a_runtime::oauth::User>, a2a_runtime::oauth::OAuthError>,
    > {
        let session = request
            .headers
            .get("cookie")
            .and_then(|v| v.to_str().ok())
            .and_then(|cookies| {
                cookies
                    .split(';')
                    .find_map(|pair| pair.trim().strip_prefix("app_session="))
            })
            .and_then(|id| self.sessions.lock().unwrap().get(id).cloned());
        Box::pin(async move { Ok(session.map(a2a_runtime::oauth::User::new)) })
    }

    fn sign_in_url(&self, return_to: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("return_to", return_to)
            .finish();
        format!("/app/login?{query}")
    }

    fn routes(&self, _context: &a2a_runtime::oauth::SignInContext) -> a2a_runtime::axum::Router {
        use a2a_runtime::axum::extract::{Form, State};
        use a2a_runtime::axum::http::{StatusCode, header};
        use a2a_runtime::axum::response::{IntoResponse, Redirect};
        async fn login(
            State(sign_in): State<PasswordSignIn>,
            Form(form): Form<std::collections::HashMap<String, String>>,
        ) -> a2a_runtime::axum::response::Response {
            let field = |name: &str| form.get(name).map(String::as_str).unwrap_or("");
            if field("password") != "opensesame" {
                return (StatusCode::UNAUTHORIZED, "wrong password").into_response();
            }
            if !a2a_runtime::oauth::is_local_path(field("return_to")) {
                return (StatusCode::BAD_REQUEST, "return_to must be local").into_response();
            }
            let id = format!("s-{}", field("user"));
            sign_in
                .sessions
                .lock()
                .unwrap()
                .insert(id.clone(), field("user").into());
            let mut response = Redirect::to(field("return_to")).into_response();
            let cookie = format!("app_session={id}; Path=/; HttpOnly; SameSite=Lax");
            response
                .headers_mut()
                .insert(header::SET_COOKIE, cookie.parse().unwrap());
            response
        }
        a2a_runtime::axum::Router::new()
            .route("/app/login", a2a_runtime::axum::routing::post(login))
            .with_state(self.clone())
    }
}

#[tokio::test]
async fn an_application_sign_in_of_its_own_decides_who_approves() {
    let server = library(OAuthServer::new(PasswordSignIn::default())).await;
    let base = &server.base;
    let mcp_url = format!("{base}mcp");
    let (_, client) = register(base, CALLBACK).await;
    let client_id = client["client_id"].as_str().unwrap();
    let pkce = Pkce::new();
    let mut browser = Browser::new();
    let url = authorize_url(
        base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", CALLBACK),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("resource", &mcp_url),
        ],
    );
    let Outcome::Redirect(login) = browser.open(&url).await else {
        panic!("no sign-in first");
    };
    assert_eq!(login.path(), "/app/login");
    let return_to = query(&login, "return_to").unwrap();
    let login_url = format!("{base}app/login");
    let attempt = |password: &'static str| [("user", "dave"), ("password", password)];
    let mut form: Vec<(&str, &str)> = attempt("guess").to_vec();
    form.push(("return_to", &return_to));
    let Outcome::Page(status, _) = browser.submit(&login_url, &form).await else {
        panic!("a wrong password signed in");
    };
    assert_eq!(status, 401);
    let mut form: Vec<(&str, &str)> = attempt("opensesame").to_vec();
    form.push(("return_to", &return_to));
    let Outcome::Redirect(consent) = browser.submit(&login_url, &form).await else {
        panic!("signing in did not go on to the consent page");
    };
    let Outcome::Consent {
        html,
        request,
        csrf,
    } = browser.open(consent.as_str()).await
    else {
        panic!("no consent page after signing in");
    };
    assert!(html.contains("dave"), "the page names who approves");
    let scopes: Vec<&str> = LOAN_SCOPES.split(' ').collect();
    let action = format!("{base}oauth/consent");
    let Outcome::Redirect(back) = browser
        .decide(&action, &request, &csrf, "approve", &scopes)
        .await
    else {
        panic!("approving did not redirect");
    };
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &query(&back, "code").unwrap()),
            ("redirect_uri", CALLBACK),
            ("client_id", client_id),
            ("code_verifier", &pkce.verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    let borrow = call("borrow", json!({"title": "Dune"}));
    let access = tokens["access_token"].as_str();
    let (status, _, called) = mcp(&server, "mcp", access, "tools/call", borrow).await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "dave borrowed Dune")
    );
}

#[tokio::test]
async fn the_consent_page_works_in_chromium_and_approving_returns_code_state_and_iss() {
    let (Ok(node), Ok(_)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_PLAYWRIGHT"),
    ) else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_PLAYWRIGHT (scripts/test sets them)");
        return;
    };
    let chromium =
        std::env::var("A2A_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        println!("skipped: no Chromium at {chromium} (.ci/run installs Debian's chromium)");
        return;
    }
    // Where the browser is sent back to: a page of the "client".
    let landing = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let callback = format!("http://{}/callback", landing.local_addr().unwrap());
    let page = a2a_runtime::axum::Router::new().route(
        "/callback",
        a2a_runtime::axum::routing::get(|| async { "signed in" }),
    );
    tokio::spawn(async move { a2a_runtime::axum::serve(landing, page).await });
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = &server.base;
    let (_, client) = register_with(
        base,
        json!({
            "client_name": "Browser test client",
            "redirect_uris": [callback],
            "grant_types": ["authorization_code"],
            "token_endpoint_auth_method": "none",
        }),
    )
    .await;
    let client_id = client["client_id"].as_str().unwrap();
    let pkce = Pkce::new();
    let mcp_url = format!("{base}mcp");
    let url = authorize_url(
        base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", &callback),
            ("state", "browser-state"),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("resource", &mcp_url),
            ("scope", LOAN_SCOPES),
        ],
    );
    let screenshots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots/oauth");
    std::fs::create_dir_all(&screenshots).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("browser/consent.mjs");
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(node)
            .arg(script)
            .args([&url, &callback, screenshots.to_str().unwrap()])
            .env("A2A_TEST_CHROMIUM", &chromium)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the browser finished in time")
    .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser test failed: {}{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let back = url::Url::parse(stdout.trim()).expect("the URL the browser returned to");
    assert_eq!(query(&back, "state").as_deref(), Some("browser-state"));
    assert_eq!(query(&back, "iss").as_deref(), Some(base.as_str()));
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &query(&back, "code").unwrap()),
            ("redirect_uri", &callback),
            ("client_id", client_id),
            ("code_verifier", &pkce.verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    // The person unticked the second scope.
    assert_eq!(tokens["scope"], "library:loans:write");
    assert!(screenshots.join("consent.png").exists());
}
