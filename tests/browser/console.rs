//! The console: served on loopback under a strict content security policy, at `/console`, at
//! an agent's URL for browsers and, on a host, under each agent's path with a picker; and used
//! in Chromium against the currency agent and the agent host (`console.mjs`,
//! `console-host.mjs`).

use a2a_runtime::server::ServeConfig;
use a2a_tests::lab::Lab;
use a2a_tests::oauth_flow::register_with;
use a2a_tests::tokens::{SECRET, claims, hs256};
use a2a_tests::{Browser, TestServer, start};
use serde_json::json;

/// The console's response to `GET path` with `accept`: status, content type, policy.
async fn console_get(server: &TestServer, path: &str, accept: &str) -> (u16, String, String) {
    let response = server
        .http
        .get(format!("{}{path}", server.base))
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (content_type, policy) = (header("content-type"), header("content-security-policy"));
    (response.status().as_u16(), content_type, policy)
}

#[tokio::test]
async fn the_console_is_served_on_loopback_under_a_strict_policy_and_at_the_root_for_browsers() {
    let server = start(Lab.server()).await;
    let (status, content_type, policy) = console_get(&server, "console", "text/html").await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/html; charset=utf-8")
    );
    for rule in [
        "default-src 'none'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(rule), "{policy}");
    }
    // A browser at the agent's own URL gets the page; anything else still learns to POST.
    let browser = "text/html,application/xhtml+xml,*/*;q=0.8";
    assert_eq!(console_get(&server, "", browser).await.0, 200);
    let response = server.http.get(&server.base).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let (status, content_type, _) = console_get(&server, "console/console.js", "*/*").await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/javascript; charset=utf-8")
    );
    // A foreign Host is refused here as everywhere.
    let rebound = server
        .http
        .get(format!("{}console", server.base))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status().as_u16(), 403);
}

#[tokio::test]
async fn the_console_is_off_when_turned_off_and_by_default_beyond_loopback() {
    let mut config = ServeConfig::default();
    config.console = Some(false);
    let server = start(Lab.server().config(config)).await;
    assert_eq!(console_get(&server, "console", "text/html").await.0, 404);
    assert_eq!(console_get(&server, "", "text/html").await.0, 405);
    let mut wide = ServeConfig::default();
    wide.bind = "0.0.0.0:8080".parse().unwrap();
    assert!(
        !wide.console_enabled(),
        "off beyond loopback unless asked for"
    );
    wide.console = Some(true);
    assert!(wide.console_enabled());
}

#[tokio::test]
async fn the_console_tries_skills_answers_questions_and_cancels_in_chromium() {
    let Some(browser) = a2a_tests::browser() else {
        return;
    };
    let currency = env!("CARGO_BIN_EXE_interop-currency");
    let (_open, base) = a2a_tests::spawn_served(currency).await;
    run_in_chromium(&browser, "console.mjs", "console", &[&base]).await;
    // An agent that asks who calls: the page asks to sign in first, and shows nothing before.
    let key = "console-key-0123456789abcdef";
    let keys = format!("ann={key}");
    let (_guarded, base) = a2a_tests::spawn_served_with(currency, &["--api-keys", &keys]).await;
    let signed_in = [base.as_str(), key];
    run_in_chromium(&browser, "console.mjs", "console-signed-in", &signed_in).await;
}

/// Runs `tests/browser/{script}` with `args`, the screenshot directory `name` inserted second
/// (after the base URL); it must say `console ok` and have run axe-core.
async fn run_in_chromium(browser: &Browser, script: &str, name: &str, args: &[&str]) {
    let screenshots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("screenshots")
        .join(name);
    std::fs::create_dir_all(&screenshots).unwrap();
    let mut arguments = args.to_vec();
    arguments.insert(1, screenshots.to_str().unwrap());
    let stdout = browser.run(script, &arguments).await;
    assert!(stdout.contains("console ok"), "{stdout}");
    assert!(stdout.contains("accessibility:"), "axe-core ran: {stdout}");
}

#[tokio::test]
async fn a_host_serves_the_console_at_its_root_and_under_each_agent_with_what_it_has() {
    let host = env!("CARGO_BIN_EXE_interop-host");
    let (_host, base) = a2a_tests::spawn_served_with(host, &["--metrics"]).await;
    let server = TestServer::at(base);
    let browser = "text/html,*/*;q=0.8";
    for path in [
        "console",
        "",
        "booking/console",
        "booking/",
        "hello/console",
    ] {
        let (status, content_type, _) = console_get(&server, path, browser).await;
        assert_eq!(
            (status, content_type.as_str()),
            (200, "text/html; charset=utf-8"),
            "{path}"
        );
    }
    // JSON-RPC clients still learn to POST at an agent's URL.
    let response = server
        .http
        .get(format!("{}booking/", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 405);
    // The page learns what the server has: a catalog, metrics; no usage, no authorization
    // server.
    let facts = server.get_json("console/server.json").await;
    assert_eq!(
        facts,
        json!({"host": true, "oauth": false, "admin": ["/metrics"]})
    );
    assert_eq!(
        console_get(&server, "console/nothing.js", "*/*").await.0,
        404
    );
}

#[tokio::test]
async fn the_console_picks_agents_on_a_host_and_shows_clients_usage_and_metrics_in_chromium() {
    let Some(browser) = a2a_tests::browser() else {
        return;
    };
    let host = env!("CARGO_BIN_EXE_interop-host");
    let flags = [
        "--jwt-secret",
        SECRET,
        "--usage",
        "--metrics",
        "--oauth-dev-user",
        "dev",
        "--oauth-admin",
        "root",
        // A remote that never answers: the picker says so.
        "--remote-agent",
        "gone=http://127.0.0.1:9/",
    ];
    let (_host, base) = a2a_tests::spawn_served_with(host, &flags).await;
    let facts = TestServer::at(base.clone())
        .get_json("console/server.json")
        .await;
    assert_eq!(
        facts,
        json!({"host": true, "oauth": true,
               "admin": ["/metrics", "/usage", "/usage/me", "/oauth/clients"]})
    );
    let client = "Console test client";
    let (status, _) = register_with(
        &base,
        json!({"client_name": client, "redirect_uris": ["http://127.0.0.1:9/callback"],
               "token_endpoint_auth_method": "none"}),
    )
    .await;
    assert_eq!(status, 201);
    let token = hs256(&claims("root", "a2a:admin"));
    let script = "console-host.mjs";
    run_in_chromium(&browser, script, "console-host", &[&base, &token, client]).await;
    // The page deleted the client: the server agrees.
    let listed = a2a_tests::http()
        .get(format!("{base}oauth/clients"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let listed: serde_json::Value = listed.json().await.unwrap();
    assert_eq!(listed["clients"], json!([]), "{listed}");
}

#[tokio::test]
async fn the_console_signs_in_with_the_servers_authorization_server_in_chromium() {
    let Some(browser) = a2a_tests::browser() else {
        return;
    };
    let currency = env!("CARGO_BIN_EXE_interop-currency");
    let key = "console-admin-key-0123456789";
    let keys = format!("root={key}");
    let flags = [
        "--oauth-dev-user",
        "dev",
        "--oauth-admin",
        "root",
        "--api-keys",
        &keys,
    ];
    let (_agent, base) = a2a_tests::spawn_served_with(currency, &flags).await;
    run_in_chromium(&browser, "console-oauth.mjs", "console-oauth", &[&base]).await;
    // Two sign-ins, one registration, redirecting to the console.
    let listed: serde_json::Value = a2a_tests::http()
        .get(format!("{base}oauth/clients"))
        .header("x-api-key", key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let clients = listed["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 1, "{listed}");
    assert_eq!(clients[0]["client_name"], "Agent console");
    assert_eq!(
        clients[0]["redirect_uris"],
        json!([format!("{base}console")])
    );
}
