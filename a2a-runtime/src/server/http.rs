//! HTTP wiring: routes, body limits, MCP service, listener and shutdown.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::ServeConfig;
use crate::a2a::card::{self, CardBody};
use crate::a2a::jsonrpc::{Aliases, JsonRpc};
use crate::a2a::{A2aService, Settings};
use crate::app::App;
use crate::error::Error;
use crate::mcp::McpHandler;

/// Browser origins accepted by the MCP endpoint on loopback binds.
const LOOPBACK_ORIGINS: &[&str] = &[
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// The path of the MCP endpoint.
pub(crate) const MCP_PATH: &str = "/mcp";

pub(crate) fn router(app: Arc<App>, config: &ServeConfig) -> Result<Router, Error> {
    let base_url = config.base_url();
    let endpoints = card::Endpoints::new(&base_url, &app.limits.rest_prefix);
    let v1_card = card::build(app.agent, app.dispatcher.registry(), &endpoints);
    let card = Arc::new(CardBody::new(&card::hybrid(&v1_card, &endpoints)));
    let card_route = get(
        |State(card): State<Arc<CardBody>>, headers: HeaderMap| async move { card.respond(&headers) },
    );
    let card_routes = Router::new()
        .route("/.well-known/agent-card.json", card_route.clone())
        .route("/.well-known/agent.json", card_route)
        .with_state(card);
    let mcp = mcp_service(Arc::clone(&app), config, &base_url);
    let max_body = app.limits.max_body_bytes;
    let service = Arc::new(A2aService::new(
        Arc::clone(&app.manager),
        Arc::clone(&app.dispatcher),
        Settings {
            max_body_bytes: max_body,
            require_version_header: app.limits.require_version_header,
            sse_keep_alive: app.limits.sse_keep_alive,
        },
        app.shutdown.clone(),
    ));
    let jsonrpc = Arc::new(JsonRpc {
        service: Arc::clone(&service),
        aliases: Aliases::default(),
    });
    Ok(Router::new()
        .route("/", post(crate::a2a::jsonrpc::handle))
        .with_state(jsonrpc)
        .merge(crate::a2a::rest::routes(service, &app.limits.rest_prefix))
        .route("/healthz", get(healthz))
        .layer(DefaultBodyLimit::max(max_body))
        .merge(card_routes)
        .nest_service(
            MCP_PATH,
            tower::ServiceBuilder::new()
                .layer(axum::middleware::from_fn_with_state(
                    max_body,
                    crate::mcp::check_request,
                ))
                .service(mcp),
        ))
}

async fn healthz() -> Response {
    "ok\n".into_response()
}

fn mcp_service(
    app: Arc<App>,
    config: &ServeConfig,
    base_url: &str,
) -> StreamableHttpService<McpHandler, LocalSessionManager> {
    let mut settings = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(app.limits.max_body_bytes)
        .with_cancellation_token(app.shutdown.clone());
    // DNS-rebinding protection: loopback binds accept only loopback Host values (rmcp's
    // default); other binds accept the public URL's host and any configured extra hosts.
    let loopback = config.bind.ip().is_loopback();
    let mut hosts: Vec<String> = if loopback {
        settings.allowed_hosts.clone()
    } else {
        Vec::new()
    };
    if config.public_url.is_some()
        && let Some(host) = url_host(base_url)
    {
        hosts.push(host);
    }
    hosts.extend(config.allowed_hosts.iter().cloned());
    if hosts.is_empty()
        || (!loopback && config.public_url.is_none() && config.allowed_hosts.is_empty())
    {
        if !loopback {
            tracing::warn!(
                "MCP Host checking is off: bound to {} without --public-url or --allowed-host",
                config.bind
            );
        }
        settings = settings.disable_allowed_hosts();
    } else {
        settings = settings.with_allowed_hosts(hosts);
    }
    if loopback {
        // Browsers send `Origin`; on a local server only local pages may call the endpoint.
        // Requests without `Origin` (non-browser clients) are unaffected.
        settings = settings.with_allowed_origins(LOOPBACK_ORIGINS.iter().copied());
    }
    let handler = McpHandler::new(app);
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        settings,
    )
}

/// The host of an `http(s)://host[:port]/path` URL.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let host = if authority.starts_with('[') {
        authority.split(']').next().map(|h| format!("{h}]"))?
    } else {
        authority.split(':').next()?.to_owned()
    };
    (!host.is_empty()).then_some(host)
}

pub(crate) async fn serve_http(
    app: Arc<App>,
    config: &ServeConfig,
    routes: Router,
) -> Result<(), Error> {
    use axum::serve::ListenerExt;

    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .map_err(|source| Error::Bind {
            addr: config.bind,
            source,
        })?;
    // The card must name the port actually bound (it differs from the configured one for `:0`).
    let bound = ServeConfig {
        bind: listener.local_addr()?,
        ..config.clone()
    };
    let local = bound.bind;
    let base = bound.base_url();
    let shutdown = app.shutdown.clone();
    let app_prefix = app.limits.rest_prefix.clone();
    let router = router(app, &bound)?.merge(routes);
    if matches!(local.ip(), IpAddr::V4(ip) if ip.is_unspecified()) && config.public_url.is_none() {
        tracing::warn!(
            "listening on all interfaces; pass --public-url so the agent card names a reachable URL"
        );
    }
    eprintln!("agent card:   {base}.well-known/agent-card.json");
    eprintln!("A2A JSON-RPC: {base}");
    eprintln!(
        "A2A HTTP+JSON: {}",
        card::Endpoints::new(&base, &app_prefix).rest
    );
    eprintln!("MCP:          {}{}", base.trim_end_matches('/'), MCP_PATH);
    // Without TCP_NODELAY small JSON and SSE replies can stall ~40 ms on Nagle + delayed ACK.
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = tokio::signal::ctrl_c().await;
            eprintln!("shutting down");
            shutdown.cancel();
        })
        .await?;
    Ok(())
}

pub(crate) async fn serve_stdio(app: Arc<App>) -> Result<(), Error> {
    use rmcp::ServiceExt;

    let service = McpHandler::new(app)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Stdio(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| Error::Stdio(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::url_host;

    #[test]
    fn hosts_are_read_from_urls() {
        assert_eq!(
            url_host("https://agents.example:8443/x/").as_deref(),
            Some("agents.example")
        );
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("[::1]"));
    }
}
