//! HTTP wiring every server shares: CORS, public metadata, health, and serving the assembled
//! routes on a listener (or MCP on stdio).

use std::sync::Arc;

use a2a_runtime_core::defined_agent::DefinedAgent;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio_util::sync::CancellationToken;
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::config::ServeConfig;
use super::direct::Directed;
use super::paths;
use super::transport::{self, BrowserGuard, Endpoint, Front, GuardSettings, Transport};
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_mcp::McpHandler;
use a2a_runtime_types::model::Binding;

/// CORS for public metadata (cards, the protected-resource document, a host's catalog): any
/// origin may read it.
pub(crate) fn readable_anywhere() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([Method::GET])
}

/// The browser guard of a server `config` describes (its bind address the one bound),
/// reached at `base`.
pub(crate) fn browser_guard(config: &ServeConfig, base: &str) -> BrowserGuard {
    let origins = config.allowed_origins.iter().chain(&config.cors_origins);
    BrowserGuard::new(GuardSettings {
        bind: config.bind,
        public_url: config.public_url.as_ref().map(|_| base),
        hosts: &config.allowed_hosts,
        origins: origins.map(String::as_str).collect(),
        public: paths::is_public_metadata,
    })
}

/// `GET /healthz`: `ok` while every one of `managers` has its writes stored, then a line on
/// each of `remotes`.
pub(crate) fn healthz_route(
    managers: Vec<Arc<a2a_runtime_core::task::TaskManager>>,
    remotes: Vec<(String, Arc<dyn DefinedAgent>)>,
    draining: CancellationToken,
) -> axum::routing::MethodRouter {
    let managers: Arc<[_]> = managers.into();
    let remotes: Arc<[_]> = remotes.into();
    get(move || {
        let draining = draining.is_cancelled();
        healthz(Arc::clone(&managers), Arc::clone(&remotes), draining)
    })
}

/// The CORS policy for browser clients of the A2A and MCP endpoints, when origins are given.
pub(crate) fn cors(config: &ServeConfig) -> Option<CorsLayer> {
    let origins = &config.cors_origins;
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok()),
        )
    };
    let mut headers = vec![
        header::CONTENT_TYPE,
        header::AUTHORIZATION,
        header::ACCEPT,
        HeaderName::from_static("a2a-version"),
        HeaderName::from_static("a2a-extensions"),
        HeaderName::from_static("x-a2a-extensions"),
        HeaderName::from_static("mcp-session-id"),
        HeaderName::from_static("mcp-protocol-version"),
        HeaderName::from_static("mcp-method"),
        HeaderName::from_static("mcp-name"),
        HeaderName::from_static("last-event-id"),
    ];
    // Checked by `ServeConfig::validate`.
    headers.extend(
        config
            .cors_headers
            .iter()
            .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok()),
    );
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers(headers)
            .expose_headers([
                HeaderName::from_static("mcp-session-id"),
                HeaderName::from_static("a2a-extensions"),
            ]),
    )
}

/// `ok`, or 503 naming why the task store refuses writes (until one lands again) or that the
/// server is draining: a server that cannot store what it reports, or is about to stop, should
/// be taken out of rotation.
async fn healthz(
    managers: Arc<[Arc<a2a_runtime_core::task::TaskManager>]>,
    remotes: Arc<[(String, Arc<dyn DefinedAgent>)]>,
    draining: bool,
) -> Response {
    if draining {
        let text = "draining: stopping soon; in-flight requests are still served\n";
        return (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
    }
    // With replicas: how many this one counts (what per-caller limits are shared among).
    let replicas = managers
        .first()
        .and_then(|manager| manager.live_replicas())
        .map(|live| format!("replicas: {live}\n"))
        .unwrap_or_default();
    match managers.iter().find_map(|manager| manager.store_failure()) {
        None if remotes.is_empty() => format!("ok\n{replicas}").into_response(),
        None => {
            let remotes = super::catalog::health_lines(&remotes);
            format!("ok\n{replicas}{remotes}").into_response()
        }
        Some(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("task store refuses writes: {reason}\n"),
        )
            .into_response(),
    }
}

/// `config` as bound to `listeners`: the card must name the ports actually bound (they differ
/// from the configured ones for `:0`).
pub(crate) fn bound_config(
    config: &ServeConfig,
    listeners: &Listeners,
) -> Result<ServeConfig, Error> {
    Ok(ServeConfig {
        bind: listeners.main.local_addr()?,
        grpc_bind: listeners
            .grpc
            .as_ref()
            .map(|l| l.local_addr())
            .transpose()?,
        ..config.clone()
    })
}

/// The sockets a server accepts on: its address, gRPC's own when it has one, and
/// `--metrics-bind`'s.
pub(crate) struct Listeners {
    pub(crate) main: tokio::net::TcpListener,
    pub(crate) grpc: Option<tokio::net::TcpListener>,
    pub(crate) metrics: Option<tokio::net::TcpListener>,
}

impl Listeners {
    /// `main`, and the other ports `config` asks for (gRPC's, the metrics'), bound now.
    pub(crate) async fn beside(
        main: tokio::net::TcpListener,
        config: &ServeConfig,
    ) -> Result<Self, Error> {
        let metrics_bind = config
            .observe
            .metrics_bind
            .filter(|_| config.observe.metrics);
        Ok(Self {
            main,
            grpc: bind(config.grpc_bind).await?,
            metrics: bind(metrics_bind).await?,
        })
    }
}

/// A listener on `addr`, when given.
async fn bind(
    addr: Option<std::net::SocketAddr>,
) -> Result<Option<tokio::net::TcpListener>, Error> {
    match addr {
        Some(addr) => tokio::net::TcpListener::bind(addr)
            .await
            .map(Some)
            .map_err(|source| Error::Bind { addr, source }),
        None => Ok(None),
    }
}

/// Warns when the server listens beyond loopback without saying where, or without any
/// authentication for some agent of `apps`; `announce` says so on the terminal too.
pub(crate) fn warn_if_open(apps: &[Arc<App>], bound: &ServeConfig, announce: bool) {
    let local = bound.bind;
    if local.ip().is_unspecified() && bound.public_url.is_none() {
        tracing::warn!(
            "listening on all interfaces; pass --public-url so the agent card names a reachable URL"
        );
    }
    if !bound.trusted_proxies.is_empty() && bound.public_url.is_none() {
        tracing::warn!(
            "--trusted-proxy without --public-url: the card, the resource metadata and the \
             token issuer name the bind address, which clients behind the proxy cannot reach; \
             pass the URL they use"
        );
    }
    // Reachable from elsewhere and open to anyone: say so where the operator looks.
    let open_to_all =
        apps.iter().any(|app| !app.security.is_enabled()) && !local.ip().is_loopback();
    if open_to_all {
        tracing::warn!(
            %local,
            "no security scheme is configured: every caller is the one anonymous principal and \
             sees every task; set A2A_API_KEYS, A2A_JWT_SECRET or A2A_JWKS_URL to require \
             credentials"
        );
        if announce {
            eprintln!(
                "WARNING: listening on {local} without authentication: anyone who can reach it \
                 shares one anonymous identity and sees every task (see --help, Authentication)"
            );
        }
    }
}

/// Serves `front` for `apps` on `listeners`, bound as `bound`, until `stop` (then settles the
/// agents as `stopping.rs` says). gRPC's own port serves the same front, answering gRPC alone;
/// `--metrics-bind`'s serves the scrape alone.
pub(crate) async fn serve_front(
    apps: &[Arc<App>],
    bound: &ServeConfig,
    front: Front<Directed>,
    listeners: Listeners,
    stop: CancellationToken,
) -> Result<(), Error> {
    let tls = transport::tls_acceptor(&bound.tls)?;
    let endpoint = |listener, service| Endpoint {
        listener,
        service,
        tls: tls.clone(),
        proxies: bound.trusted_proxies.clone(),
    };
    let mut endpoints = vec![endpoint(listeners.main, front.clone())];
    // A port of gRPC's own (`--grpc-bind`, refused at start in a build without gRPC).
    if let Some(listener) = listeners.grpc
        && let Some(refuse) = a2a_runtime_a2a::bindings::own_port(Binding::Grpc)
    {
        endpoints.push(endpoint(listener, front.refusing(refuse)));
    }
    if let Some(listener) = listeners.metrics
        && let Some(router) = super::observe::apart(apps)
    {
        endpoints.push(metrics_endpoint(listener, router)?);
    }
    let transport = Transport {
        limits: &bound.limits,
        untracked: paths::is_untracked,
    };
    let timeout = bound.limits.shutdown_timeout;
    let settle = async |in_flight| super::stopping::settle(apps, timeout, in_flight).await;
    transport::serve(endpoints, transport, stop, settle).await;
    super::observe::flush(apps).await;
    Ok(())
}

/// `--metrics-bind`'s address: the scrape alone, in plain HTTP, behind a guard of its own
/// (the names that address answers to).
fn metrics_endpoint(
    listener: tokio::net::TcpListener,
    router: axum::Router,
) -> Result<Endpoint<Front<Directed>>, Error> {
    let config = ServeConfig {
        bind: listener.local_addr()?,
        ..ServeConfig::default()
    };
    let guard = Arc::new(browser_guard(&config, &config.base_url()));
    let router = router.layer(transport::GuardLayer(Arc::clone(&guard)));
    Ok(Endpoint {
        listener,
        service: Front::new(router, guard, Vec::new()),
        tls: None,
        proxies: transport::TrustedProxies::default(),
    })
}

/// Serves MCP over stdin and stdout with `handler`, each line at most `max_line` bytes,
/// until the client closes stdin.
pub(crate) async fn serve_stdio(handler: McpHandler, max_line: usize) -> Result<(), Error> {
    use rmcp::ServiceExt;

    let (transport, writer) =
        a2a_runtime_mcp::stdio::transport(tokio::io::stdin(), tokio::io::stdout(), max_line);
    let service = handler
        .serve(transport)
        .await
        .map_err(|e| Error::Stdio(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| Error::Stdio(e.to_string()))?;
    // Every answer written before the process exits.
    let _ = writer.await;
    Ok(())
}
