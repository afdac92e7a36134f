//! Dynamic client registration (RFC 7591), kept for the clients that do not use client ID
//! metadata documents yet: redirect URIs checked against the server's policy, a secret issued
//! (and stored as a digest) unless the client is public.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::OAuthError;
use crate::clients::{Client, read_metadata};
use crate::limits::Limited;
use crate::secret::{digest_of, random_token};
use crate::server::AuthorizationServer;
use crate::store::{CLIENTS, now};
use crate::web;

/// `POST /oauth/register`.
pub(crate) async fn register(
    State(server): State<AuthorizationServer>,
    request: Request,
) -> Response {
    match registered(&server, request).await {
        Ok(answer) => {
            let mut response = (StatusCode::CREATED, Json(answer)).into_response();
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(error) => error.into_response(),
    }
}

async fn registered(server: &AuthorizationServer, request: Request) -> Result<Value, OAuthError> {
    let inner = &server.inner;
    let (parts, body) = request.into_parts();
    inner
        .limits
        .check(Limited::Register, &web::address(&parts))?;
    let request = registration(&parts, body).await?;
    let fields = request.as_object().ok_or_else(|| {
        OAuthError::InvalidClientMetadata("the registration must be a JSON object".into())
    })?;
    let metadata = read_metadata(fields, &inner.settings.redirects, "client_secret_basic")?;
    let secret = (metadata.token_endpoint_auth_method != "none").then(random_token);
    let client = Client {
        client_id: format!("c-{}", random_token()),
        client_name: metadata.client_name,
        client_uri: metadata.client_uri,
        redirect_uris: metadata.redirect_uris,
        grant_types: metadata.grant_types,
        token_endpoint_auth_method: metadata.token_endpoint_auth_method,
        secret_digest: secret.as_deref().map(digest_of),
        registered: now(),
        metadata_document: false,
        approved_redirects: Vec::new(),
        expires: Some(now().saturating_add(ttl_seconds(inner.settings.unused_client_ttl))),
    };
    let max = inner.settings.max_clients;
    if !inner
        .grants
        .put_new_within(CLIENTS, &client.client_id, &client, max)
        .await?
    {
        tracing::warn!(
            max,
            "authorization server: registration refused, the client cap is reached"
        );
        return Err(OAuthError::TooManyClients(format!(
            "this server holds {max} registered clients, its limit; try again later (unused \
             registrations lapse, and administrators may delete clients)"
        )));
    }
    tracing::info!(
        client_id = %client.client_id,
        name = client.client_name.as_deref().unwrap_or(""),
        "authorization server: a client registered"
    );
    Ok(answered(&client, fields, secret))
}

/// The registration's body, which must be JSON.
async fn registration(
    parts: &axum::http::request::Parts,
    body: axum::body::Body,
) -> Result<Value, OAuthError> {
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
    {
        return Err(OAuthError::InvalidClientMetadata(format!(
            "a registration is application/json, not `{content_type}`"
        )));
    }
    let bytes = web::read_body(body).await?;
    serde_json::from_slice(&bytes)
        .map_err(|e| OAuthError::InvalidClientMetadata(format!("the body is not JSON: {e}")))
}

/// The registration response (RFC 7591 §3.2.1) for `client`, registered with `fields`.
fn answered(
    client: &Client,
    fields: &serde_json::Map<String, Value>,
    secret: Option<String>,
) -> Value {
    let mut answer = json!({
        "client_id": client.client_id,
        "client_id_issued_at": client.registered,
        "redirect_uris": client.redirect_uris,
        "grant_types": client.grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
    });
    for (name, value) in [
        ("client_name", &client.client_name),
        ("client_uri", &client.client_uri),
    ] {
        if let Some(value) = value {
            answer[name] = value.clone().into();
        }
    }
    // Echoed as given: fields this server does not act on but the client may read back.
    for name in [
        "scope",
        "application_type",
        "software_id",
        "software_version",
    ] {
        if let Some(value) = fields.get(name).filter(|v| v.is_string()) {
            answer[name] = value.clone();
        }
    }
    if let Some(secret) = secret {
        answer["client_secret"] = secret.into();
        answer["client_secret_expires_at"] = 0.into();
    }
    answer
}

/// `ttl` in whole seconds, for the `expires` of a document.
fn ttl_seconds(ttl: std::time::Duration) -> i64 {
    i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX)
}
