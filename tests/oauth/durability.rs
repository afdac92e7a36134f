//! What the authorization server keeps: across a restart on SQLite, and between replicas on
//! Postgres.

use std::time::Duration;

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::TestServer;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{authorized_code, register, token};
use serde_json::json;

use super::super::{call, mcp};
use super::{CALLBACK, LOAN_SCOPES, signed_in, text_of};

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
