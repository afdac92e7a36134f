//! The hub's page for the person overseeing its agents, at `/hub`: each active agent with what
//! it holds, its open todos and the questions it has not answered, refreshed as they change.
//! Plain HTML, CSS and one JavaScript module embedded in the binary, like the SDK's console.
//! The page holds no data: it calls the hub's own MCP endpoint (`project_overview`) with the
//! credential the person enters, so the same authentication, scopes and limits apply as to an
//! agent's call, and it shows exactly what that credential may see.

use a2a_runtime::axum::Router;
use a2a_runtime::axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use a2a_runtime::axum::response::IntoResponse;
use a2a_runtime::axum::routing::get;

/// Where the page is served.
pub const PATH: &str = "/hub";

/// Only the page's own files and calls to its own server; never framed.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                      connect-src 'self'; img-src 'self' data:; form-action 'none'; \
                      frame-ancestors 'none'; base-uri 'none'";

/// The page's routes: `/hub` and its two files below it. Served beside the hub's MCP endpoint
/// at `/mcp`, which the page calls.
pub fn overview_page() -> Router {
    Router::new()
        .route(
            PATH,
            get(|| asset("text/html; charset=utf-8", include_str!("assets/hub.html"))),
        )
        .route(
            "/hub/hub.js",
            get(|| {
                asset(
                    "text/javascript; charset=utf-8",
                    include_str!("assets/hub.js"),
                )
            }),
        )
        .route(
            "/hub/hub.css",
            get(|| asset("text/css; charset=utf-8", include_str!("assets/hub.css"))),
        )
}

async fn asset(media_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (CONTENT_TYPE, media_type),
            (CONTENT_SECURITY_POLICY, POLICY),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (X_FRAME_OPTIONS, "DENY"),
            (REFERRER_POLICY, "no-referrer"),
            // The page changes with the binary, which an upgrade replaces.
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}
