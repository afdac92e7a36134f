//! The A2A bindings this build serves, as one table of values: for an agent's service, each
//! binding's routes below the agent's URL; for a host's root, how a request of each binding
//! names the agent it is for; and what the card and the server's own ports need of each.
//!
//! The gRPC rows are the only place this crate's `grpc` feature reaches the server. Adding a
//! binding is its modules in this crate (and in `types` and `client`), a row in [`of`] (and in
//! [`ROOT_CALLS`] when a host's root reaches agents over it), and nothing in the server.

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use axum::routing::{MethodRouter, post};

use crate::card::Endpoints;
use crate::jsonrpc::JsonRpc;
use crate::rest::Tenants;
use crate::{A2aError, A2aService};
use a2a_runtime_types::model::Binding;

/// One agent's bindings, before the server puts each behind its gate.
pub struct AgentBindings {
    /// JSON-RPC at the agent's URL itself (`POST /`): the URL its card names first, where a
    /// browser is shown the console too.
    pub jsonrpc: MethodRouter,
    /// Every other binding's routes below the agent's URL.
    pub others: Vec<BindingRoutes>,
}

/// One binding's routes below an agent's URL.
pub struct BindingRoutes {
    /// Which binding (the gate meters and refuses in its terms).
    pub binding: Binding,
    /// Its routes.
    pub routes: Router,
    /// Whether browsers call it, so the server's CORS policy applies.
    pub browsers: bool,
}

/// The bindings of the agent `service` serves, `jsonrpc` its JSON-RPC endpoint, with the
/// HTTP+JSON routes under `rest_prefix` taking `tenants`.
pub fn of(
    service: &Arc<A2aService>,
    jsonrpc: Arc<JsonRpc>,
    rest_prefix: &str,
    tenants: Tenants,
) -> AgentBindings {
    let others = vec![
        BindingRoutes {
            binding: Binding::HttpJson,
            routes: crate::rest::routes(Arc::clone(service), rest_prefix, tenants),
            browsers: true,
        },
        // HTTP/2 only, never called from a browser.
        #[cfg(feature = "grpc")]
        BindingRoutes {
            binding: Binding::Grpc,
            routes: Router::new().route(
                crate::grpc::ROUTE,
                post(crate::grpc::handle).with_state(Arc::clone(service)),
            ),
            browsers: false,
        },
    ];
    AgentBindings {
        jsonrpc: post(crate::jsonrpc::handle).with_state(jsonrpc),
        others,
    }
}

/// How a host's root hands a request of one binding to the agent it names (the binding's
/// requests name their tenant in the body, so the root reads it first).
pub struct RootCall {
    /// Which binding.
    pub binding: Binding,
    /// The route at the host's root.
    pub route: &'static str,
    /// Whether browsers call it, so the server's CORS policy applies.
    pub browsers: bool,
    /// The tenant a request names, from its path and body (`None`: the primary agent), or the
    /// response to a body that is no request of the binding.
    pub tenant: TenantOf,
    /// The response refusing a request (its body as read) with `error`.
    pub refuse: fn(&[u8], &A2aError) -> Response,
}

/// Finds the tenant a request names from its path and body: `None` names none, an error is
/// the response to a body that is no request of the binding.
pub type TenantOf = fn(&str, &[u8]) -> Result<Option<String>, Box<Response>>;

/// The bindings a host's root reaches its agents over, by tenant.
pub const ROOT_CALLS: &[RootCall] = &[
    RootCall {
        binding: Binding::JsonRpc,
        route: "/",
        browsers: true,
        tenant: jsonrpc_tenant,
        refuse: crate::jsonrpc::refuse,
    },
    #[cfg(feature = "grpc")]
    RootCall {
        binding: Binding::Grpc,
        route: crate::grpc::ROUTE,
        browsers: false,
        tenant: grpc_tenant,
        refuse: grpc_refuse,
    },
];

fn jsonrpc_tenant(_path: &str, body: &[u8]) -> Result<Option<String>, Box<Response>> {
    crate::jsonrpc::tenant_of(body)
}

#[cfg(feature = "grpc")]
fn grpc_tenant(path: &str, body: &[u8]) -> Result<Option<String>, Box<Response>> {
    let method = path.rsplit('/').next().unwrap_or_default();
    Ok(crate::grpc::tenant_of(method, body))
}

#[cfg(feature = "grpc")]
fn grpc_refuse(_body: &[u8], error: &A2aError) -> Response {
    crate::grpc::refusal(error)
}

/// Whether this build serves `binding`.
pub fn serves(binding: Binding) -> bool {
    matches!(binding, Binding::JsonRpc | Binding::HttpJson)
        || (binding == Binding::Grpc && cfg!(feature = "grpc"))
}

/// What a port of `binding`'s own answers first (each request of another kind refused), for
/// the bindings a server may give a port of their own (`--grpc-bind`).
pub fn own_port(binding: Binding) -> Option<fn(&Request) -> Option<Response>> {
    match binding {
        #[cfg(feature = "grpc")]
        Binding::Grpc => Some(crate::grpc::refuse_other),
        _ => None,
    }
}

/// `endpoints` with every binding this build serves, gRPC at `grpc_url`'s authority (the
/// server's URL, or its own port's).
pub fn served_at(endpoints: Endpoints, grpc_url: &str) -> Endpoints {
    if serves(Binding::Grpc) {
        endpoints.with_grpc(grpc_url)
    } else {
        endpoints
    }
}
