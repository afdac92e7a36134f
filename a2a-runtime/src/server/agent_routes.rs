//! One agent's A2A routes: every binding of the table in `a2a_runtime_a2a::bindings` behind
//! the A2A gate (and CORS, when configured), and its card at the well-known paths.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;

use super::config::ServeConfig;
use super::direct::{Answer, answer};
use super::paths;
use a2a_runtime_a2a::bindings::{self, ROOT_CALLS};
use a2a_runtime_a2a::card::{self, CardView};
use a2a_runtime_a2a::card_cell::LiveCards;
use a2a_runtime_a2a::extensions::Extensions;
use a2a_runtime_a2a::gate::{A2aGateLayer, GateSettings};
use a2a_runtime_a2a::jsonrpc::{Aliases, JsonRpc};
use a2a_runtime_a2a::rest::Tenants;
use a2a_runtime_a2a::{A2aService, PushSupport, Settings};
use a2a_runtime_core::app::App;
use a2a_runtime_types::model::Binding;

/// One agent's routes, before the server adds its own and the browser guard.
pub(crate) struct AgentRoutes {
    /// Every binding's routes below the agent's URL (JSON-RPC at `/`), each behind the A2A
    /// gate (and CORS, when configured and browsers call it).
    pub(crate) calls: Router,
    /// The JSON-RPC endpoint alone (as at `/` of `calls`), to serve at another path.
    pub(crate) jsonrpc: axum::routing::MethodRouter,
    /// Its `POST`s as the server's front answers them without the router: the same gate, body
    /// limit and handler; `None` when CORS is configured (its layer answers through the router).
    pub(crate) direct_jsonrpc: Option<Answer>,
    /// The endpoints a host's root hands requests to by tenant, one per binding of
    /// [`ROOT_CALLS`](a2a_runtime_a2a::bindings::ROOT_CALLS), each behind the gate, without
    /// CORS (the root has its own).
    pub(crate) endpoints: HashMap<Binding, BindingEndpoint>,
    /// The card at the well-known paths, readable from any origin.
    pub(crate) card: Router,
    /// The public card, as served.
    pub(crate) public_card: serde_json::Value,
}

/// One binding of an agent (its gate and routes) as a service.
pub(crate) type BindingEndpoint =
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
    let extensions = Arc::new(Extensions::new(app.dispatcher.about().extensions()));
    let service = service(
        app,
        config,
        Arc::clone(&cards.live),
        Arc::clone(&extensions),
    );
    let jsonrpc = Arc::new(JsonRpc {
        service: Arc::clone(&service),
        aliases: Aliases::default(),
    });
    let jsonrpc_service = a2a_runtime_a2a::jsonrpc::service(Arc::clone(&jsonrpc));
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
    let bound = bindings::of(&service, jsonrpc, &app.rest_prefix, tenants);
    let cors = super::http::cors(config);
    let direct_jsonrpc = cors
        .is_none()
        .then(|| answer(gate(Binding::JsonRpc).service(jsonrpc_service)));
    let mut endpoints = HashMap::new();
    let mut jsonrpc = bound.jsonrpc.layer(gate(Binding::JsonRpc));
    // The endpoint alone, cheap to clone, for a host's root to call (behind its own CORS).
    endpoints.insert(Binding::JsonRpc, BindingEndpoint::new(jsonrpc.clone()));
    // An agent shows a browser its console at its URL, beside JSON-RPC (inside the CORS layer,
    // which answers preflights for the whole route).
    if config.console_enabled() {
        jsonrpc = jsonrpc.get(super::console::at_root);
    }
    if let Some(cors) = &cors {
        jsonrpc = jsonrpc.layer(cors.clone());
    }
    let mut calls = Router::new().route("/", jsonrpc.clone());
    for binding in bound.others {
        let routes = binding.routes.layer(gate(binding.binding));
        if ROOT_CALLS
            .iter()
            .any(|root| root.binding == binding.binding)
        {
            endpoints.insert(binding.binding, BindingEndpoint::new(routes.clone()));
        }
        calls = calls.merge(match (&cors, binding.browsers) {
            (Some(cors), true) => routes.layer(cors.clone()),
            _ => routes,
        });
    }
    AgentRoutes {
        calls,
        jsonrpc,
        direct_jsonrpc,
        endpoints,
        card: cards.routes,
        public_card: cards.public,
    }
}

/// An agent's cards: the public one as served at the well-known paths (readable from any
/// origin), and the extended one for authenticated callers; for an agent defined at run time,
/// built again whenever its definition changes.
struct Cards {
    routes: Router,
    public: serde_json::Value,
    live: Arc<LiveCards>,
}

impl Cards {
    fn of(app: &Arc<App>, endpoints: &card::Endpoints) -> Self {
        let (public, extended) = built(app, endpoints);
        let live = Arc::new(LiveCards::new(public.clone(), extended));
        // A changing agent's cards follow it (inside a runtime: one built outside has no
        // source followed either, see `AgentSettings::build`).
        let runtime = tokio::runtime::Handle::try_current().ok();
        if let (Some(mut replaced), Some(runtime)) =
            (app.dispatcher.registry_replacements(), runtime)
        {
            let (app, endpoints, live) =
                (Arc::downgrade(app), endpoints.clone(), Arc::clone(&live));
            // Ends with the dispatcher, whose sender it watches.
            runtime.spawn(async move {
                while replaced.changed().await.is_ok() {
                    let Some(app) = app.upgrade() else { return };
                    let (public, extended) = built(&app, &endpoints);
                    live.replace(public, extended);
                }
            });
        }
        let card_route = get(
            |State(cards): State<Arc<LiveCards>>, headers: HeaderMap| async move {
                cards.current().public_body.respond(&headers)
            },
        );
        // The card is public metadata: any page may read it (a2a-spec.md §8.2).
        let routes = Router::new()
            .route(paths::AGENT_CARDS[0], card_route.clone())
            .route(paths::AGENT_CARDS[1], card_route)
            .with_state(Arc::clone(&live))
            .layer(super::http::readable_anywhere());
        Self {
            routes,
            public,
            live,
        }
    }
}

/// `app`'s public card and, when it has a scheme to require, its extended card, as they are now.
fn built(app: &App, endpoints: &card::Endpoints) -> (serde_json::Value, Option<serde_json::Value>) {
    let hybrid = |view| {
        let capabilities = card::Capabilities {
            push: app.push.is_some(),
            streaming: app.streaming,
        };
        let registry = app.dispatcher.registry();
        let v1_card = card::build(
            &app.dispatcher.about(),
            &registry,
            endpoints,
            &app.security,
            view,
            capabilities,
        );
        card::hybrid(&v1_card, endpoints, &app.security)
    };
    let extended = app
        .security
        .is_enabled()
        .then(|| hybrid(CardView::Extended));
    (hybrid(CardView::Public), extended)
}

/// The A2A service of `app`, serving `cards`' extended card.
fn service(
    app: &App,
    config: &ServeConfig,
    cards: Arc<LiveCards>,
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
        cards,
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
