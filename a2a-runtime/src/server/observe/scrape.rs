//! `GET /metrics`: the exposition, for a scraper that presents the metrics token (when one is
//! set), on the server's address or on one of its own.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio_util::sync::CancellationToken;
use tower::Layer as _;

use super::metrics::Metrics;
use crate::server::config::ServeConfig;
use crate::server::front::Front;
use crate::server::guard::{BrowserGuard, GuardLayer};
use crate::server::in_flight::{InFlight, TrackLayer};
use crate::server::paths;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;

/// The media type of the Prometheus text format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The `/metrics` route over `metrics`, behind `token` when given.
pub(super) fn routes(metrics: Arc<Metrics>, token: Option<String>) -> Router {
    let token: Option<Arc<str>> = token.map(Arc::from);
    Router::new().route(
        paths::METRICS,
        get(move |headers: HeaderMap| {
            let (metrics, token) = (Arc::clone(&metrics), token.clone());
            async move { scrape(&metrics, token.as_deref(), &headers) }
        }),
    )
}

fn scrape(metrics: &Metrics, token: Option<&str>, headers: &HeaderMap) -> Response {
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
        metrics.render(),
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

/// Serves `/metrics` alone on `bind`, within the server's `limits`, until `stop`.
pub(super) async fn serve_apart(
    metrics: Arc<Metrics>,
    token: Option<String>,
    bind: SocketAddr,
    limits: &Limits,
    stop: CancellationToken,
) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .map_err(|source| Error::Bind { addr: bind, source })?;
    // Its own Host check: the names this address answers to.
    let config = ServeConfig {
        bind: listener.local_addr()?,
        ..ServeConfig::default()
    };
    let guard = Arc::new(BrowserGuard::new(&config, &config.base_url()));
    let router = routes(metrics, token).layer(GuardLayer(Arc::clone(&guard)));
    let front = Front::new(router, guard, Vec::new());
    let served = TrackLayer(Arc::new(InFlight::default())).layer(front);
    let listening = crate::server::listener::Listening {
        listener,
        tls: None,
        proxies: crate::server::TrustedProxies::default(),
    };
    let draining = crate::server::listener::accept_until(listening, served, limits, stop).await;
    draining.wait(std::time::Duration::from_secs(1)).await;
    Ok(())
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
