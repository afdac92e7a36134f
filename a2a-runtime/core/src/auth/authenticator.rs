//! The [`Authenticator`] trait: one security scheme's check of a request's credentials.

use http::request::Parts;

use super::Caller;
use a2a_runtime_types::util::BoxFuture;

/// Why credentials were refused. The message reaches the client (in the 401 body and the
/// `WWW-Authenticate` header), so it never repeats the credential itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct AuthError {
    reason: String,
}

impl AuthError {
    /// Credentials of this scheme were sent and are not valid, for `reason` (for example
    /// "the token expired").
    pub fn invalid(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }

    /// Why the credentials were refused.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// One security scheme's check of a request: the built-in API key, JWT and mutual-TLS schemes
/// implement it, and so can an application for a scheme of its own
/// (`AgentServer::authenticator`).
///
/// The server asks each configured scheme in turn; the first that recognizes credentials
/// decides. A request no scheme recognizes is refused with 401 and every scheme's challenge.
pub trait Authenticator: Send + Sync + 'static {
    /// Checks `request`'s credentials: `Ok(None)` when the request carries none of this
    /// scheme's (another scheme may), `Ok(Some(caller))` when they are valid,
    /// `Err` when they are present and not valid.
    fn authenticate<'a>(
        &'a self,
        request: &'a Parts,
    ) -> BoxFuture<'a, Result<Option<Caller>, AuthError>>;

    /// The `WWW-Authenticate` challenge of this scheme, with `error` when credentials were
    /// refused (for example `Bearer realm="agent", error="invalid_token"`).
    fn challenge(&self, error: Option<&AuthError>) -> String;
}

/// The `WWW-Authenticate` challenge of a refusal for missing scopes (RFC 6750 §3.1): every
/// scope the call needs, so a client can ask for a token granting them all, and where the
/// protected resource's metadata is (RFC 9728 §5.1), when there is one:
/// `Bearer error="insufficient_scope", scope="a b", resource_metadata="…"`.
pub fn insufficient_scope(needed: &[&str], resource_metadata: Option<&str>) -> String {
    let mut challenge = format!(
        "Bearer realm=\"agent\", error=\"insufficient_scope\", scope={}",
        quoted(&needed.join(" "))
    );
    if let Some(url) = resource_metadata {
        challenge.push_str(", resource_metadata=");
        challenge.push_str(&quoted(url));
    }
    challenge
}

/// A `WWW-Authenticate` parameter value: a quoted string with `"` and `\` escaped.
pub fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        // Header values cannot hold control characters.
        if !c.is_control() {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// A challenge `base`, with `error` and its description when credentials were refused.
pub fn challenge(base: String, error_code: &str, error: Option<&AuthError>) -> String {
    match error {
        None => base,
        Some(error) => format!(
            "{base}, error=\"{error_code}\", error_description={}",
            quoted(error.reason())
        ),
    }
}

/// The token of an `Authorization: Bearer …` header, the scheme's name in any case (RFC 7235
/// §2.1: `bearer` is `Bearer`). Every endpoint that takes a bearer token reads it here.
pub fn bearer_token(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim_start().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}
