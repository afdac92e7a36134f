//! The official MCP conformance suite's authorization-server scenarios against this server's
//! own authorization server: its metadata, and a whole authorization code grant, the consent
//! approved by the test's browser, the code sent to the suite's callback listener.

use std::process::Stdio;
use std::time::Duration;

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::oauth_flow::{Browser, Outcome, register};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use super::library;

#[tokio::test]
async fn the_conformance_suites_authorization_scenarios_pass_without_warnings() {
    let (Ok(node), Ok(suite)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_CONFORMANCE"),
    ) else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_CONFORMANCE (scripts/test sets them)");
        return;
    };
    let server = library(OAuthServer::dev_user("alice")).await;
    let base = server.base.as_str();
    // The suite's callback listener, on a port free now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|probe| probe.local_addr())
        .unwrap()
        .port();
    let callback = format!("http://127.0.0.1:{port}/callback");
    let (status, client) = register(base, &callback).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap();
    let output = a2a_tests::scratch_named("as-conformance");
    let mut run = tokio::process::Command::new(node)
        .arg(suite)
        .args(["authorization", "--url", base, "--client-id", client_id])
        .args([
            "--resource",
            &format!("{base}mcp"),
            "--port",
            &port.to_string(),
        ])
        .arg("--output-dir")
        .arg(&output)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs");
    let mut lines = BufReader::new(run.stdout.take().unwrap()).lines();
    let mut printed = String::new();
    // The suite prints the authorization URL for a person to open: this test is the person.
    let prefix = format!("{base}oauth/authorize?");
    let url = line_starting(&mut lines, &prefix, &mut printed).await;
    let mut browser = Browser::new();
    let Outcome::Consent { request, csrf, .. } = browser.open(&url).await else {
        panic!("no consent page for {url}");
    };
    let Outcome::Redirect(back) = browser
        .decide(
            &format!("{base}oauth/consent"),
            &request,
            &csrf,
            "approve",
            &[],
        )
        .await
    else {
        panic!("approving did not send the browser back");
    };
    assert!(back.as_str().starts_with(&callback), "{back}");
    follow_to_callback(back.as_str()).await;
    while let Ok(Some(line)) = lines.next_line().await {
        printed.push_str(&line);
        printed.push('\n');
    }
    let mut errors = String::new();
    let _ = run.stderr.take().unwrap().read_to_string(&mut errors).await;
    let status = run.wait().await.unwrap();
    let _ = std::fs::remove_dir_all(&output);
    assert!(status.success(), "{printed}\n{errors}");
    // Both scenarios ran their three checks, none failed and none warned.
    assert!(printed.contains("Total: 3 passed, 0 failed"), "{printed}");
    assert!(!printed.to_lowercase().contains("warning"), "{printed}");
}

/// The first line of `lines` starting with `prefix`, each line read kept in `printed`.
async fn line_starting(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    prefix: &str,
    printed: &mut String,
) -> String {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the suite printed the line in time")
            .unwrap()
            .unwrap_or_else(|| panic!("the suite ended first:\n{printed}"));
        printed.push_str(&line);
        printed.push('\n');
        if line.starts_with(prefix) {
            return line;
        }
    }
}

/// Opens the suite's callback `url` as the browser would. The suite may print the
/// authorization URL before its listener is up, so a refused connection is retried (as a
/// person would reload the page) for up to ten seconds.
async fn follow_to_callback(url: &str) {
    let mut attempts = 0;
    while let Err(error) = a2a_tests::get(url).await {
        attempts += 1;
        assert!(
            error.is_connect() && attempts < 100,
            "the suite's callback answers: {error}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
