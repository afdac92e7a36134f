//! The authorization server under abuse: an open registration used as a redirector, a flood of
//! registrations that never sign anyone in, and a client list too long to see at once.

use std::time::Duration;

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{Pkce, authorize_url, authorized_code, no_redirects, register};
use a2a_tests::{TestServer, start};
use serde_json::Value;

use super::{CALLBACK, LOAN_SCOPES, library};

/// A web application's redirect URI: https, on a host nobody vouched for.
const APP: &str = "https://app.example/oauth/callback";

/// Registers a client at [`APP`] and has a person approve it there: its id.
async fn approved_client(server: &TestServer) -> String {
    let (status, client) = register(&server.base, APP).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap().to_owned();
    let mcp_url = format!("{}mcp", server.base);
    authorized_code(&server.base, &client_id, APP, &mcp_url, LOAN_SCOPES).await;
    client_id
}

/// `GET /oauth/authorize` for `client_id` at `redirect_uri` with a `response_type` no server
/// accepts, as a link an attacker sends a person: status and `Location`, if any.
async fn bogus_request(
    server: &TestServer,
    client_id: &str,
    redirect_uri: &str,
) -> (u16, Option<String>, String) {
    let pkce = Pkce::new();
    let url = authorize_url(
        &server.base,
        &[
            ("client_id", client_id),
            ("redirect_uri", redirect_uri),
            ("response_type", "bogus"),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", "s"),
        ],
    );
    let response = no_redirects().get(url).send().await.unwrap();
    let location = response
        .headers()
        .get("location")
        .map(|value| value.to_str().unwrap().to_owned());
    let status = response.status().as_u16();
    (status, location, response.text().await.unwrap())
}

#[tokio::test]
async fn an_open_registration_is_no_redirector_until_a_person_approved_the_client() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let evil = "https://evil.example/landing";
    let (status, client) = register(&server.base, evil).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap();
    let (status, location, page) = bogus_request(&server, client_id, evil).await;
    assert_eq!(
        (status, location.as_deref()),
        (400, None),
        "an error page, no redirect"
    );
    assert!(
        page.contains("response_type"),
        "the page says what is wrong: {page}"
    );
    // A client a person approved at its redirect URI is told its errors there.
    let approved = approved_client(&server).await;
    let (status, location, _) = bogus_request(&server, &approved, APP).await;
    assert_eq!(status, 302);
    let location = location.unwrap();
    assert!(
        location.starts_with(APP) && location.contains("error=unsupported_response_type"),
        "{location}"
    );
    // So is a desktop client at its loopback listener, on the person's own machine.
    let (_, desktop) = register(&server.base, CALLBACK).await;
    let desktop = desktop["client_id"].as_str().unwrap();
    let (status, location, _) = bogus_request(&server, desktop, CALLBACK).await;
    assert_eq!(status, 302);
    assert!(location.unwrap().starts_with(CALLBACK));
    // So is one whose redirect the operator named (a hosted assistant's documented callback).
    let claude = "https://claude.ai/api/mcp/auth_callback";
    let vouched = library(
        OAuthServer::dev_user("alice")
            .redirect_preset("claude")
            .unwrap(),
    )
    .await;
    let (_, client) = register(&vouched.base, claude).await;
    let (status, location, _) =
        bogus_request(&vouched, client["client_id"].as_str().unwrap(), claude).await;
    assert_eq!(status, 302);
    assert!(location.unwrap().starts_with(claude));
}

#[tokio::test]
async fn registrations_are_capped_and_one_nobody_approved_lapses() {
    let server = library(
        OAuthServer::dev_user("alice")
            .max_clients(3)
            .unused_client_ttl(Duration::from_secs(2)),
    )
    .await;
    let approved = approved_client(&server).await;
    let mut unused = Vec::new();
    for _ in 0..2 {
        let (status, client) = register(&server.base, APP).await;
        assert_eq!(status, 201, "{client}");
        unused.push(client["client_id"].as_str().unwrap().to_owned());
    }
    let (status, refused) = register(&server.base, APP).await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(refused["error"], "temporarily_unavailable");
    assert!(
        refused["error_description"]
            .as_str()
            .unwrap()
            .contains("3 registered clients"),
        "{refused}"
    );
    // The unused registrations lapse; the approved client stays.
    let (_, _, page) = bogus_request(&server, &unused[0], APP).await;
    assert!(page.contains("response_type"), "still registered: {page}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for lapsed in &unused {
        let (status, _, page) = bogus_request(&server, lapsed, APP).await;
        assert_eq!(status, 400);
        assert!(page.contains("not registered"), "{lapsed} lapsed: {page}");
    }
    let (status, location, _) = bogus_request(&server, &approved, APP).await;
    assert_eq!(
        status, 302,
        "the approved client is still registered: {location:?}"
    );
    // Their places are free again.
    let (status, client) = register(&server.base, APP).await;
    assert_eq!(status, 201, "{client}");
}

#[tokio::test]
async fn the_client_list_comes_in_pages_so_every_client_can_be_seen() {
    let keys = a2a_runtime::auth::ApiKeys::parse("ops=ops-key-0123456789").unwrap();
    let server = start(
        Library
            .server()
            .api_keys(keys)
            .authorization_server(OAuthServer::dev_user("alice").admin("ops")),
    )
    .await;
    for _ in 0..5 {
        assert_eq!(register(&server.base, CALLBACK).await.0, 201);
    }
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..5 {
        let mut url = format!("{}oauth/clients?page_size=2", server.base);
        if let Some(token) = &token {
            url.push_str(&format!("&page_token={token}"));
        }
        let page: Value = server
            .http
            .get(url)
            .header("x-api-key", "ops-key-0123456789")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        for client in page["clients"].as_array().unwrap() {
            seen.push(client["client_id"].as_str().unwrap().to_owned());
        }
        token = page["next_page_token"].as_str().map(str::to_owned);
        if token.is_none() {
            break;
        }
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 5, "every client once: {seen:?}");
    let refused = server
        .http
        .get(format!("{}oauth/clients?page_size=0", server.base))
        .header("x-api-key", "ops-key-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
}

/// The size of every `records.sqlite3-wal` under `dir`, added up.
fn wal_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .is_some_and(|name| name == "records.sqlite3-wal")
            {
                total += entry.metadata().map_or(0, |meta| meta.len());
            }
        }
    }
    total
}

/// A burst of registrations (from 200 addresses, each within its rate) grows the records'
/// write-ahead log; once the writes pause it is cut back, not left at the burst's size.
#[tokio::test]
async fn a_burst_of_registrations_leaves_no_large_write_ahead_log_behind() {
    let data = a2a_tests::scratch_dir();
    let (_server, base) = a2a_tests::spawn_served_with(
        env!("CARGO_BIN_EXE_interop-currency"),
        &[
            "--oauth-dev-user",
            "dev",
            "--data-dir",
            data.to_str().unwrap(),
        ],
    )
    .await;
    let writes = std::env::var("A2A_TEST_WAL_WRITES")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(2000);
    let addresses = writes.div_ceil(10);
    let mut burst = Vec::new();
    for n in 0..addresses {
        let source: std::net::IpAddr = format!("127.0.{}.{}", 1 + n / 250, 1 + n % 250)
            .parse()
            .unwrap();
        let http = a2a_tests::http_builder()
            .local_address(source)
            .build()
            .unwrap();
        let base = base.clone();
        burst.push(tokio::spawn(async move {
            for _ in 0..10 {
                let response = http
                    .post(format!("{base}oauth/register"))
                    .json(&serde_json::json!({"redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status().as_u16(), 201);
            }
        }));
    }
    for task in burst {
        task.await.unwrap();
    }
    let after_burst = wal_bytes(&data);
    eprintln!(
        "write-ahead log after {} registrations: {after_burst} bytes",
        addresses * 10
    );
    // A hang guard only: the log is cut back a second or two after the writes pause.
    let mut idle = wal_bytes(&data);
    for _ in 0..150 {
        if idle <= 1024 * 1024 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        idle = wal_bytes(&data);
    }
    eprintln!("write-ahead log once idle: {idle} bytes");
    assert!(idle <= 1024 * 1024, "the log stayed at {idle} bytes");
}
