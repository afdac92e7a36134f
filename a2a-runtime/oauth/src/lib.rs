//! The OAuth 2.1 authorization server of [a2a-runtime](https://docs.rs/a2a-runtime), so hosted
//! assistants (ChatGPT and Claude connectors, desktop MCP clients) can sign users in to an
//! agent without an identity provider in front of it: RFC 8414 metadata, client ID metadata
//! documents and dynamic registration (RFC 7591), the authorization code flow with PKCE S256
//! only, RFC 9207 `iss`, RFC 8707 resources bound to each token's audience, short-lived ES256
//! access tokens with rotated keys, and refresh tokens rotated on use with reuse detection.
//!
//! Who the user is stays pluggable ([`SignIn`]): a development sign-in, an upstream OpenID
//! Connect provider (proxy mode: the upstream token never reaches the client), or the
//! application's own. Applications enable the `oauth-server` feature of `a2a-runtime`, which
//! re-exports this crate and wires it into the server.

mod admin;
mod authorize;
mod cimd;
mod clients;
mod error;
mod keys;
mod limits;
mod metadata;
mod page;
mod policy;
mod proxy;
mod redirects;
mod register;
mod revoked;
mod routes;
mod secret;
mod server;
mod settings;
mod signin;
mod store;
mod token;
mod upstream_user;
mod web;

pub use clients::Client;
pub use error::OAuthError;
pub use policy::AccessPolicy;
pub use proxy::ProxySignIn;
pub use redirects::{RedirectPolicy, preset_names};
pub use routes::CROSS_ORIGIN_PATHS;
pub use server::{AdminAuth, AuthorizationServer, Deployment};
pub use settings::{MAX_CODE_TTL, OAuthServer};
pub use signin::{DevSignIn, SignIn, SignInContext, User, is_local_path};
pub use store::{GrantStore, GrantStoreError, MemoryGrants};

/// The [`GrantStore`] collection revoked access tokens are written to: replicas sharing a store
/// follow its changes and call [`AuthorizationServer::forget_verified_tokens`].
pub const REVOCATIONS: &str = store::REVOKED;
