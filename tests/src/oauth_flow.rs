//! Playing each side of an OAuth authorization against a server's authorization server: the
//! client (registration, PKCE, the token endpoint) and the browser (the authorization request,
//! the consent page and its form, the cookie that ties them together).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// A PKCE verifier and its S256 challenge.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// Sent to the token endpoint.
    pub verifier: String,
    /// Sent to the authorization endpoint.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair.
    pub fn new() -> Self {
        let mut random = [0_u8; 32];
        getrandom::fill(&mut random).expect("random bytes");
        let verifier = URL_SAFE_NO_PAD.encode(random);
        let challenge =
            URL_SAFE_NO_PAD.encode(<sha2::Sha256 as sha2::Digest>::digest(verifier.as_bytes()));
        Self {
            verifier,
            challenge,
        }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

/// An HTTP client that does not follow redirects (the test reads each one).
pub fn no_redirects() -> reqwest::Client {
    crate::http_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client")
}

/// A browser: its cookies for the server, kept across requests.
#[derive(Debug)]
pub struct Browser {
    http: reqwest::Client,
    cookies: Vec<(String, String)>,
}

/// What an authorization request led to.
#[derive(Debug)]
pub enum Outcome {
    /// The consent page (status 200), its `request` and `csrf` fields.
    Consent {
        /// The page.
        html: String,
        /// The pending request's id.
        request: String,
        /// The form's one-time token.
        csrf: String,
        /// Its `Content-Security-Policy`.
        policy: String,
    },
    /// A redirect, to this location.
    Redirect(url::Url),
    /// An error page, with its status.
    Page(u16, String),
}

impl Default for Browser {
    fn default() -> Self {
        Self::new()
    }
}

impl Browser {
    /// A browser with no cookies.
    pub fn new() -> Self {
        Self {
            http: no_redirects(),
            cookies: Vec::new(),
        }
    }

    /// The `Cookie` header of the cookies kept, if any.
    fn cookie_header(&self) -> Option<String> {
        (!self.cookies.is_empty()).then(|| {
            self.cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    /// POSTs `form` to `url` as a browser submits a form.
    pub async fn submit(&mut self, url: &str, form: &[(&str, &str)]) -> Outcome {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut post = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        if let Some(cookie) = self.cookie_header() {
            post = post.header("cookie", cookie);
        }
        let response = post.send().await.expect("POST sent");
        self.keep_cookies(&response);
        outcome(response).await
    }

    /// Opens `url` (an authorization request, or where a sign-in sends it).
    pub async fn open(&mut self, url: &str) -> Outcome {
        let mut request = self.http.get(url);
        if let Some(cookie) = self.cookie_header() {
            request = request.header("cookie", cookie);
        }
        let response = request.send().await.expect("GET sent");
        self.keep_cookies(&response);
        outcome(response).await
    }

    /// Submits the consent form at `action` with `decision` and the `scopes` ticked.
    pub async fn decide(
        &mut self,
        action: &str,
        request: &str,
        csrf: &str,
        decision: &str,
        scopes: &[&str],
    ) -> Outcome {
        let mut form: Vec<(&str, &str)> =
            vec![("request", request), ("csrf", csrf), ("decision", decision)];
        form.extend(scopes.iter().map(|scope| ("scope", *scope)));
        self.submit(action, &form).await
    }

    fn keep_cookies(&mut self, response: &reqwest::Response) {
        for set in response.headers().get_all("set-cookie") {
            let pair = set.to_str().unwrap_or("").split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.retain(|(n, _)| n != name);
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
    }
}

async fn outcome(response: reqwest::Response) -> Outcome {
    let status = response.status().as_u16();
    if (300..400).contains(&status) {
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .expect("a redirect has a Location");
        let location = response.url().join(location).expect("a Location URL");
        return Outcome::Redirect(location);
    }
    let policy = response
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let html = response.text().await.unwrap_or_default();
    if status == 200 && html.contains("name=\"csrf\"") {
        let request = hidden(&html, "request");
        let csrf = hidden(&html, "csrf");
        return Outcome::Consent {
            html,
            request,
            csrf,
            policy,
        };
    }
    Outcome::Page(status, html)
}

/// The value of the hidden field `name` of a form in `html`.
pub fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).expect("the field is on the page") + marker.len();
    let end = html[start..].find('"').expect("a quoted value") + start;
    html[start..end].to_owned()
}

/// The query parameter `name` of `url`.
pub fn query(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

/// The authorization request URL for `client_id` at the server `base`.
pub fn authorize_url(base: &str, params: &[(&str, &str)]) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    format!("{base}oauth/authorize?{query}")
}

/// Registers a public client redirecting to `redirect_uri` that may refresh; its answer.
pub async fn register(base: &str, redirect_uri: &str) -> (u16, Value) {
    register_with(
        base,
        json!({
            "client_name": "Test client",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        }),
    )
    .await
}

/// Registers `metadata` as a client; status and answer.
pub async fn register_with(base: &str, metadata: Value) -> (u16, Value) {
    let response = crate::http()
        .post(format!("{base}oauth/register"))
        .json(&metadata)
        .send()
        .await
        .expect("registration sent");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// POSTs `form` to the token endpoint; status and answer.
pub async fn token(base: &str, form: &[(&str, &str)]) -> (u16, Value) {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = crate::http()
        .post(format!("{base}oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("token request sent");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A whole authorization as a registered public client and a browser approving every scope
/// asked for: the client id, the code and the PKCE pair.
pub async fn authorized_code(
    base: &str,
    client_id: &str,
    redirect_uri: &str,
    resource: &str,
    scope: &str,
) -> (String, Pkce) {
    let pkce = Pkce::new();
    let url = authorize_url(
        base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", redirect_uri),
            ("state", "st-1"),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("resource", resource),
            ("scope", scope),
        ],
    );
    let mut browser = Browser::new();
    let outcome = browser.open(&url).await;
    let Outcome::Consent { request, csrf, .. } = outcome else {
        panic!("the consent page was not shown for {client_id}: {outcome:?}");
    };
    let scopes: Vec<&str> = scope.split_whitespace().collect();
    let action = format!("{base}oauth/consent");
    let Outcome::Redirect(back) = browser
        .decide(&action, &request, &csrf, "approve", &scopes)
        .await
    else {
        panic!("approving did not redirect");
    };
    let code = query(&back, "code").expect("a code on the redirect");
    (code, pkce)
}

/// Serves client metadata documents over HTTPS on 127.0.0.1 with a certificate of `ca`: each
/// of those `documents` makes of the server's base URL (a path and its JSON), plus
/// `/moved.json` (a redirect to the first) and `/big.json` (larger than an authorization
/// server reads). Its base URL.
pub async fn document_server(
    ca: &crate::pki::TestCa,
    documents: impl FnOnce(&str) -> Vec<(String, Value)>,
) -> String {
    use a2a_runtime::axum::{Json, Router, response::Redirect, routing::get};
    let (cert, key) = ca.server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let base = format!(
        "https://127.0.0.1:{}/",
        listener.local_addr().expect("address").port()
    );
    let documents = documents(&base);
    let first = documents
        .first()
        .map(|(path, _)| path.clone())
        .unwrap_or_default();
    let mut routes = Router::new()
        .route(
            "/moved.json",
            get(move || async move { Redirect::temporary(&first) }),
        )
        .route(
            "/big.json",
            get(|| async { Json(json!({ "padding": "x".repeat(8 * 1024) })) }),
        );
    for (path, document) in documents {
        routes = routes.route(&path, get(move || async move { Json(document) }));
    }
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.tls.cert = Some(cert);
    config.tls.key = Some(key);
    let server = hello::Hello
        .server()
        .config(config)
        .public_url(base.clone())
        .routes(routes);
    tokio::spawn(async move { server.serve_on(listener).await.expect("document server") });
    base
}
