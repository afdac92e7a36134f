//! The authorization server inside a served agent or host (the `oauth-server` feature). It is
//! deployed once the server is bound (its URL is the issuer) and its store is open (grants are
//! kept beside the tasks); every agent then accepts its tokens for the agent's own resources,
//! through an `oauth2` scheme the server adds unless the agent declares one that takes JWTs.

mod options;

pub use options::OAuthOptions;

#[cfg(not(feature = "oauth-server"))]
mod absent;
#[cfg(feature = "oauth-server")]
mod deploy;
#[cfg(feature = "oauth-server")]
mod grants;

#[cfg(not(feature = "oauth-server"))]
pub(crate) use absent::{AuthorizationServer, Deployed, Plan};
#[cfg(feature = "oauth-server")]
pub(crate) use deploy::{Deployed, Plan};
/// An application's authorization server, as a server's settings hold it.
#[cfg(feature = "oauth-server")]
pub(crate) type AuthorizationServer = a2a_runtime_oauth::OAuthServer;

use a2a_runtime_core::auth::{AuthConfig, JwtConfig, NamedScheme};

/// What one agent adds to its security to accept the authorization server's tokens.
#[cfg_attr(not(feature = "oauth-server"), allow(dead_code))]
pub(crate) struct AgentOAuth {
    /// Verifies the server's tokens whose audience is one of the agent's resources.
    pub(crate) verifier: JwtConfig,
    /// The scheme the agent publishes for it, when it declares none that takes JWTs.
    pub(crate) scheme: NamedScheme,
}

impl AgentOAuth {
    /// `auth` and `schemes` accepting the server's tokens: its verifier first among the trusted
    /// issuers, and its scheme unless one already takes JWTs.
    pub(crate) fn apply(&self, auth: &mut AuthConfig, schemes: &mut Vec<NamedScheme>) {
        auth.jwt_issuers.insert(0, self.verifier.clone());
        if !schemes.iter().any(|scheme| scheme.scheme.is_jwt()) {
            schemes.push(self.scheme.clone());
        }
    }
}
