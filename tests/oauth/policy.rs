//! Per-person authorization at sign-in, in proxy mode against a real OpenID Connect provider
//! (npm's `oidc-provider` on loopback): the allow-list admits people by email domain, group
//! rules decide which scopes each may grant, the consent page offers only those, the token
//! carries only those whatever the form says, and someone outside the allow-list is refused
//! before any code exists.

use std::time::Duration;

use a2a_runtime::server::ServeConfig;
use a2a_tests::TestServer;
use a2a_tests::oauth_flow::{Browser, Outcome, Pkce, authorize_url, query, register, token};
use a2a_tests::upstream::{Provider, walk};
use serde_json::json;

use super::super::{call, mcp};
use super::{CALLBACK, text_of};

/// Every scope the library's skills use.
const EVERY_SCOPE: &str = "library:loans:write library:members:read mcp:tools:notes";

/// The library signing people in at a provider started here, admitting accounts at
/// example.test, the group `finance` granting the loan scopes and everyone the member scope;
/// `None` when the test environment has no provider.
async fn proxied_library() -> Option<(TestServer, Provider)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let upstream_callback = format!("{base}oauth/upstream/callback");
    let secret = "upstream-secret-0123456789";
    let provider = Provider::start("a2a-host", secret, &upstream_callback).await?;
    let mut config = ServeConfig::default();
    config.oauth.proxy_issuer = Some(provider.issuer.clone());
    config.oauth.proxy_client_id = Some("a2a-host".into());
    config.oauth.proxy_client_secret = Some(secret.into());
    config.oauth.proxy_scope = Some("openid profile email groups".into());
    config.oauth.allow_domains = vec!["example.test".into()];
    config.oauth.group_scopes = vec![
        "finance=library:loans:*".into(),
        "*=library:members:read".into(),
    ];
    let agent = a2a_tests::library::Library
        .server()
        .config(config)
        .public_url(base.clone());
    tokio::spawn(async move { agent.serve_on(listener).await.unwrap() });
    Some((TestServer::at(base), provider))
}

/// The authorization URL of `client_id` for the library's MCP endpoint, asking for `scope`.
fn authorization(server: &TestServer, client_id: &str, pkce: &Pkce, scope: &str) -> String {
    let resource = format!("{}mcp", server.base);
    authorize_url(
        &server.base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", CALLBACK),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("resource", &resource),
            ("scope", scope),
        ],
    )
}

/// `login` signs in upstream and approves every scope (ticking even those not offered): the
/// consent page offers exactly `granted`, and the token carries exactly those.
async fn grants(server: &TestServer, client_id: &str, login: &str, granted: &str) -> String {
    let base = &server.base;
    let pkce = Pkce::new();
    let url = authorization(server, client_id, &pkce, EVERY_SCOPE);
    let mut browser = Browser::new();
    let Outcome::Consent {
        html,
        request,
        csrf,
        ..
    } = walk(&mut browser, &url, login, CALLBACK).await
    else {
        panic!("{login} saw no consent page");
    };
    for scope in EVERY_SCOPE.split(' ') {
        let offered = html.contains(&format!("name=\"scope\" value=\"{scope}\""));
        assert_eq!(offered, granted.contains(scope), "{login}: {scope}");
    }
    assert!(html.contains("does not let you grant"), "{html}");
    let every: Vec<&str> = EVERY_SCOPE.split(' ').collect();
    let action = format!("{base}oauth/consent");
    let decided = browser.decide(&action, &request, &csrf, "approve", &every);
    let Outcome::Redirect(back) = decided.await else {
        panic!("{login}'s approval did not redirect");
    };
    let code = query(&back, "code").expect("a code");
    let resource = format!("{base}mcp");
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", CALLBACK),
        ("client_id", client_id),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", resource.as_str()),
    ];
    let (status, tokens) = token(base, &exchange).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["scope"], granted, "{login}");
    tokens["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn proxy_mode_grants_each_group_its_scopes_and_refuses_people_outside_the_allow_list() {
    let Some((server, _provider)) = proxied_library().await else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_OIDC_PROVIDER (scripts/test sets them)");
        return;
    };
    let (status, client) = register(&server.base, CALLBACK).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap();
    let borrow = call("borrow", json!({"title": "Dune"}));
    // Finance may lend; anyone else admitted may only read members.
    let loans = "library:loans:write library:members:read";
    let access = grants(&server, client_id, "finley", loans).await;
    let (_, _, called) = mcp(&server, "mcp", Some(&access), "tools/call", borrow.clone()).await;
    assert_eq!(text_of(&called), "finley borrowed Dune", "{called}");
    let access = grants(&server, client_id, "sam", "library:members:read").await;
    let (status, _, called) = mcp(&server, "mcp", Some(&access), "tools/call", borrow).await;
    assert_eq!(status, 403, "{called}");
    // Someone outside the allow-list: a page saying so, and no code.
    let url = authorization(&server, client_id, &Pkce::new(), EVERY_SCOPE);
    let mut browser = Browser::new();
    let walked = walk(&mut browser, &url, "mallory", CALLBACK);
    let outcome = tokio::time::timeout(Duration::from_secs(30), walked)
        .await
        .expect("the sign-in ends");
    let Outcome::Page(status, html) = outcome else {
        panic!("mallory was not refused: {outcome:?}");
    };
    assert_eq!(status, 403, "{html}");
    assert!(
        html.contains("mallory@evil.test") && html.contains("@example.test"),
        "{html}"
    );
    // An address in the allowed domain that the provider does not vouch for admits no one:
    // `email_verified: "false"` (eve) and no claim at all (nova).
    for unverified in ["eve", "nova"] {
        let url = authorization(&server, client_id, &Pkce::new(), EVERY_SCOPE);
        let mut browser = Browser::new();
        let walked = walk(&mut browser, &url, unverified, CALLBACK);
        let outcome = tokio::time::timeout(Duration::from_secs(30), walked)
            .await
            .expect("the sign-in ends");
        let Outcome::Page(status, html) = outcome else {
            panic!("{unverified}'s unverified address was admitted: {outcome:?}");
        };
        assert_eq!(status, 403, "{unverified}: {html}");
        assert!(
            !html.contains(&format!("{unverified}@example.test")),
            "{html}"
        );
    }
}
