//! Sign-in through a server's own authorization server with the official MCP Python client:
//! the development sign-in (dynamic registration and a client ID metadata document) and proxy
//! mode at a real OpenID Connect provider. (A module of the `interop` test binary.)

use std::time::Duration;

use a2a_tests::upstream::Provider;
use serde_json::json;

use super::{require_packages, run_python, script};

/// The official MCP client signs in through a server's own authorization server (playing the
/// browser on the consent page), by dynamic registration and by a client ID metadata document,
/// calls a protected tool, and refreshes when the access token expires.
#[tokio::test]
async fn official_mcp_client_signs_in_through_the_authorization_server_and_refreshes() {
    use a2a_runtime::oauth::OAuthServer;
    use a2a_tests::oauth_flow::document_server;
    require_packages().await;
    let ca = a2a_tests::pki::TestCa::new("oauth-interop");
    let documents = document_server(&ca, |base| {
        let id = format!("{base}interop-client.json");
        vec![(
            "/interop-client.json".to_owned(),
            json!({
                "client_id": id,
                "client_name": "interop client (metadata document)",
                "redirect_uris": ["http://127.0.0.1:3030/callback"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }),
        )]
    })
    .await;
    let settings = OAuthServer::dev_user("alice")
        .access_token_ttl(Duration::from_secs(2))
        .client_documents_allow_private(true)
        .client_documents_ca(ca.cert_pem.clone());
    let library = a2a_tests::library::Library
        .server()
        .authorization_server(settings);
    let server = a2a_tests::start(library).await;
    let mcp_url = format!("{}mcp", server.base);
    let oauth = script("mcp_oauth.py");
    run_python(&[oauth.to_str().unwrap(), &mcp_url, "alice"]).await;
    let document = format!("{documents}interop-client.json");
    run_python(&[oauth.to_str().unwrap(), &mcp_url, "alice", &document]).await;
}

/// The official MCP TypeScript SDK's OAuth client (from npm, pinned by scripts/test) signs in
/// through a server's own authorization server the way it does against any: from the 401 of a
/// protected tool call, dynamic registration, consent (played here), `finishAuth`, the call as
/// the user, and a refresh once the access token expires.
#[tokio::test]
async fn official_typescript_mcp_client_signs_in_through_the_authorization_server_and_refreshes() {
    use a2a_runtime::oauth::OAuthServer;
    let (Ok(node), Ok(_)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_MCP_SDK"),
    ) else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_MCP_SDK (scripts/test sets them)");
        return;
    };
    let settings = OAuthServer::dev_user("alice").access_token_ttl(Duration::from_secs(2));
    let library = a2a_tests::library::Library
        .server()
        .authorization_server(settings);
    let server = a2a_tests::start(library).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/mcp_oauth.mjs");
    let mcp = format!("{}mcp", server.base);
    let limit = Duration::from_secs(60);
    let said = a2a_tests::run_to_success(&node, &[script, &mcp, "alice"], limit).await;
    assert!(said.contains("signed in as alice"), "{said}");
}

/// Proxy mode: users sign in at a real OpenID Connect provider (npm's `oidc-provider`, started
/// here on loopback), configured through the `--oauth-proxy` settings; the official MCP client
/// ends up with this server's tokens naming the upstream account, and refreshes them.
#[tokio::test]
async fn official_mcp_client_signs_in_through_an_upstream_openid_provider() {
    use a2a_runtime::server::ServeConfig;
    require_packages().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let callback = format!("{base}oauth/upstream/callback");
    let secret = "upstream-secret-0123456789";
    let Some(provider) = Provider::start("a2a-host", secret, &callback).await else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_OIDC_PROVIDER (scripts/test sets them)");
        return;
    };
    let mut config = ServeConfig::default();
    config.oauth.proxy_issuer = Some(provider.issuer.clone());
    config.oauth.proxy_client_id = Some("a2a-host".into());
    config.oauth.proxy_client_secret = Some("upstream-secret-0123456789".into());
    config.oauth.access_token_ttl = Some(Duration::from_secs(2));
    let server = a2a_tests::library::Library
        .server()
        .config(config)
        .public_url(base.clone());
    tokio::spawn(async move { server.serve_on(listener).await.unwrap() });
    let oauth = script("mcp_oauth.py");
    let printed = run_python(&[oauth.to_str().unwrap(), &format!("{base}mcp"), "carol"]).await;
    assert!(printed.contains("upstream pages"), "{printed}");
}
