//! The token endpoint: codes redeemed once with their PKCE verifier, and refresh tokens
//! rotated on every use. A code presented twice revokes what the first redemption was given; a
//! refresh token presented after it was rotated revokes its whole family (OAuth 2.1 §4.3.1):
//! either means someone else holds it.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::OAuthError;
use crate::authorize::Code;
use crate::clients::Client;
use crate::limits::Limited;
use crate::secret::{digest_of, is_verifier, random_token, s256, same};
use crate::server::{AuthorizationServer, IDENTITY_SCOPES, Inner};
use crate::store::{CODES, FAMILIES, REFRESH, SPENT_CODES, SPENT_REFRESH, now};
use crate::web;

/// The tokens of one authorization, while it may be refreshed.
#[derive(Serialize, Deserialize)]
struct Family {
    key: String,
    client_id: String,
    subject: String,
    expires: i64,
}

/// A live refresh token (stored by its digest).
#[derive(Serialize, Deserialize)]
struct Refresh {
    key: String,
    family: String,
    client_id: String,
    subject: String,
    scopes: Vec<String>,
    resource: String,
    expires: i64,
}

/// A redeemed code or rotated refresh token, and the family presenting it again revokes.
#[derive(Serialize, Deserialize)]
struct Spent {
    key: String,
    family: Option<String>,
    expires: i64,
}

/// What a grant entitles the client to.
struct Grant {
    subject: String,
    scopes: Vec<String>,
    resource: String,
    family: Option<String>,
}

/// `POST /oauth/token`.
pub(crate) async fn token(State(server): State<AuthorizationServer>, request: Request) -> Response {
    match exchange(&server.inner, request).await {
        Ok(tokens) => {
            let mut response = Json(tokens).into_response();
            let headers = response.headers_mut();
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
            response
        }
        Err(error) => error.into_response(),
    }
}

async fn exchange(inner: &Inner, request: Request) -> Result<Value, OAuthError> {
    let (pairs, client) = client_request(inner, request).await?;
    inner
        .limits
        .check(Limited::TokenByClient, &client.client_id)?;
    let grant = match web::required(&pairs, "grant_type")? {
        "authorization_code" => redeem_code(inner, &client, &pairs).await?,
        "refresh_token" => rotate_refresh(inner, &client, &pairs).await?,
        other => {
            return Err(OAuthError::UnsupportedGrantType(format!(
                "grant_type `{other}` is not served; use authorization_code or refresh_token"
            )));
        }
    };
    issue(inner, &client, grant).await
}

/// A client's form request to the token or revocation endpoint: its parameters (within the
/// address's rate) and the client it authenticates as.
async fn client_request(
    inner: &Inner,
    request: Request,
) -> Result<(Vec<(String, String)>, Client), OAuthError> {
    let (parts, body) = request.into_parts();
    inner
        .limits
        .check(Limited::TokenByAddress, &web::address(&parts))?;
    let bytes = web::read_body(body).await?;
    let pairs = web::form(&parts.headers, &bytes, &[])?;
    let client = authenticate_client(inner, &parts.headers, &pairs).await?;
    Ok((pairs, client))
}

/// The client the request authenticates as: HTTP Basic, or `client_id` (and `client_secret`)
/// in the body; one method only (RFC 6749 §2.3).
pub(crate) async fn authenticate_client(
    inner: &Inner,
    headers: &HeaderMap,
    pairs: &[(String, String)],
) -> Result<Client, OAuthError> {
    let basic = basic_credentials(headers)?;
    let body_id = web::param(pairs, "client_id");
    let body_secret = web::param(pairs, "client_secret");
    let (client_id, secret) = match (&basic, body_id) {
        (Some(_), _) if body_secret.is_some() => {
            return Err(OAuthError::InvalidRequest(
                "the client authenticated twice (HTTP Basic and client_secret); use one".into(),
            ));
        }
        (Some((id, _)), Some(body)) if id != body => {
            return Err(OAuthError::InvalidRequest(
                "`client_id` differs from the client of the Authorization header".into(),
            ));
        }
        (Some((id, secret)), _) => (id.as_str(), Some(secret.as_str())),
        (None, Some(id)) => (id, body_secret),
        (None, None) => {
            return Err(OAuthError::InvalidClient(
                "the client is not identified: send `client_id` (or HTTP Basic credentials)".into(),
            ));
        }
    };
    let client = inner.client(client_id).await?;
    match (&client.secret_digest, secret) {
        (None, _) => Ok(client),
        (Some(expected), Some(secret)) if same(expected, &digest_of(secret)) => Ok(client),
        (Some(_), Some(_)) => Err(OAuthError::InvalidClient(format!(
            "the secret of client `{client_id}` is wrong"
        ))),
        (Some(_), None) => Err(OAuthError::InvalidClient(format!(
            "client `{client_id}` has a secret; send it (HTTP Basic or client_secret)"
        ))),
    }
}

/// HTTP Basic client credentials, each form-urlencoded (RFC 6749 §2.3.1).
fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, OAuthError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let bad = || OAuthError::InvalidClient("the Authorization header is not HTTP Basic".into());
    let value = value.to_str().map_err(|_| bad())?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(bad());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(bad());
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| bad())?;
    let decoded = String::from_utf8(decoded).map_err(|_| bad())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(bad)?;
    let unescape = |part: &str| -> String {
        url::form_urlencoded::parse(format!("x={part}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}

async fn redeem_code(
    inner: &Inner,
    client: &Client,
    pairs: &[(String, String)],
) -> Result<Grant, OAuthError> {
    let code = web::required(pairs, "code")?;
    let verifier = web::param(pairs, "code_verifier").ok_or_else(|| {
        OAuthError::InvalidRequest("`code_verifier` is required (PKCE S256)".into())
    })?;
    if !is_verifier(verifier) {
        return Err(OAuthError::InvalidRequest(
            "`code_verifier` must be 43 to 128 unreserved characters (RFC 7636 §4.1)".into(),
        ));
    }
    let redirect_uri = web::required(pairs, "redirect_uri")?;
    let key = digest_of(code);
    let Some(record) = inner.grants.take::<Code>(CODES, &key).await? else {
        return Err(spent_code(inner, &key).await?);
    };
    let family = client.refreshes().then(random_token);
    let spent = Spent {
        key: key.clone(),
        family: family.clone(),
        expires: now() + ttl(inner.settings.refresh_token_ttl),
    };
    inner.grants.put(SPENT_CODES, &key, &spent).await?;
    if record.client_id != client.client_id {
        return Err(OAuthError::InvalidGrant(
            "the code was issued to another client".into(),
        ));
    }
    if record.redirect_uri != redirect_uri {
        return Err(OAuthError::InvalidGrant(format!(
            "`redirect_uri` differs from the authorization request's ({})",
            record.redirect_uri
        )));
    }
    if !same(&s256(verifier), &record.challenge) {
        return Err(OAuthError::InvalidGrant(
            "`code_verifier` does not match the authorization request's code_challenge".into(),
        ));
    }
    check_resource(inner, pairs, &record.resource)?;
    Ok(Grant {
        subject: record.subject,
        scopes: record.scopes,
        resource: record.resource,
        family,
    })
}

/// The refusal of a code that is not live: one redeemed before revokes what it was given.
async fn spent_code(inner: &Inner, key: &str) -> Result<OAuthError, OAuthError> {
    match inner.grants.get::<Spent>(SPENT_CODES, key).await? {
        Some(spent) => {
            if let Some(family) = &spent.family {
                inner.grants.delete(FAMILIES, family).await?;
            }
            tracing::warn!("an authorization code was presented twice; its tokens are revoked");
            Ok(OAuthError::InvalidGrant(
                "the code was already redeemed; the refresh token issued for it is revoked".into(),
            ))
        }
        None => Ok(OAuthError::InvalidGrant(
            "the code is unknown or has expired".into(),
        )),
    }
}

async fn rotate_refresh(
    inner: &Inner,
    client: &Client,
    pairs: &[(String, String)],
) -> Result<Grant, OAuthError> {
    let token = web::required(pairs, "refresh_token")?;
    let key = digest_of(token);
    let Some(record) = inner.grants.get::<Refresh>(REFRESH, &key).await? else {
        return Err(spent_refresh(inner, &key).await?);
    };
    if record.client_id != client.client_id {
        return Err(OAuthError::InvalidGrant(
            "the refresh token was issued to another client".into(),
        ));
    }
    let family = inner.grants.get::<Family>(FAMILIES, &record.family).await?;
    if family.is_none() {
        inner.grants.delete(REFRESH, &key).await?;
        return Err(OAuthError::InvalidGrant(
            "the refresh token's authorization was revoked; authorize again".into(),
        ));
    }
    let scopes = match web::param(pairs, "scope") {
        None => record.scopes.clone(),
        Some(asked) => {
            let asked: Vec<String> = asked
                .split_whitespace()
                .filter(|scope| !IDENTITY_SCOPES.contains(scope))
                .map(str::to_owned)
                .collect();
            if let Some(extra) = asked.iter().find(|s| !record.scopes.contains(s)) {
                return Err(OAuthError::InvalidScope(format!(
                    "`{extra}` was not granted to this refresh token; authorize again for it"
                )));
            }
            asked
        }
    };
    check_resource(inner, pairs, &record.resource)?;
    // Taken once: of two requests rotating one token at once, the second is a reuse.
    if inner.grants.take::<Refresh>(REFRESH, &key).await?.is_none() {
        return Err(spent_refresh(inner, &key).await?);
    }
    let spent = Spent {
        key: key.clone(),
        family: Some(record.family.clone()),
        expires: now() + ttl(inner.settings.refresh_token_ttl),
    };
    inner.grants.put(SPENT_REFRESH, &key, &spent).await?;
    Ok(Grant {
        subject: record.subject,
        scopes,
        resource: record.resource,
        family: Some(record.family),
    })
}

/// The refusal of a refresh token that is not live: one rotated before revokes its family.
async fn spent_refresh(inner: &Inner, key: &str) -> Result<OAuthError, OAuthError> {
    match inner.grants.get::<Spent>(SPENT_REFRESH, key).await? {
        Some(Spent {
            family: Some(family),
            ..
        }) => {
            inner.grants.delete(FAMILIES, &family).await?;
            tracing::warn!("a rotated refresh token was presented again; its family is revoked");
            Ok(OAuthError::InvalidGrant(
                "the refresh token was already used; every token of this authorization is \
                 revoked, authorize again"
                    .into(),
            ))
        }
        _ => Ok(OAuthError::InvalidGrant(
            "the refresh token is unknown, expired or revoked".into(),
        )),
    }
}

/// A `resource` in the token request must be the one the grant is for.
fn check_resource(
    inner: &Inner,
    pairs: &[(String, String)],
    granted: &str,
) -> Result<(), OAuthError> {
    match web::param(pairs, "resource") {
        Some(asked) if inner.resource(asked).as_deref() != Some(granted) => {
            Err(OAuthError::InvalidTarget(format!(
                "`resource` `{asked}` is not the one this grant is for ({granted})"
            )))
        }
        _ => Ok(()),
    }
}

/// Signs an access token for `grant`, and rotates in a refresh token when the client may
/// refresh.
async fn issue(inner: &Inner, client: &Client, grant: Grant) -> Result<Value, OAuthError> {
    let now = now();
    let lifetime = ttl(inner.settings.access_token_ttl);
    let scope = grant.scopes.join(" ");
    let claims = json!({
        "iss": inner.issuer,
        "sub": grant.subject,
        "aud": grant.resource,
        "client_id": client.client_id,
        "scope": scope,
        "iat": now,
        "exp": now + lifetime,
        "jti": random_token(),
    });
    let access_token = inner.keys.sign(&claims).await?;
    let mut answer = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "scope": scope,
    });
    if let Some(family) = grant.family {
        let expires = now + ttl(inner.settings.refresh_token_ttl);
        let record = Family {
            key: family.clone(),
            client_id: client.client_id.clone(),
            subject: grant.subject.clone(),
            expires,
        };
        inner.grants.put(FAMILIES, &family, &record).await?;
        let refresh_token = random_token();
        let refresh = Refresh {
            key: digest_of(&refresh_token),
            family,
            client_id: client.client_id.clone(),
            subject: grant.subject,
            scopes: grant.scopes,
            resource: grant.resource,
            expires,
        };
        inner.grants.put(REFRESH, &refresh.key, &refresh).await?;
        answer["refresh_token"] = refresh_token.into();
    }
    Ok(answer)
}

fn ttl(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_secs()).unwrap_or(i64::MAX / 2)
}

/// `POST /oauth/revoke` (RFC 7009): a refresh token revokes its whole authorization; an access
/// token is refused by every agent from then on (`revoked`). The answer is 200 either way,
/// for a token that is not the client's too.
pub(crate) async fn revoke(
    State(server): State<AuthorizationServer>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    let revoked = async {
        let (pairs, client) = client_request(inner, request).await?;
        let key = digest_of(web::required(&pairs, "token")?);
        match inner.grants.get::<Refresh>(REFRESH, &key).await? {
            Some(record) if record.client_id == client.client_id => {
                inner.grants.delete(FAMILIES, &record.family).await?;
                inner.grants.delete(REFRESH, &key).await?;
            }
            Some(_) => {}
            None => {
                let token = web::required(&pairs, "token")?;
                crate::revoked::revoke_access(inner, token, &client.client_id).await?;
            }
        }
        Ok::<_, OAuthError>(())
    };
    match revoked.await {
        Ok(()) => axum::http::StatusCode::OK.into_response(),
        Err(error) => error.into_response(),
    }
}
