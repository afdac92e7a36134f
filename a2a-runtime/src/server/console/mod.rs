//! The console: a page the agent serves itself, to try its skills, watch its tasks and, for
//! administrators, see its clients, usage and metrics from a browser (`/console`, and the
//! agent's own URL when a browser asks for HTML; on a host, `/{id}/console` for each agent and
//! an agent picker). Plain HTML, CSS and JavaScript modules embedded in the binary: nothing is
//! fetched from anywhere else, it works offline, and users build nothing. The page holds no
//! data: what it shows it asks the agent's A2A and MCP endpoints (and the server's
//! administrative ones) for, with the credentials the person enters, so it shows exactly what
//! those credentials may see.

use axum::Router;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::http::header::{
    ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderMap, HeaderValue,
    REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::server::config::ServeConfig;

/// The page.
const INDEX: &str = include_str!("assets/index.html");

/// The page's files below `/console/`: name, media type, content.
const FILES: &[(&str, &str, &str)] = &[
    ("console.css", CSS, include_str!("assets/console.css")),
    ("console.js", JS, include_str!("assets/console.js")),
    ("http.js", JS, include_str!("assets/http.js")),
    ("forms.js", JS, include_str!("assets/forms.js")),
    ("parts.js", JS, include_str!("assets/parts.js")),
    ("run.js", JS, include_str!("assets/run.js")),
    ("watch.js", JS, include_str!("assets/watch.js")),
    ("mcp.js", JS, include_str!("assets/mcp.js")),
    ("admin.js", JS, include_str!("assets/admin.js")),
    ("signin.js", JS, include_str!("assets/signin.js")),
];
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Where the console is served.
pub(crate) const PATH: &str = crate::server::paths::CONSOLE;

/// Only the page's own files, and requests to its own server; never framed.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                      img-src 'self' data: blob:; connect-src 'self'; form-action 'none'; \
                      frame-ancestors 'none'; base-uri 'none'";

/// What the page learns of the server it is on, at `/console/server.json`, so that it asks
/// only for what exists.
#[derive(Debug, Clone, serde::Serialize)]
struct Facts {
    /// Whether the server is a host of several agents (its catalog is at `/agents`).
    host: bool,
    /// Whether it runs an authorization server the console can sign in with.
    oauth: bool,
    /// The administrative endpoints on this address: `/oauth/clients`, `/usage`, `/metrics`.
    admin: Vec<&'static str>,
}

/// The console's routes at a server's root, when `config` turns it on: the page, its files and
/// what the server has: a host's catalog (`host`), an authorization server (`oauth`, whose
/// client list is then an administrative endpoint), and the `observed` endpoints
/// (`/metrics`, `/usage`).
pub(crate) fn routes(
    config: &ServeConfig,
    host: bool,
    oauth: bool,
    observed: &[&'static str],
) -> Router {
    if !config.console_enabled() {
        return Router::new();
    }
    let mut admin = observed.to_vec();
    if oauth {
        admin.push(crate::server::paths::OAUTH_CLIENTS);
    }
    let facts = Facts { host, oauth, admin };
    let facts = Bytes::from(serde_json::to_vec(&facts).unwrap_or_default());
    page()
        .route(
            crate::server::paths::CONSOLE_FACTS,
            get(move || {
                let facts = facts.clone();
                async move { asset("application/json", facts) }
            }),
        )
        .route(crate::server::paths::CONSOLE_FILES, get(file))
}

/// The page alone at `/console`, for an agent of a host (nested under `/{id}`); its files are
/// the root's.
pub(crate) fn page() -> Router {
    Router::new().route(PATH, get(|| async { asset(HTML, INDEX) }))
}

async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(file, _, _)| *file == name) {
        Some((_, media_type, body)) => asset(media_type, *body),
        None => StatusCode::NOT_FOUND.into_response(),
    }
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
        return asset(HTML, INDEX);
    }
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(ALLOW, HeaderValue::from_static("POST"))],
    )
        .into_response()
}

fn asset(media_type: &'static str, body: impl Into<Bytes>) -> Response {
    let headers = [
        (CONTENT_TYPE, HeaderValue::from_static(media_type)),
        (CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY)),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        // The page changes with the binary, which a restart may replace.
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (headers, body.into()).into_response()
}
