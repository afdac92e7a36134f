//! The routes of the authorization server, and of its sign-in. Discovery, keys, registration,
//! the token and revocation endpoints answer any origin (browser-based MCP clients call them);
//! the pages and the administrative API do not.

use axum::Router;
use axum::http::{Method, header};
use axum::routing::{delete, get, post};
use tower_http::cors::{Any, CorsLayer};

use crate::server::AuthorizationServer;
use crate::{admin, authorize, metadata, register, token};

impl AuthorizationServer {
    /// Every route of the authorization server, at the paths its metadata names.
    pub fn router(&self) -> Router {
        let inner = &self.inner;
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
            .route(&inner.path("jwks"), get(metadata::jwks))
            .route(&inner.path("token"), post(token::token))
            .route(&inner.path("revoke"), post(token::revoke));
        if inner.settings.registration {
            open = open.route(&inner.path("register"), post(register::register));
        }
        let pages = Router::new()
            .route(&inner.path("authorize"), get(authorize::authorize))
            .route(
                &inner.path("consent"),
                get(authorize::consent).post(authorize::decide),
            )
            .route(&inner.path("clients"), get(admin::list))
            .route(
                &format!("{}/{{id}}", inner.path("clients")),
                delete(admin::delete),
            );
        open.layer(cors)
            .merge(pages)
            .with_state(self.clone())
            .merge(inner.settings.sign_in.routes())
    }
}
