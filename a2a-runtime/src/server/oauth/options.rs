//! The authorization server's settings a command line or environment gives (the `--oauth-*`
//! flags). An application that builds its own [`OAuthServer`](crate::oauth::OAuthServer) (its
//! own sign-in) passes it to the builder; these then add to it.

use std::path::PathBuf;
use std::time::Duration;

/// The `--oauth-*` flags.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// Serve the authorization server, signing every approval in as this user: development on
    /// loopback only (`--oauth-dev-user`, `A2A_OAUTH_DEV_USER`).
    pub dev_user: Option<String>,
    /// Serve the authorization server, users signing in at this OpenID Connect provider (its
    /// issuer URL; `--oauth-proxy`, `A2A_OAUTH_PROXY`).
    pub proxy_issuer: Option<String>,
    /// This server's client id at the provider (`--oauth-proxy-client-id`).
    pub proxy_client_id: Option<String>,
    /// Its client secret there (`--oauth-proxy-client-secret`,
    /// `A2A_OAUTH_PROXY_CLIENT_SECRET`).
    pub proxy_client_secret: Option<String>,
    /// The scopes asked of the provider (`--oauth-proxy-scope`; default `openid profile email`).
    pub proxy_scope: Option<String>,
    /// Https redirect URIs registration accepts: exact URLs or prefixes ending in `*`
    /// (`--oauth-redirect-allow`, `A2A_OAUTH_REDIRECT_ALLOW`); once any is given, only those
    /// and loopback ones.
    pub redirect_allow: Vec<String>,
    /// Clients whose documented callbacks registration accepts: the presets `chatgpt`,
    /// `claude`, `vscode`, `cursor`, `claude-code`, `inspector`, or `all`
    /// (`--oauth-connector`, `A2A_OAUTH_CONNECTORS`).
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
    /// The most clients registered at once (`--oauth-max-clients`; default 10 000).
    pub max_clients: Option<usize>,
    /// How long a registration no person approved lasts (`--oauth-unused-client-ttl`; default
    /// a day).
    pub unused_client_ttl: Option<Duration>,
    /// People who may sign in, by subject or email (`--oauth-allow-users`).
    pub allow_users: Vec<String>,
    /// Email domains whose people may sign in (`--oauth-allow-domains`).
    pub allow_domains: Vec<String>,
    /// Which scopes each group may grant, as `GROUP=SCOPE` (`--oauth-group-scopes`).
    pub group_scopes: Vec<String>,
    /// Refuse every MCP request without valid credentials with 401, `initialize` and
    /// discovery included, on agents with a scheme (`--oauth-require-token-for-initialize`):
    /// for clients that start signing in only then. Off: discovery and public tools stay open.
    pub require_token_for_initialize: bool,
}

impl OAuthOptions {
    /// Whether the flags ask for an authorization server.
    pub fn requested(&self) -> bool {
        self.dev_user.is_some() || self.proxy_issuer.is_some()
    }
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secret = self.proxy_client_secret.as_ref().map(|_| "(redacted)");
        f.debug_struct("OAuthOptions")
            .field("dev_user", &self.dev_user)
            .field("proxy_issuer", &self.proxy_issuer)
            .field("proxy_client_id", &self.proxy_client_id)
            .field("proxy_client_secret", &secret)
            .field("proxy_scope", &self.proxy_scope)
            .field("redirect_allow", &self.redirect_allow)
            .field("connectors", &self.connectors)
            .field("access_token_ttl", &self.access_token_ttl)
            .field("signing_key", &self.signing_key)
            .field("admins", &self.admins)
            .field("no_registration", &self.no_registration)
            .field("allow_private_clients", &self.allow_private_clients)
            .field("max_clients", &self.max_clients)
            .field("unused_client_ttl", &self.unused_client_ttl)
            .field("allow_users", &self.allow_users)
            .field("allow_domains", &self.allow_domains)
            .field("group_scopes", &self.group_scopes)
            .field(
                "require_token_for_initialize",
                &self.require_token_for_initialize,
            )
            .finish()
    }
}
