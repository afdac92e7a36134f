//! Clients: registration and its redirect allow-lists, client ID metadata documents, the
//! administrative API, and the registration rate.

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{
    Browser, Outcome, Pkce, authorize_url, register, register_with, token,
};
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

use super::{CALLBACK, LOAN_SCOPES, library, signed_in};

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
async fn registrations_from_one_address_are_rate_limited_with_retry_after() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(register(&server.base, CALLBACK).await.0);
    }
    assert!(statuses[..10].iter().all(|s| *s == 201), "{statuses:?}");
    assert_eq!(statuses[11], 429, "{statuses:?}");
    let response = a2a_tests::http()
        .post(format!("{}oauth/register", server.base))
        .json(&json!({"redirect_uris": [CALLBACK]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"], "temporarily_unavailable");
}

/// `n` registrations through `client` at `base`: their statuses.
async fn registrations(base: &str, client: &reqwest::Client, spoof: bool, n: usize) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..n {
        let mut request = client
            .post(format!("{base}oauth/register"))
            .json(&json!({"redirect_uris": [CALLBACK]}));
        if spoof {
            request = request.header("x-forwarded-for", format!("198.51.100.{i}"));
        }
        statuses.push(request.send().await.unwrap().status().as_u16());
    }
    statuses
}

/// Behind a reverse proxy the operator trusts, each client it forwards for has a registration
/// limit of its own; without that trust every client of the proxy shares the proxy's, and a
/// client calling the server itself cannot choose its address with the header.
#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_registration_limit() {
    use a2a_runtime::server::ServeConfig;
    use a2a_tests::reverse_proxy::{self, client_from};
    for trusted in [true, false] {
        let mut config = ServeConfig::default();
        if trusted {
            config.trusted_proxies = "127.0.0.1/32".parse().unwrap();
        }
        let agent = Library
            .server()
            .config(config)
            .authorization_server(OAuthServer::dev_user("alice"));
        let server = start(agent).await;
        let proxy = reverse_proxy::start(&server.base).await;
        let first = registrations(&proxy, &client_from("127.0.0.2"), false, 11).await;
        assert!(first[..10].iter().all(|s| *s == 201), "{first:?}");
        assert_eq!(first[10], 429, "{first:?}");
        let second = registrations(&proxy, &client_from("127.0.0.3"), false, 1).await;
        assert_eq!(
            second,
            [if trusted { 201 } else { 429 }],
            "trusted: {trusted}"
        );
        if trusted {
            // Straight to the server from an address that is no proxy: the header is ignored.
            let direct = client_from("127.0.0.4");
            let spoofing = registrations(&server.base, &direct, true, 11).await;
            assert_eq!(spoofing[10], 429, "{spoofing:?}");
        }
    }
}

/// A person named administrator who signs in through the server's own sign-in (as the console
/// does) is an administrator: their access token opens the client list; another person's does
/// not.
#[tokio::test]
async fn an_administrator_signed_in_here_manages_clients_with_the_servers_own_token() {
    let list = |server: &TestServer, token: String| {
        let request = server
            .http
            .get(format!("{}oauth/clients", server.base))
            .bearer_auth(token);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let server = library(OAuthServer::dev_user("alice").admin("alice")).await;
    let mcp_url = format!("{}mcp", server.base);
    let (client_id, tokens) = signed_in(&server, &mcp_url, LOAN_SCOPES).await;
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let (status, listed) = list(&server, access).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["clients"][0]["client_id"], client_id.as_str());
    // Signed in as alice, but the administrator is ops.
    let other = library(OAuthServer::dev_user("alice").admin("ops")).await;
    let (_, tokens) = signed_in(&other, &format!("{}mcp", other.base), LOAN_SCOPES).await;
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let (status, refused) = list(&other, access).await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused["error_description"]
            .as_str()
            .unwrap()
            .contains("alice is not an administrator"),
        "{refused}"
    );
}
