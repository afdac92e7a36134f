//! Proxy mode: users sign in at an upstream OpenID Connect provider. The authorization server
//! is that provider's client (authorization code with PKCE and a nonce); it verifies the ID
//! token it gets back (signature by the provider's JWKS, issuer, audience, nonce, expiry), keeps
//! a browser session of its own, and issues its own tokens. Nothing the provider issued ever
//! reaches an MCP client.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use a2a_runtime_core::auth::jwks::KeySet;
use a2a_runtime_types::util::BoxFuture;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use futures::StreamExt as _;
use http::request::Parts;
use jsonwebtoken::{Algorithm, Validation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use crate::secret::{digest_of, random_token, s256};
use crate::signin::{SignIn, SignInContext, User, is_local_path};
use crate::store::{Grants, SESSIONS, UPSTREAM, now};
use crate::upstream_user::{Profile, completed};
use crate::{OAuthError, page, web};

/// The browser's session cookie with this server.
const SESSION_COOKIE: &str = "a2a_oauth_session";

/// How long a session lasts.
const SESSION_TTL: i64 = 8 * 3600;

/// How long a person has to sign in upstream.
const UPSTREAM_TTL: i64 = 600;

/// The largest answer read from the provider.
const MAX_UPSTREAM_BYTES: usize = 256 * 1024;

/// How long one request to the provider may take.
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(10);

/// The signature algorithms accepted on ID tokens (never `none`, never HMAC).
const ID_TOKEN_ALGORITHMS: [Algorithm; 6] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Users sign in at an upstream OpenID Connect provider (`--oauth-proxy ISSUER`).
#[derive(Clone)]
pub struct ProxySignIn {
    inner: Arc<Proxy>,
}

struct Proxy {
    issuer: String,
    client_id: String,
    client_secret: Option<String>,
    scope: String,
    http: reqwest::Client,
    keys: KeySet,
    provider: OnceCell<Provider>,
    deployed: OnceLock<Deployed>,
}

/// What the sign-in learns when the server is deployed.
struct Deployed {
    grants: Grants,
    callback: String,
    secure: bool,
}

/// The parts of the provider's discovery document used here.
#[derive(Deserialize)]
struct Provider {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    userinfo_endpoint: Option<String>,
}

/// A sign-in under way at the provider (stored by its `state`).
#[derive(Serialize, Deserialize)]
struct Upstream {
    key: String,
    nonce: String,
    verifier: String,
    return_to: String,
    expires: i64,
}

/// A browser's session (stored by the digest of its cookie).
#[derive(Serialize, Deserialize)]
struct Session {
    key: String,
    subject: String,
    name: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    hosted_domain: Option<String>,
    #[serde(default)]
    groups: Vec<String>,
    expires: i64,
}

impl ProxySignIn {
    /// Signs users in at the OpenID Connect provider `issuer` (its discovery document is at
    /// `{issuer}/.well-known/openid-configuration`) as the client `client_id`, with the
    /// provider's `client_secret` for a confidential client, asking for `scope` (`openid
    /// profile email` when `None`; `openid` is always asked for).
    pub fn new(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: Option<String>,
        scope: Option<&str>,
    ) -> Result<Self, String> {
        let issuer: String = issuer.into();
        let discovery = format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        );
        a2a_runtime_core::auth::jwt::check_url(&discovery)?;
        let http = a2a_runtime_types::https::client_builder()
            .map_err(|e| format!("the upstream client cannot start: {e}"))?
            .timeout(UPSTREAM_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("the upstream client cannot start: {e}"))?;
        let scope = match scope {
            None => "openid profile email".to_owned(),
            Some(scope) if scope.split_whitespace().any(|s| s == "openid") => scope.to_owned(),
            Some(scope) => format!("openid {scope}"),
        };
        Ok(Self {
            inner: Arc::new(Proxy {
                keys: KeySet::metadata(&discovery),
                issuer,
                client_id: client_id.into(),
                client_secret,
                scope,
                http,
                provider: OnceCell::new(),
                deployed: OnceLock::new(),
            }),
        })
    }
}

impl SignIn for ProxySignIn {
    fn user<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Result<Option<User>, OAuthError>> {
        Box::pin(async move {
            let (Some(deployed), Some(cookie)) = (
                self.inner.deployed.get(),
                web::cookie(&request.headers, SESSION_COOKIE),
            ) else {
                return Ok(None);
            };
            let session = deployed
                .grants
                .get::<Session>(SESSIONS, &digest_of(cookie))
                .await?;
            Ok(session.map(|session| {
                let mut user = User::new(session.subject).groups(session.groups);
                user.name = session.name;
                user.email = session.email;
                user.hosted_domain = session.hosted_domain;
                user
            }))
        })
    }

    fn sign_in_url(&self, return_to: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("return_to", return_to)
            .finish();
        let base = self
            .inner
            .deployed
            .get()
            .map(|d| d.callback.trim_end_matches("/callback").to_owned())
            .unwrap_or_default();
        format!("{base}/login?{query}")
    }

    fn routes(&self, context: &SignInContext) -> Router {
        let _ = self.inner.deployed.set(Deployed {
            grants: Grants::new(Arc::clone(&context.store)),
            callback: format!("{}/oauth/upstream/callback", context.base_url),
            secure: context.secure_cookies,
        });
        Router::new()
            .route("/oauth/upstream/login", get(login))
            .route("/oauth/upstream/callback", get(callback))
            .with_state(self.clone())
    }
}

/// `GET /oauth/upstream/login?return_to=…`: off to the provider.
async fn login(State(sign_in): State<ProxySignIn>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    match start(&sign_in.inner, &parts).await {
        Ok(url) => Redirect::to(&url).into_response(),
        Err(error) => page::error(StatusCode::BAD_GATEWAY, error.code(), &error.to_string()),
    }
}

async fn start(proxy: &Proxy, parts: &Parts) -> Result<String, OAuthError> {
    let deployed = deployed(proxy)?;
    let pairs = web::query(parts)?;
    let return_to = web::required(&pairs, "return_to")?;
    if !is_local_path(return_to) {
        return Err(OAuthError::InvalidRequest(
            "`return_to` must be a path of this server".into(),
        ));
    }
    let provider = provider(proxy).await?;
    let upstream = Upstream {
        key: random_token(),
        nonce: random_token(),
        verifier: random_token(),
        return_to: return_to.to_owned(),
        expires: now() + UPSTREAM_TTL,
    };
    deployed
        .grants
        .put(UPSTREAM, &upstream.key, &upstream)
        .await?;
    let mut url = url::Url::parse(&provider.authorization_endpoint)
        .map_err(|e| upstream_failed(&format!("its authorization endpoint is not a URL: {e}")))?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &proxy.client_id)
        .append_pair("redirect_uri", &deployed.callback)
        .append_pair("scope", &proxy.scope)
        .append_pair("state", &upstream.key)
        .append_pair("nonce", &upstream.nonce)
        .append_pair("code_challenge", &s256(&upstream.verifier))
        .append_pair("code_challenge_method", "S256");
    Ok(url.into())
}

/// `GET /oauth/upstream/callback`: back from the provider, signed in (or not).
async fn callback(State(sign_in): State<ProxySignIn>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    match finish(&sign_in.inner, &parts).await {
        Ok((cookie, return_to, secure)) => {
            let mut response = Redirect::to(&return_to).into_response();
            let ttl = Duration::from_secs(SESSION_TTL.unsigned_abs());
            let cookie = web::set_cookie(SESSION_COOKIE, &cookie, ttl, secure);
            response.headers_mut().append(header::SET_COOKIE, cookie);
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(error) => page::error(StatusCode::BAD_REQUEST, error.code(), &error.to_string()),
    }
}

/// Redeems the provider's code and verifies its ID token: the new session's cookie, where to
/// go on, and whether the cookie is `Secure`.
async fn finish(proxy: &Proxy, parts: &Parts) -> Result<(String, String, bool), OAuthError> {
    let deployed = deployed(proxy)?;
    let pairs = web::query(parts)?;
    if let Some(error) = web::param(&pairs, "error") {
        let description = web::param(&pairs, "error_description").unwrap_or("");
        return Err(OAuthError::AccessDenied(format!(
            "the sign-in at {} ended with `{error}` {description}",
            proxy.issuer
        )));
    }
    let state = web::required(&pairs, "state")?;
    let upstream = deployed
        .grants
        .take::<Upstream>(UPSTREAM, state)
        .await?
        .ok_or_else(|| {
            OAuthError::InvalidRequest(
                "this sign-in expired or was already used; start again from the application".into(),
            )
        })?;
    let provider = provider(proxy).await?;
    if let Some(iss) = web::param(&pairs, "iss")
        && iss != provider.issuer
    {
        return Err(upstream_failed(&format!(
            "answered as `{iss}`, not its issuer"
        )));
    }
    let code = web::required(&pairs, "code")?;
    let (id_token, access_token) = redeem(
        proxy,
        provider,
        &deployed.callback,
        code,
        &upstream.verifier,
    )
    .await?;
    let mut claims = verify(proxy, provider, &id_token, &upstream.nonce).await?;
    if let (Some(endpoint), Some(access_token)) = (&provider.userinfo_endpoint, &access_token)
        && Profile::of(&claims).incomplete()
    {
        claims = completed(&proxy.http, endpoint, access_token, claims).await;
    }
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|sub| !sub.is_empty())
        .ok_or_else(|| upstream_failed("its ID token names no `sub`"))?;
    let profile = Profile::of(&claims);
    let cookie = random_token();
    let session = Session {
        key: digest_of(&cookie),
        subject: subject.to_owned(),
        name: profile.name,
        email: profile.email,
        hosted_domain: profile.hosted_domain,
        groups: profile.groups,
        expires: now() + SESSION_TTL,
    };
    deployed
        .grants
        .put(SESSIONS, &session.key, &session)
        .await?;
    tracing::info!(subject, "authorization server: signed in upstream");
    Ok((cookie, upstream.return_to, deployed.secure))
}

/// The ID token the provider gives for `code`, and its access token (for userinfo).
async fn redeem(
    proxy: &Proxy,
    provider: &Provider,
    callback: &str,
    code: &str,
    verifier: &str,
) -> Result<(String, Option<String>), OAuthError> {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", callback),
        ("code_verifier", verifier),
    ];
    let mut request = proxy.http.post(&provider.token_endpoint);
    let basic = provider.token_endpoint_auth_methods_supported.is_empty()
        || provider
            .token_endpoint_auth_methods_supported
            .iter()
            .any(|m| m == "client_secret_basic");
    match &proxy.client_secret {
        Some(secret) if basic => {
            let encode = |part: &str| {
                url::form_urlencoded::byte_serialize(part.as_bytes()).collect::<String>()
            };
            request = request.basic_auth(encode(&proxy.client_id), Some(encode(secret)));
        }
        Some(secret) => {
            form.push(("client_id", &proxy.client_id));
            form.push(("client_secret", secret));
        }
        None => form.push(("client_id", &proxy.client_id)),
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = request
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| upstream_failed(&format!("its token endpoint is unreachable: {e}")))?;
    let status = response.status();
    let answer = read_json(response).await?;
    if !status.is_success() {
        return Err(upstream_failed(&format!(
            "its token endpoint refused the code ({status}): {answer}"
        )));
    }
    let access_token = answer
        .get("access_token")
        .and_then(Value::as_str)
        .map(str::to_owned);
    answer
        .get("id_token")
        .and_then(Value::as_str)
        .map(|id_token| (id_token.to_owned(), access_token))
        .ok_or_else(|| upstream_failed("its token endpoint gave no ID token"))
}

/// The claims of `id_token`, verified: the provider's signature, issuer, this client as the
/// audience, the nonce of this sign-in, not expired.
async fn verify(
    proxy: &Proxy,
    provider: &Provider,
    id_token: &str,
    nonce: &str,
) -> Result<Map<String, Value>, OAuthError> {
    let header = jsonwebtoken::decode_header(id_token)
        .map_err(|_| upstream_failed("its ID token is not a JWT"))?;
    if !ID_TOKEN_ALGORITHMS.contains(&header.alg) {
        return Err(upstream_failed(&format!(
            "its ID token is signed with {:?}, which is not accepted",
            header.alg
        )));
    }
    let key = proxy
        .keys
        .key(header.kid.as_deref())
        .await
        .map_err(|e| upstream_failed(&format!("its signing keys: {e}")))?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[&provider.issuer]);
    validation.set_audience(&[&proxy.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.leeway = 30;
    let claims = jsonwebtoken::decode::<Map<String, Value>>(id_token, &key.key, &validation)
        .map_err(|e| upstream_failed(&format!("its ID token does not verify: {e}")))?
        .claims;
    if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
        return Err(upstream_failed(
            "its ID token does not carry this sign-in's nonce",
        ));
    }
    Ok(claims)
}

/// The provider's discovery document, fetched once.
async fn provider(proxy: &Proxy) -> Result<&Provider, OAuthError> {
    proxy
        .provider
        .get_or_try_init(|| async {
            let url = format!(
                "{}/.well-known/openid-configuration",
                proxy.issuer.trim_end_matches('/')
            );
            let response = proxy
                .http
                .get(&url)
                .send()
                .await
                .map_err(|e| upstream_failed(&format!("its discovery document: {e}")))?;
            if !response.status().is_success() {
                return Err(upstream_failed(&format!(
                    "its discovery document answered {}",
                    response.status()
                )));
            }
            let document = read_json(response).await?;
            let provider: Provider = serde_json::from_value(document)
                .map_err(|e| upstream_failed(&format!("its discovery document: {e}")))?;
            if provider.issuer.trim_end_matches('/') != proxy.issuer.trim_end_matches('/') {
                return Err(upstream_failed(&format!(
                    "its discovery document names the issuer `{}`",
                    provider.issuer
                )));
            }
            Ok(provider)
        })
        .await
}

/// A JSON answer of the provider, at most [`MAX_UPSTREAM_BYTES`].
async fn read_json(response: reqwest::Response) -> Result<Value, OAuthError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| upstream_failed(&format!("its answer was cut: {e}")))?;
        if body.len() + chunk.len() > MAX_UPSTREAM_BYTES {
            return Err(upstream_failed(&format!(
                "its answer exceeds {MAX_UPSTREAM_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map_err(|e| upstream_failed(&format!("its answer is not JSON: {e}")))
}

fn deployed(proxy: &Proxy) -> Result<&Deployed, OAuthError> {
    proxy
        .deployed
        .get()
        .ok_or_else(|| OAuthError::Unavailable("the upstream sign-in is not deployed".into()))
}

fn upstream_failed(why: &str) -> OAuthError {
    OAuthError::Unavailable(format!("the sign-in provider failed: {why}"))
}
