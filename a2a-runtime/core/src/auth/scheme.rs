//! The security schemes an agent accepts, as declared with `#[agent(security(..))]` or the
//! builder: what the agent card publishes and what the server enforces.

use std::fmt;

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyLocation {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
    /// A cookie.
    Cookie,
}

impl ApiKeyLocation {
    /// The card's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Header => "header",
            Self::Query => "query",
            Self::Cookie => "cookie",
        }
    }
}

/// The OAuth 2 flow a client uses to obtain tokens (A2A 1.0 publishes one per scheme).
///
/// Exhaustive on purpose, as is [`SecurityScheme`]: the card of each protocol version renders
/// every variant, and a new one must not compile until each front-end does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthFlow {
    /// Authorization code with PKCE: a user signs in.
    AuthorizationCode {
        /// Where the user authorizes.
        authorization_url: String,
        /// Where codes are exchanged for tokens.
        token_url: String,
    },
    /// Client credentials: a service authenticates as itself.
    ClientCredentials {
        /// Where tokens are issued.
        token_url: String,
    },
    /// Device authorization: a user authorizes on another device.
    DeviceCode {
        /// Where the device obtains its code.
        device_authorization_url: String,
        /// Where tokens are issued.
        token_url: String,
    },
}

/// One way of authenticating, as the agent card publishes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityScheme {
    /// A static API key (verified against the configured keys in constant time).
    ApiKey {
        /// Where the key travels.
        location: ApiKeyLocation,
        /// The header, query parameter or cookie name.
        name: String,
    },
    /// `Authorization: Bearer <JWT>`, verified with a shared secret (HS256) or a JWKS.
    Bearer,
    /// OAuth 2 access tokens (JWTs, verified against the authorization server's JWKS).
    OAuth2 {
        /// RFC 8414 authorization server metadata, when published.
        metadata_url: Option<String>,
        /// The flow clients use; `None` when only the metadata URL is known.
        flow: Option<OAuthFlow>,
    },
    /// OpenID Connect ID or access tokens, verified against the provider's JWKS.
    OpenIdConnect {
        /// The provider's discovery document (`.../.well-known/openid-configuration`).
        url: String,
    },
    /// Mutual TLS: the client certificate, verified against the configured CA.
    MutualTls,
}

impl SecurityScheme {
    /// Whether tokens of this scheme carry scopes (so skills may require them).
    pub fn carries_scopes(&self) -> bool {
        matches!(
            self,
            Self::Bearer | Self::OAuth2 { .. } | Self::OpenIdConnect { .. }
        )
    }

    /// Whether the credentials are bearer JWTs.
    pub fn is_jwt(&self) -> bool {
        self.carries_scopes()
    }
}

/// A security scheme under the name the card and the requirements refer to it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedScheme {
    /// The key in the card's `securitySchemes`.
    pub name: String,
    /// The scheme.
    pub scheme: SecurityScheme,
    /// Shown to people reading the card.
    pub description: Option<String>,
}

impl NamedScheme {
    /// `scheme` under `name`.
    pub fn new(name: impl Into<String>, scheme: SecurityScheme) -> Self {
        Self {
            name: name.into(),
            scheme,
            description: None,
        }
    }
}

impl fmt::Display for NamedScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)
    }
}
