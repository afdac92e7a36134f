//! A discovery document as served: its bytes, media type and strong entity tag, answered with
//! the caching the discovery specs ask for and `304 Not Modified` to a matching
//! `If-None-Match`; the CORS policy that lets any page read it; and the documents as served
//! now (`LiveDocuments`), replaced whole when a remote changes.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The media type of an MCP server card.
pub(crate) const SERVER_CARD: &str = "application/mcp-server-card+json";
/// The media type of an AI Catalog.
pub(crate) const AI_CATALOG: &str = "application/ai-catalog+json";
/// The media type of a `SKILL.md`.
pub(crate) const MARKDOWN: &str = "text/markdown; charset=utf-8";
/// Every other document.
pub(crate) const JSON: &str = "application/json";

/// One document, ready to serve.
#[derive(Debug)]
pub(crate) struct Served {
    bytes: Bytes,
    media_type: &'static str,
    etag: HeaderValue,
    digest: String,
}

impl Served {
    /// `value` as pretty JSON of `media_type`.
    pub(crate) fn json(value: &serde_json::Value, media_type: &'static str) -> Self {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
        text.push('\n');
        Self::text(text, media_type)
    }

    /// `text` of `media_type`.
    pub(crate) fn text(text: String, media_type: &'static str) -> Self {
        let hex = sha256_hex(text.as_bytes());
        // The digest is the entity tag: the same bytes always have the same tag, across
        // replicas and restarts, as a strong validator requires.
        let etag = HeaderValue::from_str(&format!("\"{}\"", &hex[..32]))
            .unwrap_or(HeaderValue::from_static("\"0\""));
        Self {
            bytes: Bytes::from(text),
            media_type,
            etag,
            digest: format!("sha256:{hex}"),
        }
    }

    /// `sha256:{hex}` of the bytes, as the Agent Skills index gives it.
    pub(crate) fn digest(&self) -> &str {
        &self.digest
    }

    /// The document's bytes.
    pub(crate) fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The document, or `304 Not Modified` when `If-None-Match` names its tag; with
    /// `cache_control`.
    pub(crate) fn respond(&self, request: &HeaderMap, cache_control: HeaderValue) -> Response {
        let cache = [
            (header::CACHE_CONTROL, cache_control),
            (header::ETAG, self.etag.clone()),
        ];
        let matched = request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(|tag| tag.trim().trim_start_matches("W/"))
            .any(|tag| tag == "*" || tag.as_bytes() == self.etag.as_bytes());
        if matched {
            return (StatusCode::NOT_MODIFIED, cache).into_response();
        }
        let media_type = HeaderValue::from_static(self.media_type);
        (
            cache,
            [(header::CONTENT_TYPE, media_type)],
            self.bytes.clone(),
        )
            .into_response()
    }
}

/// The lowercase hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The documents of a server, each at its path.
#[derive(Debug, Default)]
pub(crate) struct Documents {
    served: Vec<(String, Arc<Served>)>,
}

impl Documents {
    /// Adds `document` at `path` (replacing one already there).
    pub(crate) fn add(&mut self, path: String, document: Served) -> Arc<Served> {
        let document = Arc::new(document);
        self.served.retain(|(at, _)| *at != path);
        self.served.push((path, Arc::clone(&document)));
        document
    }

    /// Every document, by path, in the order added.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Arc<Served>)> {
        self.served.iter().map(|(path, doc)| (path.as_str(), doc))
    }

    /// The routes serving them (at `at` from the server's root) as `live` has them when
    /// asked, readable by any page: the documents are public metadata, and a browser
    /// revalidating one sends `If-None-Match`, which needs a preflight.
    pub(crate) fn routes(&self, live: &Arc<LiveDocuments>, at: &str) -> Router {
        let router = self.served.iter().fold(Router::new(), |router, (path, _)| {
            let (live, full) = (Arc::clone(live), format!("{at}{path}"));
            let serve = move |headers: HeaderMap| async move {
                match live.get(&full) {
                    Some(doc) => doc.respond(&headers, live.cache_control()),
                    None => StatusCode::NOT_FOUND.into_response(),
                }
            };
            router.route(path, get(serve))
        });
        router.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::any())
                .allow_methods([Method::GET])
                .allow_headers([header::CONTENT_TYPE, header::IF_NONE_MATCH])
                .expose_headers([header::ETAG]),
        )
    }
}

/// How long a client may keep a document of a server whose documents never change.
const FIXED: &str = "public, max-age=3600";
/// The same for one whose documents change: kept, but revalidated (by its `ETag`) each time.
const CHANGING: &str = "public, no-cache";

/// The documents, by path from the server's root, and how long a client may keep them.
#[derive(Debug)]
pub(crate) struct LiveDocuments {
    served: RwLock<Arc<HashMap<String, Arc<Served>>>>,
    cache_control: RwLock<HeaderValue>,
}

impl Default for LiveDocuments {
    fn default() -> Self {
        Self {
            served: RwLock::default(),
            cache_control: RwLock::new(HeaderValue::from_static(FIXED)),
        }
    }
}

impl LiveDocuments {
    /// The document at `path`, as it is now.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Served>> {
        let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
        served.get(path).cloned()
    }

    /// The `Cache-Control` every document is served with.
    pub(crate) fn cache_control(&self) -> HeaderValue {
        let value = self.cache_control.read();
        value.unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Serves `bundle` from now on.
    pub(super) fn replace(&self, bundle: &[(String, Arc<Served>)]) {
        let served = bundle.iter().map(|(p, d)| (p.clone(), Arc::clone(d)));
        let served = Arc::new(served.collect());
        *self.served.write().unwrap_or_else(PoisonError::into_inner) = served;
    }

    pub(super) fn changing(&self) {
        let value = HeaderValue::from_static(CHANGING);
        *self
            .cache_control
            .write()
            .unwrap_or_else(PoisonError::into_inner) = value;
    }
}
