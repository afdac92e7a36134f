//! An OAuth 2.1 authorization server for MCP connectors of hosted assistants (the
//! `oauth-server` feature): give a server or host one with
//! [`AgentServer::authorization_server`](crate::AgentServer::authorization_server) or the
//! `--oauth-*` flags, and its agents accept the tokens it issues.
//!
//! How a user signs in is a [`SignIn`]: [`DevSignIn`] for development on loopback
//! (`--oauth-dev-user NAME`), [`ProxySignIn`] at an upstream OpenID Connect provider
//! (`--oauth-proxy ISSUER`), or the application's own (its login page, an API-key exchange).

pub use a2a_runtime_oauth::{
    Client, DevSignIn, GrantStore, MAX_CODE_TTL, MemoryGrants, OAuthError, OAuthServer,
    ProxySignIn, RedirectPolicy, SignIn, SignInContext, User, is_local_path,
};
