//! `GET /metrics`: the exposition, for a scraper that presents the metrics token (when one is
//! set), on the server's address or on one of its own (which the server binds and serves).

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::server::paths;

/// What a scrape is answered with: the exposition as of now.
pub(super) type Exposition = Arc<dyn Fn() -> String + Send + Sync>;

/// The media type of the Prometheus text format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The `/metrics` route answering with `exposition`, behind `token` when given.
pub(super) fn routes(exposition: Exposition, token: Option<String>) -> Router {
    let token: Option<Arc<str>> = token.map(Arc::from);
    Router::new().route(
        paths::METRICS,
        get(move |headers: HeaderMap| {
            let (exposition, token) = (Arc::clone(&exposition), token.clone());
            async move { scrape(&*exposition, token.as_deref(), &headers) }
        }),
    )
}

fn scrape(
    exposition: &(dyn Fn() -> String + Send + Sync),
    token: Option<&str>,
    headers: &HeaderMap,
) -> Response {
    if let Some(token) = token {
        let presented = a2a_runtime_core::auth::bearer_token(headers);
        if !presented.is_some_and(|presented| same(presented, token)) {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                format!(
                    "{} needs the metrics token as a bearer token (--metrics-token)\n",
                    paths::METRICS
                ),
            )
                .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"metrics\""),
            );
            return response;
        }
    }
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(TEXT_FORMAT))],
        exposition(),
    )
        .into_response()
}

/// Whether `a` is `b`, in time that depends on their lengths only.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |differ, (x, y)| differ | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same("secret", "secret"));
        assert!(!same("secret", "secreT"));
        assert!(!same("secret", "secret2"));
        assert!(!same("", "secret"));
    }
}
