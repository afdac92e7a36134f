//! The routes of the authorization server, and of its sign-in. Discovery, keys, registration,
//! the token and revocation endpoints answer any origin (browser-based MCP clients call them);
//! the pages and the administrative API do not.

use axum::Router;
use axum::http::{Method, header};
use axum::routing::{delete, get, post};
use tower_http::cors::{Any, CorsLayer};

use crate::server::{AuthorizationServer, Inner};
use crate::{admin, authorize, metadata, register, token};

/// The paths any origin may call (the server's browser guard lets them through).
pub const CROSS_ORIGIN_PATHS: [&str; 6] = [
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/oauth/jwks",
    "/oauth/token",
    "/oauth/register",
    "/oauth/revoke",
];

impl AuthorizationServer {
    /// Every route of the authorization server, at the paths its metadata names (less the
    /// public URL's path, which a proxy in front strips).
    pub fn router(&self) -> Router {
        let cors = CorsLayer::new()
            .allow_origin(Any)
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                header::HeaderName::from_static("mcp-protocol-version"),
            ]);
        let mut open = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(metadata::oauth),
            )
            .route("/.well-known/openid-configuration", get(metadata::openid))
            .route(&Inner::route("jwks"), get(metadata::jwks))
            .route(&Inner::route("token"), post(token::token))
            .route(&Inner::route("revoke"), post(token::revoke));
        if self.inner.settings.registration {
            open = open.route(&Inner::route("register"), post(register::register));
        }
        let pages = Router::new()
            .route(&Inner::route("authorize"), get(authorize::authorize))
            .route(
                &Inner::route("consent"),
                get(authorize::consent).post(authorize::decide),
            )
            .route(&Inner::route("clients"), get(admin::list))
            .route(
                &format!("{}/{{id}}", Inner::route("clients")),
                delete(admin::delete),
            );
        open.layer(cors)
            .merge(pages)
            .with_state(self.clone())
            .merge(
                self.inner
                    .settings
                    .sign_in
                    .routes(&self.inner.sign_in_context()),
            )
    }
}
