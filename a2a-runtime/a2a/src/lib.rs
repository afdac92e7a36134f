//! The A2A front-end of [a2a-runtime](https://docs.rs/a2a-runtime): one binding-neutral
//! `A2aService` and thin adapters over it for each binding (JSON-RPC, HTTP+JSON) and protocol
//! version (1.0, 0.3, the early draft), plus the agent card. It never imports the MCP
//! front-end; what both answer alike lives below them.
//!
//! Applications depend on `a2a-runtime`, which serves this front-end. The modules are shared
//! with the server and are not API.

#[doc(hidden)]
pub mod bindings;
#[doc(hidden)]
pub mod card;
pub mod card_cell;
#[doc(hidden)]
pub mod card_security;
#[doc(hidden)]
pub mod decode;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod extensions;
#[doc(hidden)]
pub mod gate;
#[cfg(feature = "grpc")]
#[doc(hidden)]
pub mod grpc;
#[doc(hidden)]
pub mod jsonrpc;
#[doc(hidden)]
pub mod keyed;
#[doc(hidden)]
pub mod media;
#[doc(hidden)]
pub mod metering;
#[doc(hidden)]
pub mod push;
#[doc(hidden)]
pub mod rest;
#[doc(hidden)]
pub mod route;
#[doc(hidden)]
pub mod service;
#[doc(hidden)]
pub mod sse;
mod started;
#[doc(hidden)]
pub mod v1;

use axum::http::{HeaderMap, Uri};

pub use error::A2aError;
pub use push::PushSupport;
pub use service::{A2aService, Settings};

/// The error for a request body that could not be read: over the size limit, too slow (the
/// body timeout or deadline), or broken.
pub fn unread_body(
    rejection: &axum::extract::rejection::BytesRejection,
    max_body_bytes: usize,
) -> A2aError {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        return A2aError::PayloadTooLarge {
            limit: max_body_bytes,
        };
    }
    match a2a_runtime_core::body::BodyTooSlow::of(rejection) {
        Some(slow) => A2aError::BodyTooSlow(slow.to_string()),
        None => A2aError::InvalidRequest(rejection.body_text()),
    }
}

/// Checks that a request body is declared JSON (`application/json` or `application/a2a+json`);
/// with `required`, a missing `Content-Type` is refused too.
pub fn check_json_content_type(
    headers: &axum::http::HeaderMap,
    required: bool,
) -> Result<(), A2aError> {
    let Some(given) = headers.get(axum::http::header::CONTENT_TYPE) else {
        return if required {
            Err(A2aError::UnsupportedMediaType(String::new()))
        } else {
            Ok(())
        };
    };
    let given = String::from_utf8_lossy(given.as_bytes());
    let essence = given.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("application/json")
        || essence.eq_ignore_ascii_case("application/a2a+json")
    {
        Ok(())
    } else {
        Err(A2aError::UnsupportedMediaType(given.into_owned()))
    }
}

/// Adds `Retry-After` to the response of a retryable refusal and `WWW-Authenticate` to one
/// for missing scope.
fn add_error_headers(response: &mut axum::response::Response, error: &A2aError) {
    if let Some(seconds) = error.retry_after() {
        response
            .headers_mut()
            .insert(axum::http::header::RETRY_AFTER, seconds.into());
    }
    if let Some(challenge) = error
        .scope_challenge()
        .and_then(|c| axum::http::HeaderValue::from_str(&c).ok())
    {
        response
            .headers_mut()
            .insert(axum::http::header::WWW_AUTHENTICATE, challenge);
    }
}

/// A request refused before it reached a binding, in the binding's error form: a JSON-RPC
/// error, a gRPC status, or an HTTP+JSON `google.rpc.Status`.
pub fn refusal(
    error: &A2aError,
    binding: a2a_runtime_types::model::Binding,
) -> axum::response::Response {
    use a2a_runtime_types::model::Binding;
    match binding {
        Binding::JsonRpc => jsonrpc::error_response(&serde_json::Value::Null, error, Version::V1_0),
        #[cfg(feature = "grpc")]
        Binding::Grpc => grpc::refusal(error),
        _ => rest::error_response(error),
    }
}

/// The A2A protocol generations this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// A2A 1.0: ProtoJSON, PascalCase JSON-RPC methods.
    V1_0,
    /// A2A 0.3: `kind` discriminators, lower-case states, slash methods.
    V0_3,
    /// The early draft (0.1): `tasks/send`, `sessionId`, `type` parts.
    V0_1,
}

impl Version {
    /// The version an `A2A-Version` value names: `Major.Minor`, a patch part ignored.
    fn parse(value: &str) -> Option<Self> {
        let mut parts = value.trim().split('.');
        match (parts.next(), parts.next()) {
            (Some("1"), Some("0")) => Some(Self::V1_0),
            (Some("0"), Some("3")) => Some(Self::V0_3),
            _ => None,
        }
    }

    /// The version as `A2A-Version` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
            Self::V0_1 => "0.1",
        }
    }
}

/// The `A2A-Version` a request names, from its header or its query string; `None` when absent or
/// empty (which means 0.3, a2a-spec.md §1).
fn requested_version(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    let from_query = || {
        uri.query().and_then(|q| {
            q.split('&').find_map(|pair| {
                pair.split_once('=')
                    .filter(|(k, _)| k.eq_ignore_ascii_case("A2A-Version"))
                    .map(|(_, v)| v.to_owned())
            })
        })
    };
    headers
        .get("a2a-version")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
        .or_else(from_query)
        .filter(|v| !v.is_empty())
}

/// The caller of an A2A request, as a handler argument: the request's
/// [`CallerId`](a2a_runtime_core::quota::CallerId), its peer address read from axum's
/// `ConnectInfo` when an application serves the router itself.
pub struct Calling(pub a2a_runtime_core::quota::CallerId);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Calling {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0);
        let caller = a2a_runtime_core::quota::CallerId::of(parts, peer);
        // The tenant an HTTP+JSON path names (`/{tenant}/message:send`), for the span.
        if caller.takes_notes()
            && let Ok(params) = axum::extract::RawPathParams::from_request_parts(parts, state).await
            && let Some((_, tenant)) = params.iter().find(|(name, _)| *name == "tenant")
        {
            caller.note(|span| span.tenant = Some(tenant.to_owned()));
        }
        Ok(Self(caller))
    }
}
