#![doc = include_str!("../docs/security.md")]

pub use a2a_runtime_core::auth::bearer_token;
pub use a2a_runtime_core::auth::{
    ApiKeyLocation, ApiKeys, ApiKeysError, AuthError, Authenticator, Caller, ClientCertificate,
    DEFAULT_API_KEY_HEADER, JwtConfig, KeyProvider, NamedScheme, OAuthFlow, SecurityScheme,
};
