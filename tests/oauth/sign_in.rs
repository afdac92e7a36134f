//! Who approves: an application's own sign-in, and the consent page in a real browser.

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::oauth_flow::{
    Browser, Outcome, Pkce, authorize_url, query, register, register_with, token,
};
use serde_json::json;

use super::super::{call, mcp};
use super::{CALLBACK, LOAN_SCOPES, library, text_of};

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
        ..
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
    let Some(browser) = a2a_tests::browser() else {
        return;
    };
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
    let shots = screenshots.to_str().unwrap();
    let stdout = browser.run("consent.mjs", &[&url, &callback, shots]).await;
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
