//! One agent's A2A routes: JSON-RPC and HTTP+JSON behind the A2A gate (and CORS, when
//! configured), and its card at the well-known paths.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};

use super::config::ServeConfig;
use super::paths;
use a2a_runtime_a2a::card::{self, CardBody, CardView};
use a2a_runtime_a2a::extensions::Extensions;
use a2a_runtime_a2a::gate::{A2aGateLayer, GateSettings};
use a2a_runtime_a2a::jsonrpc::{Aliases, JsonRpc};
use a2a_runtime_a2a::rest::Tenants;
use a2a_runtime_a2a::{A2aService, PushSupport, Settings};
use a2a_runtime_core::app::App;
use a2a_runtime_types::model::Binding;

/// One agent's routes, before the server adds its own and the browser guard.
pub(crate) struct AgentRoutes {
    /// JSON-RPC at `/` and HTTP+JSON, behind the A2A gate (and CORS, when configured).
    pub(crate) calls: Router,
    /// The JSON-RPC endpoint alone (as at `/` of `calls`), to serve at another path.
    pub(crate) jsonrpc: axum::routing::MethodRouter,
    /// The same endpoint without CORS, to call directly.
    pub(crate) endpoint: JsonRpcEndpoint,
    /// The gRPC service behind its gate, for a host's root to hand requests to by tenant.
    #[cfg(feature = "grpc")]
    pub(crate) grpc: JsonRpcEndpoint,
    /// The card at the well-known paths, readable from any origin.
    pub(crate) card: Router,
    /// The public card, as served.
    pub(crate) public_card: serde_json::Value,
}

/// An agent's JSON-RPC endpoint (its gate and handler) as a service; its gRPC service too.
pub(crate) type JsonRpcEndpoint =
    tower::util::BoxCloneSyncService<axum::extract::Request, Response, std::convert::Infallible>;

/// The A2A routes of `app` reached at `endpoints` (which its card names), with its HTTP+JSON
/// routes taking `tenants`; their Bearer challenges name `resource_metadata`, when it is
/// served.
pub(crate) fn agent_routes(
    app: &Arc<App>,
    config: &ServeConfig,
    endpoints: card::Endpoints,
    tenants: Tenants,
    resource_metadata: Option<Arc<str>>,
) -> AgentRoutes {
    let cards = Cards::of(app, &endpoints);
    let extensions = Arc::new(Extensions::new(app.agent.extensions()));
    let service = service(app, config, cards.extended, Arc::clone(&extensions));
    let jsonrpc = Arc::new(JsonRpc {
        service: Arc::clone(&service),
        aliases: Aliases::default(),
    });
    let max_body = app.limits.max_body_bytes;
    // Every A2A route (`/mcp` takes the same steps in its endpoint) behind one gate; CORS
    // preflights (outside it) need no credentials.
    let gate = |binding: Binding| {
        tower::ServiceBuilder::new()
            .layer(A2aGateLayer(Arc::new(GateSettings {
                security: Arc::clone(&app.security),
                extensions: Arc::clone(&extensions),
                max_body,
                body_time: app.limits.body_time(),
                binding,
                meter: app.dispatcher.meter().clone(),
                resource_metadata: resource_metadata.clone(),
            })))
            .layer(DefaultBodyLimit::max(max_body))
    };
    // The endpoint alone, cheap to clone, for a host's tenant endpoint to call (behind its own
    // CORS layer); the route, for routers.
    let endpoint = JsonRpcEndpoint::new(tower::Layer::layer(
        &gate(Binding::JsonRpc),
        axum::handler::Handler::with_state(a2a_runtime_a2a::jsonrpc::handle, Arc::clone(&jsonrpc)),
    ));
    let mut jsonrpc = post(a2a_runtime_a2a::jsonrpc::handle)
        .with_state(jsonrpc)
        .layer(gate(Binding::JsonRpc));
    // An agent shows a browser its console at its URL, beside JSON-RPC (inside the CORS layer,
    // which answers preflights for the whole route).
    if config.console_enabled() {
        jsonrpc = jsonrpc.get(super::console::at_root);
    }
    // gRPC is HTTP/2 only and never called from a browser: no CORS.
    #[cfg(feature = "grpc")]
    let grpc_handler = post(a2a_runtime_a2a::grpc::handle).with_state(Arc::clone(&service));
    #[cfg(feature = "grpc")]
    let grpc_endpoint = JsonRpcEndpoint::new(
        Router::new()
            .route(a2a_runtime_a2a::grpc::ROUTE, grpc_handler.clone())
            .layer(gate(Binding::Grpc)),
    );
    #[cfg(feature = "grpc")]
    let grpc = Router::new()
        .route(a2a_runtime_a2a::grpc::ROUTE, grpc_handler)
        .layer(gate(Binding::Grpc));
    let mut rest = a2a_runtime_a2a::rest::routes(service, &app.rest_prefix, tenants)
        .layer(gate(Binding::HttpJson));
    if let Some(cors) = super::http::cors(config) {
        jsonrpc = jsonrpc.layer(cors.clone());
        rest = rest.layer(cors);
    }
    let calls = Router::new().route("/", jsonrpc.clone()).merge(rest);
    #[cfg(feature = "grpc")]
    let calls = calls.merge(grpc);
    AgentRoutes {
        calls,
        jsonrpc,
        endpoint,
        #[cfg(feature = "grpc")]
        grpc: grpc_endpoint,
        card: cards.routes,
        public_card: cards.public,
    }
}

/// An agent's cards: the public one as served at the well-known paths (readable from any
/// origin), and the extended one for authenticated callers.
struct Cards {
    routes: Router,
    public: serde_json::Value,
    extended: Option<Arc<serde_json::Value>>,
}

impl Cards {
    fn of(app: &App, endpoints: &card::Endpoints) -> Self {
        let hybrid = |view| {
            let capabilities = card::Capabilities {
                push: app.push.is_some(),
                streaming: app.streaming,
            };
            let registry = app.dispatcher.registry();
            let v1_card = card::build(
                app.agent,
                registry,
                endpoints,
                &app.security,
                view,
                capabilities,
            );
            card::hybrid(&v1_card, endpoints, &app.security)
        };
        let public = hybrid(CardView::Public);
        let extended = app
            .security
            .is_enabled()
            .then(|| Arc::new(hybrid(CardView::Extended)));
        let card_route = get(
            |State(card): State<Arc<CardBody>>, headers: HeaderMap| async move {
                card.respond(&headers)
            },
        );
        // The card is public metadata: any page may read it (a2a-spec.md §8.2).
        let routes = Router::new()
            .route(paths::AGENT_CARDS[0], card_route.clone())
            .route(paths::AGENT_CARDS[1], card_route)
            .with_state(Arc::new(CardBody::new(&public)))
            .layer(super::http::readable_anywhere());
        Self {
            routes,
            public,
            extended,
        }
    }
}

/// The A2A service of `app`, serving `extended` as its extended card.
fn service(
    app: &App,
    config: &ServeConfig,
    extended: Option<Arc<serde_json::Value>>,
    extensions: Arc<Extensions>,
) -> Arc<A2aService> {
    let limits = &app.limits;
    let settings = Settings {
        max_body_bytes: limits.max_body_bytes,
        require_version_header: app.require_version_header,
        streaming: app.streaming,
        sse_keep_alive: limits.sse_keep_alive,
        max_message_parts: limits.max_message_parts,
        max_part_bytes: limits.max_part_bytes,
        max_list_bytes: limits.max_list_bytes,
        extended_card: extended,
        extensions,
    };
    let push = app.push.as_ref().map(|pusher| PushSupport {
        pusher: Arc::clone(pusher),
        max_configs: config.push.max_configs_per_task,
    });
    let (manager, dispatcher) = (Arc::clone(&app.manager), Arc::clone(&app.dispatcher));
    let quotas = Arc::clone(&app.quotas);
    Arc::new(A2aService::new(
        manager,
        dispatcher,
        quotas,
        settings,
        app.shutdown.clone(),
        push,
    ))
}
