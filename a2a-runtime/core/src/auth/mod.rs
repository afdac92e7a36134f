//! Authentication and authorization: who is calling ([`Caller`]) and how the schemes an agent
//! declares are verified ([`Authenticator`]: API keys, bearer JWTs, client certificates, or an
//! application's own). Each front-end applies them to its requests (the A2A routes' middleware,
//! the MCP gate).
//!
//! Skills name the scopes they need (`#[skill(scopes = [...])]`); the call is refused with 403
//! before any work when the caller lacks one. Tasks belong to the caller that created them.

pub mod api_key;
pub mod authenticator;
pub mod caller;
#[cfg(feature = "jwt")]
pub mod jwks;
pub mod jwt;
#[cfg(feature = "jwt")]
pub mod jwt_verify;
pub mod metadata;
pub mod mtls;
pub mod scheme;
pub mod scopes;
pub mod security;
#[cfg(feature = "jwt")]
pub mod token_cache;

pub use api_key::{ApiKeys, ApiKeysError, DEFAULT_API_KEY_HEADER};
pub use authenticator::{AuthError, Authenticator};
pub use authenticator::{bearer_token, insufficient_scope, quoted};
pub use caller::Caller;
pub use jwt::{JwtConfig, KeyProvider};
pub use mtls::ClientCertificate;
pub use scheme::{ApiKeyLocation, NamedScheme, OAuthFlow, SecurityScheme};
pub use scopes::ScopeImplications;
pub use security::{AudienceRule, AuthConfig, Security};
