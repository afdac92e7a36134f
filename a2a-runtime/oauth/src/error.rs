//! Every refusal of the authorization server, and its one mapping to the wire: the RFC 6749
//! error code (with RFC 7591's registration codes and RFC 8707's `invalid_target`) and the HTTP
//! status, answered as `{"error", "error_description"}`.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Why a request to the authorization server was refused. The message is the
/// `error_description`: it names the parameter or field at fault.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// A parameter is missing, repeated or malformed (`invalid_request`).
    #[error("{0}")]
    InvalidRequest(String),
    /// The client is unknown, or failed to authenticate (`invalid_client`): a client that
    /// registered dynamically registers again.
    #[error("{0}")]
    InvalidClient(String),
    /// The code or refresh token is unknown, expired, used, or was issued to another client,
    /// redirect URI or verifier (`invalid_grant`).
    #[error("{0}")]
    InvalidGrant(String),
    /// The client may not use this grant (`unauthorized_client`).
    #[error("{0}")]
    UnauthorizedClient(String),
    /// A grant type this server does not issue tokens for (`unsupported_grant_type`).
    #[error("{0}")]
    UnsupportedGrantType(String),
    /// A response type other than `code` (`unsupported_response_type`).
    #[error("{0}")]
    UnsupportedResponseType(String),
    /// A scope that is malformed (`invalid_scope`).
    #[error("{0}")]
    InvalidScope(String),
    /// A `resource` this server does not issue tokens for (`invalid_target`, RFC 8707).
    #[error("{0}")]
    InvalidTarget(String),
    /// The user declined (`access_denied`).
    #[error("{0}")]
    AccessDenied(String),
    /// A redirect URI registration refuses (`invalid_redirect_uri`, RFC 7591).
    #[error("{0}")]
    InvalidRedirectUri(String),
    /// Client metadata registration refuses (`invalid_client_metadata`, RFC 7591).
    #[error("{0}")]
    InvalidClientMetadata(String),
    /// The caller of an administrative request is not an administrator (`access_denied`, 403).
    #[error("{0}")]
    Forbidden(String),
    /// No such client (for the administrative API; 404).
    #[error("{0}")]
    NotFound(String),
    /// Too many requests from this client or address (`temporarily_unavailable`, 429).
    #[error("{reason}")]
    RateLimited {
        /// What was limited.
        reason: String,
        /// When to try again.
        retry_after: Duration,
    },
    /// The server holds as many registered clients as it may (`temporarily_unavailable`, 503).
    #[error("{0}")]
    TooManyClients(String),
    /// The server could not keep or read what the request needs (`server_error`, 503): nothing
    /// was granted.
    #[error("{0}")]
    Unavailable(String),
}

impl OAuthError {
    /// The RFC 6749 `error` code.
    pub fn code(&self) -> &'static str {
        self.wire().0
    }

    /// The HTTP status of the JSON answer.
    pub fn status(&self) -> StatusCode {
        self.wire().1
    }

    /// The one table of codes and statuses.
    fn wire(&self) -> (&'static str, StatusCode) {
        match self {
            Self::InvalidRequest(_) => ("invalid_request", StatusCode::BAD_REQUEST),
            Self::InvalidClient(_) => ("invalid_client", StatusCode::UNAUTHORIZED),
            Self::InvalidGrant(_) => ("invalid_grant", StatusCode::BAD_REQUEST),
            Self::UnauthorizedClient(_) => ("unauthorized_client", StatusCode::BAD_REQUEST),
            Self::UnsupportedGrantType(_) => ("unsupported_grant_type", StatusCode::BAD_REQUEST),
            Self::UnsupportedResponseType(_) => {
                ("unsupported_response_type", StatusCode::BAD_REQUEST)
            }
            Self::InvalidScope(_) => ("invalid_scope", StatusCode::BAD_REQUEST),
            Self::InvalidTarget(_) => ("invalid_target", StatusCode::BAD_REQUEST),
            Self::AccessDenied(_) => ("access_denied", StatusCode::FORBIDDEN),
            Self::InvalidRedirectUri(_) => ("invalid_redirect_uri", StatusCode::BAD_REQUEST),
            Self::InvalidClientMetadata(_) => ("invalid_client_metadata", StatusCode::BAD_REQUEST),
            Self::Forbidden(_) => ("access_denied", StatusCode::FORBIDDEN),
            Self::NotFound(_) => ("not_found", StatusCode::NOT_FOUND),
            Self::RateLimited { .. } => ("temporarily_unavailable", StatusCode::TOO_MANY_REQUESTS),
            Self::TooManyClients(_) => ("temporarily_unavailable", StatusCode::SERVICE_UNAVAILABLE),
            Self::Unavailable(_) => ("server_error", StatusCode::SERVICE_UNAVAILABLE),
        }
    }

    /// A store failure, logged here with what failed; the client is told only that nothing
    /// was granted.
    pub(crate) fn store(what: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "authorization server: {what}");
        Self::Unavailable(format!(
            "the authorization server could not {what}; nothing was granted, try again"
        ))
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let (code, status) = self.wire();
        let body = json!({ "error": code, "error_description": self.to_string() });
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        match &self {
            // RFC 6749 §5.2: a 401 names the authentication scheme the client may use.
            Self::InvalidClient(_) => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Basic realm=\"oauth\""),
                );
            }
            Self::RateLimited { retry_after, .. } => {
                let seconds = retry_after.as_secs().max(1);
                if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                    headers.insert(header::RETRY_AFTER, value);
                }
            }
            _ => {}
        }
        response
    }
}
