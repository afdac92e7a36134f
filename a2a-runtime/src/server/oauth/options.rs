//! The authorization server's settings a command line or environment gives (the `--oauth-*`
//! flags). An application that builds its own [`OAuthServer`](crate::oauth::OAuthServer) (its
//! own sign-in) passes it to the builder; these then add to it.

use std::path::PathBuf;
use std::time::Duration;

/// The `--oauth-*` flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// Serve the authorization server, signing every approval in as this user: development on
    /// loopback only (`--oauth-dev-user`, `A2A_OAUTH_DEV_USER`).
    pub dev_user: Option<String>,
    /// Https redirect URIs registration accepts: exact URLs or prefixes ending in `*`
    /// (`--oauth-redirect-allow`, `A2A_OAUTH_REDIRECT_ALLOW`); once any is given, only those
    /// and loopback ones.
    pub redirect_allow: Vec<String>,
    /// Hosted assistants whose documented callback URLs registration accepts: `chatgpt`,
    /// `claude` (`--oauth-connector`, `A2A_OAUTH_CONNECTORS`).
    pub connectors: Vec<String>,
    /// How long access tokens live (`--oauth-token-ttl`; default 15 minutes).
    pub access_token_ttl: Option<Duration>,
    /// A P-256 private key (PEM) to sign tokens with, instead of generated, rotated keys
    /// (`--oauth-signing-key`).
    pub signing_key: Option<PathBuf>,
    /// Principals who may list and delete registered clients (`--oauth-admin`).
    pub admins: Vec<String>,
    /// Refuse dynamic client registration (`--oauth-no-registration`): clients use metadata
    /// documents.
    pub no_registration: bool,
    /// Fetch client metadata documents from loopback and private addresses too
    /// (`--oauth-allow-private-clients`; development and tests).
    pub allow_private_clients: bool,
}

impl OAuthOptions {
    /// Whether the flags ask for an authorization server.
    pub fn requested(&self) -> bool {
        self.dev_user.is_some()
    }
}
