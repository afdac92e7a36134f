//! The authorization server's flags (`--oauth-*`, the `oauth-server` feature).

use std::time::Duration;

use clap::Args;

use super::args::duration;

/// The authorization server for MCP connectors (the `oauth-server` feature).
#[derive(Debug, Args)]
#[command(next_help_heading = "Authorization server (MCP connectors)")]
pub(super) struct OAuthArgs {
    /// Serve an OAuth authorization server that signs every approval in as NAME (development
    /// on loopback only; the consent page is still shown)
    #[arg(long, env = "A2A_OAUTH_DEV_USER", value_name = "NAME")]
    pub(super) oauth_dev_user: Option<String>,
    /// Serve an OAuth authorization server whose users sign in at this OpenID Connect
    /// provider (its issuer URL); the provider's tokens never reach MCP clients
    #[arg(long, env = "A2A_OAUTH_PROXY", value_name = "ISSUER_URL")]
    pub(super) oauth_proxy: Option<String>,
    /// This server's client id at the --oauth-proxy provider
    #[arg(long, env = "A2A_OAUTH_PROXY_CLIENT_ID", value_name = "ID")]
    pub(super) oauth_proxy_client_id: Option<String>,
    /// This server's client secret at the --oauth-proxy provider
    #[arg(
        long,
        env = "A2A_OAUTH_PROXY_CLIENT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub(super) oauth_proxy_client_secret: Option<String>,
    /// The scopes asked of the --oauth-proxy provider [default: openid profile email]
    #[arg(long, env = "A2A_OAUTH_PROXY_SCOPE", value_name = "SCOPES")]
    pub(super) oauth_proxy_scope: Option<String>,
    /// Https redirect URIs client registration accepts: exact URLs, or prefixes ending in `*`
    /// (repeat, or comma separated); once any is given, only those and loopback ones
    #[arg(
        long = "oauth-redirect-allow",
        env = "A2A_OAUTH_REDIRECT_ALLOW",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub(super) oauth_redirect_allow: Vec<String>,
    /// Clients whose documented callbacks registration accepts, and only those (with loopback
    /// ones): chatgpt, claude, vscode, cursor, claude-code, inspector, or all
    #[arg(
        long = "oauth-connector",
        env = "A2A_OAUTH_CONNECTORS",
        value_delimiter = ',',
        value_name = "CLIENT"
    )]
    pub(super) oauth_connectors: Vec<String>,
    /// How long access tokens live [default: 15m]
    #[arg(long, env = "A2A_OAUTH_TOKEN_TTL", value_parser = duration, value_name = "DURATION")]
    pub(super) oauth_token_ttl: Option<Duration>,
    /// P-256 private key (PEM) to sign tokens with, instead of generated, rotated keys
    #[arg(long, env = "A2A_OAUTH_SIGNING_KEY", value_name = "PATH")]
    pub(super) oauth_signing_key: Option<std::path::PathBuf>,
    /// Principals who may list and delete registered clients (repeat, or comma separated)
    #[arg(
        long = "oauth-admin",
        env = "A2A_OAUTH_ADMINS",
        value_delimiter = ',',
        value_name = "PRINCIPAL"
    )]
    pub(super) oauth_admins: Vec<String>,
    /// Refuse dynamic client registration (clients identify by metadata documents)
    #[arg(long, env = "A2A_OAUTH_NO_REGISTRATION", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) oauth_no_registration: bool,
    /// Fetch client metadata documents from loopback and private addresses too (development
    /// and tests; refused by default as server-side request forgery)
    #[arg(long, env = "A2A_OAUTH_ALLOW_PRIVATE_CLIENTS", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) oauth_allow_private_clients: bool,
    /// The most clients registered at once; past it registration is refused until unused
    /// registrations lapse or an administrator deletes some [default: 10000]
    #[arg(long, env = "A2A_OAUTH_MAX_CLIENTS", value_name = "N")]
    pub(super) oauth_max_clients: Option<usize>,
    /// People who may sign in, by subject or email (repeat, or comma separated); with
    /// --oauth-allow-domains, anyone either admits [default: everyone who signs in]
    #[arg(
        long = "oauth-allow-users",
        env = "A2A_OAUTH_ALLOW_USERS",
        value_delimiter = ',',
        value_name = "USER"
    )]
    pub(super) oauth_allow_users: Vec<String>,
    /// Email domains whose people may sign in (their verified email's, or the provider's
    /// hosted domain `hd`; repeat, or comma separated)
    #[arg(
        long = "oauth-allow-domains",
        env = "A2A_OAUTH_ALLOW_DOMAINS",
        value_delimiter = ',',
        value_name = "DOMAIN"
    )]
    pub(super) oauth_allow_domains: Vec<String>,
    /// Which scopes each group may grant, as GROUP=SCOPE (a scope or a prefix ending in `*`;
    /// the group `*` is everyone; repeat, or comma separated). Once any is given, a person may
    /// grant only what their groups' rules allow [default: every scope]
    #[arg(
        long = "oauth-group-scopes",
        env = "A2A_OAUTH_GROUP_SCOPES",
        value_delimiter = ',',
        value_name = "GROUP=SCOPE"
    )]
    pub(super) oauth_group_scopes: Vec<String>,
    /// Answer every MCP request without valid credentials with 401, `initialize` included (for
    /// clients that start signing in only then; by default discovery and public tools are open)
    #[arg(long, env = "A2A_OAUTH_REQUIRE_TOKEN_FOR_INITIALIZE", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) oauth_require_token_for_initialize: bool,
    /// How long a registration no person approved lasts [default: 24h]
    #[arg(long, env = "A2A_OAUTH_UNUSED_CLIENT_TTL", value_parser = duration, value_name = "DURATION")]
    pub(super) oauth_unused_client_ttl: Option<Duration>,
}

impl OAuthArgs {
    /// Adds what was given to `options`.
    pub(super) fn apply(self, options: &mut crate::server::oauth::OAuthOptions) {
        if self.oauth_dev_user.is_some() {
            options.dev_user = self.oauth_dev_user;
        }
        if self.oauth_proxy.is_some() {
            options.proxy_issuer = self.oauth_proxy;
        }
        if self.oauth_proxy_client_id.is_some() {
            options.proxy_client_id = self.oauth_proxy_client_id;
        }
        if self.oauth_proxy_client_secret.is_some() {
            options.proxy_client_secret = self.oauth_proxy_client_secret;
        }
        if self.oauth_proxy_scope.is_some() {
            options.proxy_scope = self.oauth_proxy_scope;
        }
        options.redirect_allow.extend(self.oauth_redirect_allow);
        options.connectors.extend(self.oauth_connectors);
        if self.oauth_token_ttl.is_some() {
            options.access_token_ttl = self.oauth_token_ttl;
        }
        if self.oauth_signing_key.is_some() {
            options.signing_key = self.oauth_signing_key;
        }
        options.admins.extend(self.oauth_admins);
        options.no_registration |= self.oauth_no_registration;
        options.allow_private_clients |= self.oauth_allow_private_clients;
        if self.oauth_max_clients.is_some() {
            options.max_clients = self.oauth_max_clients;
        }
        if self.oauth_unused_client_ttl.is_some() {
            options.unused_client_ttl = self.oauth_unused_client_ttl;
        }
        options.allow_users.extend(self.oauth_allow_users);
        options.allow_domains.extend(self.oauth_allow_domains);
        options.group_scopes.extend(self.oauth_group_scopes);
        options.require_token_for_initialize |= self.oauth_require_token_for_initialize;
    }
}
