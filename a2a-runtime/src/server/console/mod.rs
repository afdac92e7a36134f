//! The console: a page the agent serves itself, to try its skills and watch its tasks from a
//! browser (`/console`, and the agent's own URL when a browser asks for HTML). Plain HTML, CSS
//! and JavaScript embedded in the binary: nothing is fetched from anywhere else, it works
//! offline, and users build nothing. The page holds no data: what it shows it asks the agent's
//! A2A and MCP endpoints for, with the credentials the person enters, so it shows exactly what
//! those credentials may see.

use axum::Router;
use axum::http::StatusCode;
use axum::http::header::{
    ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderMap, HeaderValue,
    REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The page.
const INDEX: &str = include_str!("assets/index.html");
/// Its script.
const SCRIPT: &str = include_str!("assets/console.js");
/// Its styles.
const STYLES: &str = include_str!("assets/console.css");

/// Where the console is served.
pub(crate) const PATH: &str = "/console";

/// Only the page's own files, and requests to its own agent; never framed.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                      img-src 'self' data: blob:; connect-src 'self'; form-action 'none'; \
                      frame-ancestors 'none'; base-uri 'none'";

/// The console's routes: the page and its two files.
pub(crate) fn routes() -> Router {
    Router::new()
        .route(
            PATH,
            get(|| async { asset("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/console/console.js",
            get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route(
            "/console/console.css",
            get(|| async { asset("text/css; charset=utf-8", STYLES) }),
        )
}

/// `GET` at the agent's URL, where JSON-RPC is `POST`ed: the console for a browser (which asks
/// for HTML), 405 naming `POST` for anything else.
pub(crate) async fn at_root(headers: HeaderMap) -> Response {
    let wants_html = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.contains("text/html"));
    if wants_html {
        return asset("text/html; charset=utf-8", INDEX);
    }
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(ALLOW, HeaderValue::from_static("POST"))],
    )
        .into_response()
}

fn asset(media_type: &'static str, body: &'static str) -> Response {
    let headers = [
        (CONTENT_TYPE, HeaderValue::from_static(media_type)),
        (CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY)),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        // The page changes with the binary, which a restart may replace.
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (headers, body).into_response()
}
