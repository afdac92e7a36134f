//! HTTP wiring: routes, browser guard, body limits and timeouts, CORS, the MCP service.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tower::Layer as _;
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::ServeConfig;
use super::front::{DirectMcp, Front};
use super::guard::{BrowserGuard, GuardLayer};
use super::in_flight::{InFlight, TrackLayer};
use a2a_runtime_a2a::card::{self, CardBody, CardView};
use a2a_runtime_a2a::extensions::Extensions;
use a2a_runtime_a2a::gate::{A2aGateLayer, GateSettings};
use a2a_runtime_a2a::jsonrpc::{Aliases, JsonRpc};
use a2a_runtime_a2a::rest::Tenants;
use a2a_runtime_a2a::{A2aService, PushSupport, Settings};
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_mcp::namespace::ToolSkills;
use a2a_runtime_mcp::{McpEndpoint, McpGate, McpHandler, RmcpService};

/// The path of the MCP endpoint.
pub(crate) const MCP_PATH: &str = "/mcp";

/// The routes of a server of `app`, with `guarded` (an authorization server's) behind the same
/// browser guard.
pub(crate) fn router(
    app: Arc<App>,
    config: &ServeConfig,
    guarded: Option<Router>,
) -> Result<Router, Error> {
    Ok(routes(app, config, guarded)?.router)
}

/// The server's routes, and what [`Front`] needs to answer `/mcp` without them.
struct Routes {
    router: Router,
    guard: Arc<BrowserGuard>,
    /// The MCP endpoint, when it needs no CORS layer.
    mcp: Option<McpEndpoint>,
}

fn routes(app: Arc<App>, config: &ServeConfig, guarded: Option<Router>) -> Result<Routes, Error> {
    config.validate()?;
    let base_url = config.base_url();
    let endpoints = card::Endpoints::new(&base_url, &app.rest_prefix);
    let agent = agent_routes(&app, config, endpoints, Tenants::Any, MCP_PATH);
    let (mcp_route, direct) = agent.mcp.mounted(MCP_PATH);
    let guard = Arc::new(BrowserGuard::new(config, &base_url));
    let (observed, paths) = super::observe::routes(std::slice::from_ref(&app), config);
    let console = super::console::routes(config, false, guarded.is_some(), &paths);
    let router = agent
        .calls
        .merge(console)
        .merge(mcp_route)
        .route("/healthz", healthz_route(vec![Arc::clone(&app.manager)]))
        .merge(agent.card)
        .merge(protected_resource_routes(&app, &base_url, MCP_PATH, true))
        .merge(observed)
        .merge(guarded.unwrap_or_default())
        .layer(GuardLayer(Arc::clone(&guard)));
    Ok(Routes {
        router,
        guard,
        mcp: direct,
    })
}

/// One agent's routes, before the server adds its own and the browser guard.
pub(crate) struct AgentRoutes {
    /// JSON-RPC at `/` and HTTP+JSON, behind the A2A gate (and CORS, when configured).
    pub(crate) calls: Router,
    /// The JSON-RPC endpoint alone (as at `/` of `calls`), to serve at another path.
    pub(crate) jsonrpc: axum::routing::MethodRouter,
    /// The same endpoint without CORS, to call directly.
    pub(crate) endpoint: JsonRpcEndpoint,
    /// The card at the well-known paths, readable from any origin.
    pub(crate) card: Router,
    /// The public card, as served.
    pub(crate) public_card: serde_json::Value,
    /// The MCP endpoint.
    pub(crate) mcp: Mcp,
}

/// An agent's JSON-RPC endpoint (its gate and handler) as a service.
pub(crate) type JsonRpcEndpoint =
    tower::util::BoxCloneSyncService<axum::extract::Request, Response, std::convert::Infallible>;

/// An agent's MCP endpoint, and the CORS policy it is served with, if any.
pub(crate) struct Mcp {
    endpoint: McpEndpoint,
    cors: Option<CorsLayer>,
}

impl Mcp {
    /// A router serving the endpoint at `path`, and the endpoint itself when it needs no
    /// layer (the server's front answers it directly then).
    pub(crate) fn mounted(self, path: &str) -> (Router, Option<McpEndpoint>) {
        match self.cors {
            Some(cors) => (
                Router::new().route_service(path, tower::Layer::layer(&cors, self.endpoint)),
                None,
            ),
            None => (
                Router::new().route_service(path, self.endpoint.clone()),
                Some(self.endpoint),
            ),
        }
    }
}

/// The routes of `app` reached at `endpoints` (which its card names), with its HTTP+JSON
/// routes taking `tenants`; `mcp_path` is the path of its MCP endpoint on the server, for the
/// metadata URL its challenges name.
pub(crate) fn agent_routes(
    app: &Arc<App>,
    config: &ServeConfig,
    endpoints: card::Endpoints,
    tenants: Tenants,
    mcp_path: &str,
) -> AgentRoutes {
    let server_url = config.base_url();
    let hybrid = |view| {
        let v1_card = card::build(
            app.agent,
            app.dispatcher.registry(),
            &endpoints,
            &app.security,
            view,
            card::Capabilities {
                push: app.push.is_some(),
                streaming: app.streaming,
            },
        );
        card::hybrid(&v1_card, &endpoints, &app.security)
    };
    let public_card = hybrid(CardView::Public);
    let card = Arc::new(CardBody::new(&public_card));
    let extended_card = app
        .security
        .is_enabled()
        .then(|| Arc::new(hybrid(CardView::Extended)));
    let card_route = get(
        |State(card): State<Arc<CardBody>>, headers: HeaderMap| async move { card.respond(&headers) },
    );
    // The card is public metadata: any page may read it (a2a-spec.md §8.2).
    let card_routes = Router::new()
        .route("/.well-known/agent-card.json", card_route.clone())
        .route("/.well-known/agent.json", card_route)
        .with_state(card)
        .layer(readable_anywhere());
    let (mcp, sessions) = mcp_service(Arc::clone(app));
    super::observe::watch_sessions(app, &sessions);
    let gate = McpGate {
        max_body: app.limits.max_body_bytes,
        body_time: app.limits.body_time(),
        sessions,
        max_sessions: app.limits.max_mcp_sessions,
        tools: ToolSkills::of(Arc::clone(&app.dispatcher)),
        resource_metadata: resource_metadata_url(&server_url, mcp_path),
        meter: app.dispatcher.meter().clone(),
    };
    let mcp = McpEndpoint::new(gate, Arc::clone(&app.security), mcp);
    let max_body = app.limits.max_body_bytes;
    let extensions = Arc::new(Extensions::new(app.agent.extensions()));
    let service = Arc::new(A2aService::new(
        Arc::clone(&app.manager),
        Arc::clone(&app.dispatcher),
        Arc::clone(&app.quotas),
        Settings {
            max_body_bytes: max_body,
            require_version_header: app.require_version_header,
            streaming: app.streaming,
            sse_keep_alive: app.limits.sse_keep_alive,
            max_message_parts: app.limits.max_message_parts,
            max_part_bytes: app.limits.max_part_bytes,
            max_list_bytes: app.limits.max_list_bytes,
            extended_card,
            extensions: Arc::clone(&extensions),
        },
        app.shutdown.clone(),
        app.push.as_ref().map(|pusher| PushSupport {
            pusher: Arc::clone(pusher),
            max_configs: config.push.max_configs_per_task,
        }),
    ));
    let jsonrpc = Arc::new(JsonRpc {
        service: Arc::clone(&service),
        aliases: Aliases::default(),
    });
    // Every A2A route (`/mcp` takes the same steps in its endpoint) behind one gate; CORS
    // preflights (outside it) need no credentials.
    let gate = |jsonrpc: bool| {
        tower::ServiceBuilder::new()
            .layer(A2aGateLayer(Arc::new(GateSettings {
                security: Arc::clone(&app.security),
                extensions: Arc::clone(&extensions),
                max_body,
                body_time: app.limits.body_time(),
                jsonrpc,
                meter: app.dispatcher.meter().clone(),
            })))
            .layer(DefaultBodyLimit::max(max_body))
    };
    let cors = cors(config);
    // The endpoint alone, cheap to clone, for a host's tenant endpoint to call (behind its own
    // CORS layer); the route, for routers.
    let endpoint = JsonRpcEndpoint::new(tower::Layer::layer(
        &gate(true),
        axum::handler::Handler::with_state(a2a_runtime_a2a::jsonrpc::handle, Arc::clone(&jsonrpc)),
    ));
    let mut jsonrpc = post(a2a_runtime_a2a::jsonrpc::handle)
        .with_state(jsonrpc)
        .layer(gate(true));
    // An agent shows a browser its console at its URL, beside JSON-RPC (inside the CORS layer,
    // which answers preflights for the whole route).
    if config.console_enabled() {
        jsonrpc = jsonrpc.get(super::console::at_root);
    }
    let mut rest =
        a2a_runtime_a2a::rest::routes(service, &app.rest_prefix, tenants).layer(gate(false));
    if let Some(cors) = &cors {
        jsonrpc = jsonrpc.layer(cors.clone());
        rest = rest.layer(cors.clone());
    }
    AgentRoutes {
        calls: Router::new().route("/", jsonrpc.clone()).merge(rest),
        jsonrpc,
        endpoint,
        card: card_routes,
        public_card,
        mcp: Mcp {
            endpoint: mcp,
            cors,
        },
    }
}

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

/// RFC 9728 metadata for the MCP endpoint of `app` at `mcp_path` on the server at `base_url`,
/// at the path-suffixed well-known URL clients derive for it (and at the root one too, with
/// `at_root`), when a scheme takes bearer tokens.
pub(crate) fn protected_resource_routes(
    app: &App,
    base_url: &str,
    mcp_path: &str,
    at_root: bool,
) -> Router {
    let schemes: Vec<_> = app.security.schemes().cloned().collect();
    let scopes: Vec<&str> = app.dispatcher.registry().scopes().into_keys().collect();
    let resource = format!("{}{}", base_url.trim_end_matches('/'), mcp_path);
    let document = a2a_runtime_core::auth::metadata::document(
        &resource,
        app.agent.name(),
        &schemes,
        &app.jwt,
        &scopes,
    );
    metadata_routes(document, mcp_path, at_root)
}

/// Serves `document` (if any) as the metadata of the MCP endpoint at `mcp_path` (and at the
/// root well-known URL with `at_root`).
pub(crate) fn metadata_routes(
    document: Option<serde_json::Value>,
    mcp_path: &str,
    at_root: bool,
) -> Router {
    let Some(document) = document else {
        return Router::new();
    };
    let document = Arc::new(document);
    // Public metadata, as the card is: hosted assistants read it from their web apps.
    let route = get(
        |State(document): State<Arc<serde_json::Value>>| async move {
            axum::Json(document.as_ref().clone()).into_response()
        },
    );
    let suffixed = format!("{}{mcp_path}", a2a_runtime_core::auth::metadata::WELL_KNOWN);
    let mut router = Router::new().route(&suffixed, route.clone());
    if at_root {
        router = router.route(a2a_runtime_core::auth::metadata::WELL_KNOWN, route);
    }
    router.with_state(document).layer(readable_anywhere())
}

/// The URL of the protected-resource metadata for the MCP endpoint at `mcp_path`.
pub(crate) fn resource_metadata_url(base_url: &str, mcp_path: &str) -> String {
    format!(
        "{}{}{mcp_path}",
        base_url.trim_end_matches('/'),
        a2a_runtime_core::auth::metadata::WELL_KNOWN
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

/// The MCP service and its sessions (2025 revisions), which idle out after `mcp_session_idle`.
fn mcp_service(app: Arc<App>) -> (RmcpService, Arc<LocalSessionManager>) {
    let handler = McpHandler::new(Arc::clone(&app));
    rmcp_service(&app.limits, app.shutdown.clone(), move || {
        handler.for_session()
    })
}

/// An rmcp service whose sessions each get `session()`'s handler, within `limits`, ending at
/// `shutdown`.
pub(crate) fn rmcp_service<H>(
    limits: &a2a_runtime_core::limits::Limits,
    shutdown: CancellationToken,
    session: impl Fn() -> H + Send + Sync + 'static,
) -> (RmcpService<H>, Arc<LocalSessionManager>)
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    // Host and Origin are checked for every route by the browser guard.
    let settings = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(limits.max_body_bytes)
        .with_cancellation_token(shutdown)
        .disable_allowed_hosts();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(limits.mcp_session_idle);
    let sessions = Arc::new(sessions);
    let service =
        StreamableHttpService::new(move || Ok(session()), Arc::clone(&sessions), settings);
    (service, sessions)
}

/// Serves HTTP on `listener` until `shutdown` says stop (see `shutdown.rs` for the phases).
/// `routes` are the application's, `guarded` the authorization server's (behind the browser
/// guard).
pub(crate) async fn serve_http(
    app: Arc<App>,
    config: &ServeConfig,
    routes: Router,
    guarded: Option<Router>,
    listener: tokio::net::TcpListener,
    stop: CancellationToken,
    announce: bool,
) -> Result<(), Error> {
    let bound = bound_config(config, &listener)?;
    let base = bound.base_url();
    let own = self::routes(Arc::clone(&app), &bound, guarded)?;
    let direct = own
        .mcp
        .map(|mcp| (MCP_PATH.to_owned(), DirectMcp::Agent(mcp)));
    let front = Front::new(
        own.router.merge(routes),
        own.guard,
        direct.into_iter().collect(),
    );
    warn_if_open(std::slice::from_ref(&app), &bound, announce);
    if announce {
        eprintln!("agent card:   {base}.well-known/agent-card.json");
        eprintln!("A2A JSON-RPC: {base}");
        eprintln!(
            "A2A HTTP+JSON: {}",
            card::Endpoints::new(&base, &app.rest_prefix).rest
        );
        eprintln!("MCP:          {}{}", base.trim_end_matches('/'), MCP_PATH);
        if bound.console_enabled() {
            eprintln!("console:      {base}console (in a browser)");
        }
    }
    serve_front(&[app], &bound, front, listener, stop).await
}

/// `config` as bound to `listener`: the card must name the port actually bound (it differs
/// from the configured one for `:0`).
pub(crate) fn bound_config(
    config: &ServeConfig,
    listener: &tokio::net::TcpListener,
) -> Result<ServeConfig, Error> {
    Ok(ServeConfig {
        bind: listener.local_addr()?,
        ..config.clone()
    })
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

/// Serves `front` for `apps` on `listener`, bound as `bound`, until `stop` (then shuts down
/// as `shutdown.rs` says).
pub(crate) async fn serve_front(
    apps: &[Arc<App>],
    bound: &ServeConfig,
    front: Front,
    listener: tokio::net::TcpListener,
    stop: CancellationToken,
) -> Result<(), Error> {
    let tls = super::tls::acceptor(&bound.tls)?;
    let in_flight = Arc::new(InFlight::default());
    let router = TrackLayer(Arc::clone(&in_flight)).layer(front);
    tokio::spawn(super::listener::quiet_timers(stop.clone()));
    let metrics = super::observe::serve_apart(apps, bound, stop.clone());
    let serve = super::shutdown::run(apps, &bound.limits, router, listener, tls, stop, in_flight);
    let (metrics, ()) = tokio::join!(metrics, serve);
    super::observe::flush(apps).await;
    metrics
}

pub(crate) async fn serve_stdio(app: Arc<App>) -> Result<(), Error> {
    use rmcp::ServiceExt;

    let max_line = app.limits.max_body_bytes;
    let (transport, writer) =
        a2a_runtime_mcp::stdio::transport(tokio::io::stdin(), tokio::io::stdout(), max_line);
    let service = McpHandler::new(app)
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
