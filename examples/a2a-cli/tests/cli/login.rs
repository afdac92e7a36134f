//! `a2a login`: signing in through an agent's authorization server, and what a hostile one
//! may not make it do.

use super::*;

/// The saved sign-in files in `config`.
fn saved_logins(config: &std::path::Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(config.join("logins")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap())
        .collect()
}

/// A person consenting, in a browser, to what the authorization `url` of the server at `base`
/// asks, as the command line client that registered itself; the browser is sent back to the
/// command's loopback listener.
async fn consents(base: &str, url: &str) {
    use a2a_tests::oauth_flow::{Browser, Outcome};
    let mut browser = Browser::new();
    let Outcome::Consent {
        html,
        request,
        csrf,
        ..
    } = browser.open(url).await
    else {
        panic!("no consent page for {url}");
    };
    assert!(html.contains("a2a (command line)"), "{html}");
    let scopes = ["library:loans:write", "library:members:read"];
    let Outcome::Redirect(back) = browser
        .decide(
            &format!("{base}oauth/consent"),
            &request,
            &csrf,
            "approve",
            &scopes,
        )
        .await
    else {
        panic!("approving did not send the browser back");
    };
    assert_eq!(back.host_str(), Some("127.0.0.1"));
    let landed = a2a_tests::get(back.as_str()).await.unwrap();
    assert!(landed.text().await.unwrap().contains("Signed in"));
}

#[tokio::test]
async fn login_signs_in_through_the_agents_authorization_server_and_later_calls_send_and_refresh_it()
 {
    use a2a_runtime::oauth::OAuthServer;
    use tokio::io::AsyncBufReadExt;
    // Tokens live less than the minute before expiry a saved one is refreshed: each call
    // refreshes.
    let settings =
        OAuthServer::dev_user("alice").access_token_ttl(std::time::Duration::from_secs(30));
    let server = start(
        a2a_tests::library::Library
            .server()
            .authorization_server(settings),
    )
    .await;
    let base = server.base.as_str();
    let config = config_dir("login");
    let mut login = Command::new(A2A)
        .args(["login", base, "--no-browser"])
        .env("A2A_CONFIG_DIR", &config)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(login.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("a2a login prints the URL");
        if let Some(url) = line.trim().strip_prefix(&format!("{base}oauth/authorize")) {
            break format!("{base}oauth/authorize{url}");
        }
    };
    // The person: consents in the browser, which is sent back to the command's listener.
    consents(base, &url).await;
    let status = login.wait().await.unwrap();
    while let Ok(Some(line)) = lines.next_line().await {
        assert!(!line.contains("a2a:"), "{line}");
    }
    assert!(status.success());
    let saved = saved_logins(&config);
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0]["resource"], base);
    // A later call sends the saved token, refreshed and saved again.
    let args = [
        "send",
        base,
        "--skill",
        "borrow",
        "--data",
        r#"{"title":"Dune"}"#,
    ];
    let sent = stdout(&a2a_in(&config, &args).await);
    assert!(sent.contains("alice borrowed Dune"), "{sent}");
    let refreshed = saved_logins(&config);
    assert_ne!(refreshed[0]["access_token"], saved[0]["access_token"]);
    assert_ne!(refreshed[0]["refresh_token"], saved[0]["refresh_token"]);
    // Signed out, the agent refuses the call and says what it needs.
    stdout(&a2a_in(&config, &["logout", base]).await);
    let refused = a2a_in(&config, &args).await;
    assert!(!refused.status.success());
    assert!(saved_logins(&config).is_empty());
    let _ = std::fs::remove_dir_all(&config);
}

/// `a2a login URL --no-browser` in `config`, until it prints the authorization URL: the child
/// and that URL.
async fn login_started(
    config: &std::path::Path,
    base: &str,
) -> (tokio::process::Child, reqwest::Url) {
    use tokio::io::AsyncBufReadExt;
    let mut login = Command::new(A2A)
        .args(["login", base, "--no-browser"])
        .env("A2A_CONFIG_DIR", config)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(login.stderr.take().unwrap()).lines();
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the authorization URL");
        if let Ok(url) = reqwest::Url::parse(line.trim())
            && url.path() == "/authorize"
        {
            // Drain what else it says, so it never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (login, url);
        }
    }
}

#[tokio::test]
async fn login_refuses_metadata_that_would_send_tokens_or_the_browser_elsewhere() {
    use a2a_tests::hostile::SignInServer;
    for (server, says) in [
        // A resource that is no URL of the agent's: a string prefix would cover every agent.
        (
            SignInServer {
                resource: Some("http://".into()),
                ..SignInServer::default()
            },
            "another resource",
        ),
        // Endpoints a browser must never be handed.
        (
            SignInServer {
                authorization_endpoint: Some("javascript:alert(1)".into()),
                ..SignInServer::default()
            },
            "only https",
        ),
        (
            SignInServer {
                authorization_endpoint: Some("file:///etc/passwd".into()),
                ..SignInServer::default()
            },
            "only https",
        ),
    ] {
        let base = server.start().await;
        let config = config_dir("login-hostile");
        let output = a2a_in(&config, &["login", &base, "--no-browser"]).await;
        assert!(!output.status.success(), "{output:?}");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(said.contains(says), "{said}");
        assert!(
            !said.contains("Open this URL"),
            "nothing is offered to open: {said}"
        );
        assert!(saved_logins(&config).is_empty());
    }
}

/// Parameter `name` of `url`'s query.
fn query_param(url: &reqwest::Url, name: &str) -> String {
    url.query_pairs()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
        .unwrap()
}

#[tokio::test]
async fn login_refuses_an_answer_without_the_promised_iss_and_bounds_what_it_saves() {
    let base = a2a_tests::hostile::SignInServer::default().start().await;
    let issuer = base.trim_end_matches('/').to_owned();
    // An answer without `iss`, from a server whose metadata promises it (RFC 9207 §2.4).
    let config = config_dir("login-iss");
    let (mut login, url) = login_started(&config, &base).await;
    let param = |name: &str| query_param(&url, name);
    let (redirect, state) = (param("redirect_uri"), param("state"));
    let back = format!("{redirect}?code=c&state={state}");
    let _ = a2a_tests::get(&back).await;
    let status = login.wait().await.unwrap();
    assert!(!status.success(), "an answer without iss was followed");
    assert!(saved_logins(&config).is_empty());
    // With `iss`: signed in, the absurd lifetime cut to a week, and the file its owner's only
    // even where a left-over file of the same name was readable by all.
    let config = config_dir("login-bounds");
    let logins = config.join("logins");
    std::fs::create_dir_all(&logins).unwrap();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(base.as_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let partial = logins.join(format!("{name}.json.partial"));
    std::fs::write(&partial, "left over").unwrap();
    let (mut login, url) = login_started(&config, &base).await;
    let param = |name: &str| query_param(&url, name);
    let back = reqwest::Url::parse_with_params(
        &param("redirect_uri"),
        [("code", "c"), ("state", &param("state")), ("iss", &issuer)],
    )
    .unwrap();
    let _ = a2a_tests::get(back.as_str()).await;
    assert!(login.wait().await.unwrap().success());
    let saved = saved_logins(&config);
    assert_eq!(saved.len(), 1, "{saved:?}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let expires = saved[0]["expires_at"].as_i64().unwrap();
    let week = i64::try_from(now).unwrap() + 7 * 24 * 3600;
    assert!(expires > 0 && expires <= week + 5, "{expires} vs {week}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let file = logins.join(format!("{name}.json"));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
}
