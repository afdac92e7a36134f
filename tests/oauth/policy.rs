//! Per-person authorization at sign-in, in proxy mode against a real OpenID Connect provider
//! (npm's `oidc-provider` on loopback): the allow-list admits people by email domain, group
//! rules decide which scopes each may grant, the consent page offers only those, the token
//! carries only those whatever the form says, and someone outside the allow-list is refused
//! before any code exists.

use std::time::Duration;

use a2a_runtime::server::ServeConfig;
use a2a_tests::oauth_flow::{Browser, Outcome, Pkce, authorize_url, query, register, token};
use a2a_tests::upstream::{Provider, walk};
use serde_json::json;

use super::super::{call, mcp};
use super::{CALLBACK, text_of};

/// Every scope the library's skills use.
const EVERY_SCOPE: &str = "library:loans:write library:members:read mcp:tools:notes";

#[tokio::test]
async fn proxy_mode_grants_each_group_its_scopes_and_refuses_people_outside_the_allow_list() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let upstream_callback = format!("{base}oauth/upstream/callback");
    let secret = "upstream-secret-0123456789";
    let Some(provider) = Provider::start("a2a-host", secret, &upstream_callback).await else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_OIDC_PROVIDER (scripts/test sets them)");
        return;
    };
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
    let server = a2a_tests::TestServer::at(base.clone());
    let (status, client) = register(&base, CALLBACK).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap();
    let resource = format!("{base}mcp");
    for (login, granted) in [
        ("finley", "library:loans:write library:members:read"),
        ("sam", "library:members:read"),
    ] {
        let pkce = Pkce::new();
        let url = authorize_url(
            &base,
            &[
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", CALLBACK),
                ("code_challenge", &pkce.challenge),
                ("code_challenge_method", "S256"),
                ("resource", &resource),
                ("scope", EVERY_SCOPE),
            ],
        );
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
        // Offered exactly what the policy lets this person grant; the rest named as withheld.
        for scope in EVERY_SCOPE.split(' ') {
            let offered = html.contains(&format!("name=\"scope\" value=\"{scope}\""));
            assert_eq!(offered, granted.contains(scope), "{login}: {scope}");
        }
        assert!(html.contains("does not let you grant"), "{html}");
        // Ticking every scope anyway (a forged form) grants no more.
        let every: Vec<&str> = EVERY_SCOPE.split(' ').collect();
        let action = format!("{base}oauth/consent");
        let Outcome::Redirect(back) = browser
            .decide(&action, &request, &csrf, "approve", &every)
            .await
        else {
            panic!("{login}'s approval did not redirect");
        };
        let code = query(&back, "code").expect("a code");
        let exchange = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", CALLBACK),
            ("client_id", client_id),
            ("code_verifier", pkce.verifier.as_str()),
            ("resource", resource.as_str()),
        ];
        let (status, tokens) = token(&base, &exchange).await;
        assert_eq!(status, 200, "{tokens}");
        assert_eq!(tokens["scope"], granted, "{login}");
        let access = tokens["access_token"].as_str().unwrap();
        let borrow = call("borrow", json!({"title": "Dune"}));
        let (status, _, called) = mcp(&server, "mcp", Some(access), "tools/call", borrow).await;
        match login {
            "finley" => assert_eq!(text_of(&called), "finley borrowed Dune", "{called}"),
            _ => assert_eq!(status, 403, "{called}"),
        }
    }
    // Someone outside the allow-list: a page saying so, and no code.
    let pkce = Pkce::new();
    let url = authorize_url(
        &base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", CALLBACK),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("resource", &resource),
        ],
    );
    let outcome = tokio::time::timeout(
        Duration::from_secs(30),
        walk(&mut Browser::new(), &url, "mallory", CALLBACK),
    )
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
}
