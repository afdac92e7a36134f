//! The authorization endpoint and the consent decision. A request is checked in two stages:
//! until the client and its redirect URI are known good, a refusal is a page shown to the
//! person (a code must never travel to an unverified URI); after, it goes back to the client
//! as `error`, `state` and `iss` on the redirect URI (RFC 6749 §4.1.2.1, RFC 9207).
//!
//! A good request is kept as a pending authorization, tied to the browser by a cookie and to
//! the consent form by a one-time token; the person signs in (if the sign-in needs it), sees
//! the consent page, and the decision redeems the pending request once.

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::clients::Client;
use crate::limits::Limited;
use crate::page::{self, Consent, Destination};
use crate::redirects::is_loopback;
use crate::secret::{digest_of, is_s256_challenge, random_token, same};
use crate::server::{AuthorizationServer, Inner};
use crate::store::{CLIENTS, CODES, PENDING, now};
use crate::web::{self, BROWSER_COOKIE};
use crate::{OAuthError, User};

/// How long a person has to sign in and decide.
const PENDING_TTL: i64 = 600;

/// How long the browser cookie lives.
const BROWSER_COOKIE_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// An authorization request waiting for the person's decision.
#[derive(Serialize, Deserialize)]
struct Pending {
    key: String,
    client_id: String,
    client_name: Option<String>,
    redirect_uri: String,
    state: Option<String>,
    challenge: String,
    resource: String,
    scopes: Vec<String>,
    /// The digest of the browser cookie of the browser that asked.
    browser: String,
    /// The one-time token the consent form must carry.
    csrf: String,
    expires: i64,
}

/// An issued, unredeemed code (stored by its digest).
#[derive(Serialize, Deserialize)]
pub(crate) struct Code {
    pub(crate) key: String,
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    pub(crate) challenge: String,
    pub(crate) resource: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) subject: String,
    pub(crate) expires: i64,
}

/// `GET /oauth/authorize`.
pub(crate) async fn authorize(
    State(server): State<AuthorizationServer>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    let (parts, _) = request.into_parts();
    if let Err(limited) = inner
        .limits
        .check(Limited::Authorize, &web::address(&parts))
    {
        return limited.into_response();
    }
    let pairs = match web::query(&parts) {
        Ok(pairs) => pairs,
        Err(error) => return page_for(&error),
    };
    let (client, redirect_uri) = match verified_client(inner, &pairs).await {
        Ok(found) => found,
        Err(error) => return page_for(&error),
    };
    // Before anyone is asked, an error goes to the redirect URI only when it is trusted;
    // else it is a page here.
    let trusted = client.may_send_errors_to(&redirect_uri, &inner.settings.redirects);
    let refuse = |error: OAuthError, state: Option<&str>| match trusted {
        true => redirect_error(inner, &redirect_uri, state, &error),
        false => page_for(&error),
    };
    let state = web::param(&pairs, "state").map(str::to_owned);
    let (browser, new_cookie) = match web::cookie(&parts.headers, BROWSER_COOKIE) {
        Some(value) => (value.to_owned(), None),
        None => {
            let value = random_token();
            (value.clone(), Some(value))
        }
    };
    let browser = digest_of(&browser);
    let pending = match checked_request(inner, &client, &redirect_uri, &state, &pairs, browser) {
        Ok(pending) => pending,
        Err(error) => return refuse(error, state.as_deref()),
    };
    if let Err(error) = inner.grants.put(PENDING, &pending.key, &pending).await {
        return refuse(error, state.as_deref());
    }
    let mut response = consent_or_sign_in(inner, &pending, &parts).await;
    if let Some(value) = new_cookie {
        let cookie = web::set_cookie(BROWSER_COOKIE, &value, BROWSER_COOKIE_TTL, inner.secure);
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// `GET /oauth/consent?request=…`: where a sign-in sends the browser back to.
pub(crate) async fn consent(
    State(server): State<AuthorizationServer>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    let (parts, _) = request.into_parts();
    let pending = match pending_of_browser(inner, &parts, web::query(&parts).ok()).await {
        Ok(pending) => pending,
        Err(error) => return page_for(&error),
    };
    consent_or_sign_in(inner, &pending, &parts).await
}

/// The consent page for `pending` if the browser's user is signed in, else off to sign in.
async fn consent_or_sign_in(
    inner: &Inner,
    pending: &Pending,
    parts: &http::request::Parts,
) -> Response {
    match inner.settings.sign_in.user(parts).await {
        // Someone the policy leaves out is told here, before any code exists.
        Ok(Some(user)) => match inner.settings.policy.admit(&user) {
            Ok(()) => consent_page(inner, pending, &user),
            Err(refused) => page_for(&refused),
        },
        Ok(None) => sign_in_redirect(inner, &pending.key),
        Err(error) => page_for(&error),
    }
}

/// `POST /oauth/consent`: the person's decision.
pub(crate) async fn decide(
    State(server): State<AuthorizationServer>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    // Not rate limited itself: each decision answers a pending request, which a limited
    // authorization request made.
    let (parts, body) = request.into_parts();
    let pairs = match read_form(&parts, body).await {
        Ok(pairs) => pairs,
        Err(error) => return page_for(&error),
    };
    let pending = match pending_of_browser(inner, &parts, Some(pairs.clone())).await {
        Ok(pending) => pending,
        Err(error) => return page_for(&error),
    };
    let csrf = web::param(&pairs, "csrf").unwrap_or("");
    if !same(csrf, &pending.csrf) {
        return page_for(&OAuthError::AccessDenied(
            "the consent form is not the one this server showed; start again from the application"
                .to_owned(),
        ));
    }
    let user = match inner.settings.sign_in.user(&parts).await {
        Ok(Some(user)) => user,
        Ok(None) => return sign_in_redirect(inner, &pending.key),
        Err(error) => return page_for(&error),
    };
    if let Err(refused) = inner.settings.policy.admit(&user) {
        return page_for(&refused);
    }
    // Taken once: a second submission of the same form finds nothing.
    let pending = match inner.grants.take::<Pending>(PENDING, &pending.key).await {
        Ok(Some(pending)) => pending,
        Ok(None) => return page_for(&answered()),
        Err(error) => return page_for(&error),
    };
    let state = pending.state.as_deref();
    if web::param(&pairs, "decision") != Some("approve") {
        let denied = OAuthError::AccessDenied(format!("{} did not allow access", user.subject));
        return redirect_error(inner, &pending.redirect_uri, state, &denied);
    }
    // Only what was asked for and this person may grant, whatever the form says.
    let grantable = inner.settings.policy.grantable(&user, &pending.scopes);
    let granted: Vec<String> = pairs
        .iter()
        .filter(|(name, _)| name == "scope")
        .map(|(_, scope)| scope.clone())
        .filter(|scope| grantable.contains(scope))
        .collect();
    match issue_code(inner, &pending, &user, granted).await {
        Ok(code) => {
            remember_approval(inner, &pending).await;
            redirect_with(
                &pending.redirect_uri,
                &[
                    ("code", Some(&code)),
                    ("state", state),
                    ("iss", Some(&inner.issuer)),
                ],
                StatusCode::SEE_OTHER,
            )
        }
        Err(error) => redirect_error(inner, &pending.redirect_uri, state, &error),
    }
}

/// Records that a person approved `pending`'s client at its redirect URI: the registration no
/// longer lapses unused, and errors about its later requests may go to that URI. A failure to
/// record it costs only that, so it is logged, not answered.
async fn remember_approval(inner: &Inner, pending: &Pending) {
    if crate::cimd::is_document_id(&pending.client_id) {
        return;
    }
    let remembered = async {
        let Some(mut client) = inner
            .grants
            .get::<Client>(CLIENTS, &pending.client_id)
            .await?
        else {
            return Ok(());
        };
        if client.expires.is_none() && client.approved_redirects.contains(&pending.redirect_uri) {
            return Ok(());
        }
        client.expires = None;
        if !client.approved_redirects.contains(&pending.redirect_uri)
            && client.approved_redirects.len() < client.redirect_uris.len().max(1)
        {
            client.approved_redirects.push(pending.redirect_uri.clone());
        }
        inner.grants.put(CLIENTS, &client.client_id, &client).await
    };
    if let Err(error) = remembered.await {
        tracing::warn!(%error, client_id = %pending.client_id, "an approval was not recorded");
    }
}

/// The client the request names and the redirect URI it may use, or why not.
async fn verified_client(
    inner: &Inner,
    pairs: &[(String, String)],
) -> Result<(Client, String), OAuthError> {
    let client_id = web::required(pairs, "client_id")?;
    let client = inner.client(client_id).await?;
    let redirect_uri = match web::param(pairs, "redirect_uri") {
        Some(uri) => uri.to_owned(),
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Err(OAuthError::InvalidRequest(
                "the parameter `redirect_uri` is required: the client registered several".into(),
            ));
        }
    };
    if !client.redirects_to(&redirect_uri) {
        return Err(OAuthError::InvalidRedirectUri(format!(
            "`{redirect_uri}` is not a redirect URI of client `{client_id}`"
        )));
    }
    Ok((client, redirect_uri))
}

/// The rest of the request checked: the response type, PKCE, the resource and the scopes; the
/// pending request it makes, tied to the browser whose cookie digest is `browser`.
fn checked_request(
    inner: &Inner,
    client: &Client,
    redirect_uri: &str,
    state: &Option<String>,
    pairs: &[(String, String)],
    browser: String,
) -> Result<Pending, OAuthError> {
    match web::param(pairs, "response_type") {
        Some("code") => {}
        Some(other) => {
            return Err(OAuthError::UnsupportedResponseType(format!(
                "response_type `{other}` is not served; use `code`"
            )));
        }
        None => {
            return Err(OAuthError::InvalidRequest(
                "`response_type` is required".into(),
            ));
        }
    }
    let challenge = web::param(pairs, "code_challenge").ok_or_else(|| {
        OAuthError::InvalidRequest(
            "`code_challenge` is required: this server takes PKCE with S256 only".into(),
        )
    })?;
    match web::param(pairs, "code_challenge_method") {
        Some("S256") => {}
        Some(other) => {
            return Err(OAuthError::InvalidRequest(format!(
                "`code_challenge_method` `{other}` is refused; use S256"
            )));
        }
        // RFC 7636 §4.3: no method means `plain`, which is refused.
        None => {
            return Err(OAuthError::InvalidRequest(
                "`code_challenge_method` is missing, which means plain; use S256".into(),
            ));
        }
    }
    if !is_s256_challenge(challenge) {
        return Err(OAuthError::InvalidRequest(
            "`code_challenge` is not an S256 challenge (43 base64url characters)".into(),
        ));
    }
    let resource = match web::param(pairs, "resource") {
        Some(requested) => inner.resource(requested).ok_or_else(|| {
            OAuthError::InvalidTarget(format!(
                "`resource` `{requested}` is not served here; the resources are {}",
                inner.resources.join(", ")
            ))
        })?,
        None => inner.resources[0].clone(),
    };
    Ok(Pending {
        key: random_token(),
        client_id: client.client_id.clone(),
        client_name: client.client_name.clone(),
        redirect_uri: redirect_uri.to_owned(),
        state: state.clone(),
        challenge: challenge.to_owned(),
        resource,
        scopes: inner.scopes_of(web::param(pairs, "scope"))?,
        browser,
        csrf: random_token(),
        expires: now() + PENDING_TTL,
    })
}

/// The pending request `pairs` name, if this browser started it.
async fn pending_of_browser(
    inner: &Inner,
    parts: &http::request::Parts,
    pairs: Option<Vec<(String, String)>>,
) -> Result<Pending, OAuthError> {
    let pairs = pairs.unwrap_or_default();
    let key = web::required(&pairs, "request")?;
    let pending = inner
        .grants
        .get::<Pending>(PENDING, key)
        .await?
        .ok_or_else(answered)?;
    let browser = web::cookie(&parts.headers, BROWSER_COOKIE).map(digest_of);
    if !browser.is_some_and(|browser| same(&browser, &pending.browser)) {
        return Err(OAuthError::AccessDenied(
            "this authorization was started in another browser; start again from the \
             application in this one"
                .into(),
        ));
    }
    Ok(pending)
}

fn answered() -> OAuthError {
    OAuthError::InvalidRequest(
        "this authorization request has expired or was already answered; start again from the \
         application"
            .into(),
    )
}

async fn read_form(
    parts: &http::request::Parts,
    body: Body,
) -> Result<Vec<(String, String)>, OAuthError> {
    let bytes = web::read_body(body).await?;
    web::form(&parts.headers, &bytes, &["scope"])
}

/// Stores a code for the approved request and hands it out.
async fn issue_code(
    inner: &Inner,
    pending: &Pending,
    user: &User,
    scopes: Vec<String>,
) -> Result<String, OAuthError> {
    let code = random_token();
    let ttl = i64::try_from(inner.settings.code_ttl.as_secs()).unwrap_or(600);
    let record = Code {
        key: digest_of(&code),
        client_id: pending.client_id.clone(),
        redirect_uri: pending.redirect_uri.clone(),
        challenge: pending.challenge.clone(),
        resource: pending.resource.clone(),
        scopes,
        subject: user.subject.clone(),
        expires: now() + ttl,
    };
    inner.grants.put(CODES, &record.key, &record).await?;
    Ok(code)
}

fn consent_page(inner: &Inner, pending: &Pending, user: &User) -> Response {
    let grantable = inner.settings.policy.grantable(user, &pending.scopes);
    let withheld: Vec<String> = pending
        .scopes
        .iter()
        .filter(|scope| !grantable.contains(scope))
        .cloned()
        .collect();
    let url = Url::parse(&pending.redirect_uri).ok();
    let destination = match &url {
        Some(url) if is_loopback(url) => Destination::Loopback,
        Some(url) if !matches!(url.scheme(), "http" | "https") => Destination::App,
        _ => Destination::Web,
    };
    // An app's private-use URI has no host and an opaque origin: it is named, and allowed as
    // a form target, by its scheme.
    let (host, origin) = match (&url, destination) {
        (Some(url), Destination::App) => {
            (format!("{}:", url.scheme()), format!("{}:", url.scheme()))
        }
        (Some(url), _) => (
            url.host_str().unwrap_or_default().to_owned(),
            url.origin().ascii_serialization(),
        ),
        (None, _) => (String::new(), String::new()),
    };
    page::consent(&Consent {
        client_name: pending.client_name.as_deref(),
        client_id: &pending.client_id,
        redirect_uri: &pending.redirect_uri,
        redirect_host: &host,
        destination,
        user: user.name.as_deref().unwrap_or(&user.subject),
        resource: &pending.resource,
        scopes: &grantable,
        withheld: &withheld,
        action: &inner.endpoint("consent"),
        request: &pending.key,
        csrf: &pending.csrf,
        redirect_origin: &origin,
    })
}

fn sign_in_redirect(inner: &Inner, request: &str) -> Response {
    let return_to = format!("{}?request={request}", inner.public_path("consent"));
    Redirect::to(&inner.settings.sign_in.sign_in_url(&return_to)).into_response()
}

/// The error page for `error`.
fn page_for(error: &OAuthError) -> Response {
    let status = match error {
        OAuthError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        OAuthError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
        // Someone the policy leaves out, or another browser's form: forbidden, not malformed.
        OAuthError::AccessDenied(_) => StatusCode::FORBIDDEN,
        _ => StatusCode::BAD_REQUEST,
    };
    page::error(status, error.code(), &error.to_string())
}

/// Sends `error` back to the client at its verified redirect URI.
fn redirect_error(
    inner: &Inner,
    redirect_uri: &str,
    state: Option<&str>,
    error: &OAuthError,
) -> Response {
    let description = error.to_string();
    redirect_with(
        redirect_uri,
        &[
            ("error", Some(error.code())),
            ("error_description", Some(&description)),
            ("state", state),
            ("iss", Some(&inner.issuer)),
        ],
        StatusCode::FOUND,
    )
}

/// A redirect to `uri` with `params` added to its query.
fn redirect_with(uri: &str, params: &[(&str, Option<&str>)], status: StatusCode) -> Response {
    let Ok(mut url) = Url::parse(uri) else {
        return page::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "bad redirect URI",
        );
    };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in params {
            if let Some(value) = value {
                query.append_pair(name, value);
            }
        }
    }
    let mut response = status.into_response();
    if let Ok(location) = HeaderValue::from_str(url.as_str()) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
