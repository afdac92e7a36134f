//! HTTP wiring every server shares: CORS, public metadata, health, and serving the assembled
//! routes on a listener (or MCP on stdio).

use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio_util::sync::CancellationToken;
use tower::Layer as _;
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::config::ServeConfig;
use super::front::Front;
use super::in_flight::{InFlight, TrackLayer};
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_mcp::McpHandler;

/// CORS for public metadata (cards, the protected-resource document, a host's catalog): any
/// origin may read it.
pub(crate) fn readable_anywhere() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([Method::GET])
}

/// `GET /healthz`: `ok` while every one of `managers` has its writes stored.
pub(crate) fn healthz_route(
    managers: Vec<Arc<a2a_runtime_core::task::TaskManager>>,
) -> axum::routing::MethodRouter {
    let managers: Arc<[_]> = managers.into();
    get(move || healthz(Arc::clone(&managers)))
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

/// `ok`, or 503 naming why the task store refuses writes (until one lands again): a server
/// that cannot store what it reports should be taken out of rotation.
async fn healthz(managers: Arc<[Arc<a2a_runtime_core::task::TaskManager>]>) -> Response {
    match managers.iter().find_map(|manager| manager.store_failure()) {
        None => "ok\n".into_response(),
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

/// The sockets a server accepts on: its address, and gRPC's own when it has one.
pub(crate) struct Listeners {
    pub(crate) main: tokio::net::TcpListener,
    pub(crate) grpc: Option<tokio::net::TcpListener>,
}

impl Listeners {
    /// `main`, and the gRPC port `config` asks for, bound now.
    pub(crate) async fn with_grpc_of(
        main: tokio::net::TcpListener,
        config: &ServeConfig,
    ) -> Result<Self, Error> {
        let grpc = match config.grpc_bind {
            Some(addr) => Some(
                tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| Error::Bind { addr, source })?,
            ),
            None => None,
        };
        Ok(Self { main, grpc })
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

/// Serves `front` for `apps` on `listeners`, bound as `bound`, until `stop` (then shuts down
/// as `shutdown.rs` says). gRPC's own port serves the same front, answering gRPC alone.
pub(crate) async fn serve_front(
    apps: &[Arc<App>],
    bound: &ServeConfig,
    front: Front,
    listeners: Listeners,
    stop: CancellationToken,
) -> Result<(), Error> {
    let tls = super::tls::acceptor(&bound.tls)?;
    let in_flight = Arc::new(InFlight::default());
    let track = TrackLayer(Arc::clone(&in_flight));
    tokio::spawn(super::listener::quiet_timers(stop.clone()));
    let metrics = super::observe::serve_apart(apps, bound, stop.clone());
    let listening = |listener| super::listener::Listening {
        listener,
        tls: tls.clone(),
        proxies: bound.trusted_proxies.clone(),
    };
    #[cfg(feature = "grpc")]
    let grpc = listeners
        .grpc
        .map(|listener| (listening(listener), track.layer(front.clone().grpc_only())));
    let main = (listening(listeners.main), track.layer(front));
    #[cfg(feature = "grpc")]
    let served = std::iter::once(main).chain(grpc).collect();
    #[cfg(not(feature = "grpc"))]
    let served = vec![main];
    let serve = super::shutdown::run(apps, &bound.limits, served, stop, in_flight);
    let (metrics, ()) = tokio::join!(metrics, serve);
    super::observe::flush(apps).await;
    metrics
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
