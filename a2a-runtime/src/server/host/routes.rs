//! A host's routes: each agent's under `/{id}`, the tenant-selecting JSON-RPC endpoint at the
//! root, the catalog, the primary agent's card, health, the metadata of each MCP resource, and a
//! not-found naming the agents for any other first segment.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody as _};
use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post_service};
use futures::future::BoxFuture;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use tower::Service;
use tower::ServiceExt as _;

use super::Host;
use super::catalog::{self, CatalogEntry};
use crate::server::front::DirectMcp;
use crate::server::guard::{BrowserGuard, GuardLayer};
use crate::server::http::JsonRpcEndpoint;
use crate::server::oauth::Deployed;
use crate::server::{Error, ServeConfig, http};
use a2a_runtime_a2a::A2aError;
use a2a_runtime_a2a::card::Endpoints;
use a2a_runtime_a2a::rest::Tenants;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::AudienceRule;
use a2a_runtime_core::body::{BodyTime, BodyTooSlow, BoxError, TimedBody, declared_over};

/// A host's routes, and the MCP endpoints its front may answer without them.
pub(super) struct HostRoutes {
    pub(super) router: Router,
    pub(super) guard: Arc<BrowserGuard>,
    pub(super) direct: Vec<(String, DirectMcp)>,
}

/// The host's routes for `apps` (one per agent, in the order added), served as `config`
/// says; fills the host's catalog. The routes of `oauth` (an authorization server) sit behind
/// the same browser guard.
pub(super) fn routes(
    host: &Host,
    apps: &[Arc<App>],
    config: &ServeConfig,
    oauth: Option<&Deployed>,
) -> Result<HostRoutes, Error> {
    config.validate()?;
    let server_url = config.base_url();
    let primary = host.primary_id();
    let mut root = Router::new();
    let mut calls = HashMap::new();
    let mut entries = Vec::new();
    let mut direct = Vec::new();
    for (hosted, app) in host.agents.iter().zip(apps) {
        let id = hosted.id.as_str();
        let endpoints = Endpoints::hosted(&server_url, id);
        let mcp_path = format!("/{id}{}", http::MCP_PATH);
        let agent = http::agent_routes(app, config, endpoints.clone(), Tenants::Mounted, &mcp_path);
        entries.push(CatalogEntry {
            id: id.to_owned(),
            card_url: format!("{}.well-known/agent-card.json", endpoints.jsonrpc),
            url: endpoints.jsonrpc,
            primary: primary == Some(id),
            card: agent.public_card,
        });
        if primary == Some(id) {
            root = root.merge(agent.card.clone());
        }
        calls.insert(id.to_owned(), agent.endpoint.clone());
        let (mcp, endpoint) = agent.mcp.mounted(http::MCP_PATH);
        direct.extend(endpoint.map(|endpoint| (mcp_path.clone(), DirectMcp::Agent(endpoint))));
        let mut own = agent
            .calls
            .merge(mcp)
            .merge(agent.card)
            .merge(hosted.server.routes.clone());
        if config.console_enabled() {
            own = own.merge(crate::server::console::page());
        }
        // The agent's JSON-RPC URL ends in `/`, which nesting does not route.
        root = root
            .route(&format!("/{id}/"), agent.jsonrpc)
            .nest(&format!("/{id}"), own)
            .merge(http::protected_resource_routes(
                app,
                &server_url,
                &mcp_path,
                false,
            ));
    }
    let entries = host.catalog.fill(entries);
    let ids: Arc<[String]> = host.ids().into_iter().map(str::to_owned).collect();
    let known = Arc::new(ids.join(", "));
    let tenants = Arc::new(TenantCalls {
        calls,
        // A built host has agents, so a primary one (the first unless named).
        primary: primary.unwrap_or_default().to_owned(),
        known: Arc::clone(&known),
        max_body: config.limits.max_body_bytes,
        body_time: config.limits.body_time(),
    });
    let mut root_call = post_service(TenantEndpoint(tenants));
    // A browser at the host's URL gets the console (its agent picker), as at an agent's.
    if config.console_enabled() {
        root_call = root_call.get(crate::server::console::at_root);
    }
    let mut root_call = Router::new().route("/", root_call);
    if let Some(cors) = http::cors(config) {
        root_call = root_call.layer(cors);
    }
    if host.shared_mcp {
        // The shared endpoint takes the authorization server's tokens for itself (or the root)
        // only, though it authenticates with every agent's verifiers.
        let rule = oauth.map(|deployed| AudienceRule {
            issuer: deployed.issuer(),
            audiences: vec![
                format!("{}{}", server_url.trim_end_matches('/'), http::MCP_PATH),
                server_url.clone(),
            ],
        });
        let (shared, endpoint) = super::shared_mcp::routes(host, apps, config, rule)?;
        root = root.merge(shared);
        let path = http::MCP_PATH.to_owned();
        direct.extend(endpoint.map(|endpoint| (path, DirectMcp::Shared(endpoint))));
    }
    let (observed, paths) = crate::server::observe::routes(apps, config);
    let console = crate::server::console::routes(config, true, oauth.is_some(), &paths);
    let document = Arc::new(catalog::document(&entries));
    let managers = apps.iter().map(|app| Arc::clone(&app.manager)).collect();
    let guard = Arc::new(BrowserGuard::new(config, &server_url));
    let router = root
        .merge(root_call)
        .merge(
            Router::new()
                .route(
                    "/agents",
                    get(move || {
                        let document = Arc::clone(&document);
                        async move { axum::Json(document.as_ref().clone()) }
                    }),
                )
                .layer(http::readable_anywhere()),
        )
        .merge(console)
        .route("/healthz", http::healthz_route(managers))
        .merge(observed)
        .merge(oauth.map(Deployed::router).unwrap_or_default())
        .fallback(move |uri: Uri| unknown_agent(uri, Arc::clone(&ids), Arc::clone(&known)))
        .layer(GuardLayer(Arc::clone(&guard)));
    Ok(HostRoutes {
        router,
        guard,
        direct,
    })
}

/// What the root JSON-RPC endpoint selects among: each agent's JSON-RPC endpoint (its gate and
/// handler), by id.
struct TenantCalls {
    calls: HashMap<String, JsonRpcEndpoint>,
    primary: String,
    /// The agents' ids, for errors.
    known: Arc<String>,
    max_body: usize,
    body_time: BodyTime,
}

/// `POST /`: the JSON-RPC request goes to the agent its `tenant` names (the primary agent when
/// it names none). A service of its own rather than a handler: it reads the request itself.
#[derive(Clone)]
struct TenantEndpoint(Arc<TenantCalls>);

impl Service<Request> for TenantEndpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let tenants = Arc::clone(&self.0);
        Box::pin(async move { Ok(tenant_call(tenants, request).await) })
    }
}

/// Reads the body first, within the server's size and time limits (which agent's credentials
/// to check depends on it), then hands the request to the agent it names.
async fn tenant_call(tenants: Arc<TenantCalls>, request: Request) -> Response {
    if declared_over(request.headers(), tenants.max_body) {
        let limit = tenants.max_body;
        return a2a_runtime_a2a::refusal(&A2aError::PayloadTooLarge { limit }, true);
    }
    let (parts, body) = request.into_parts();
    let body = match read(body, tenants.max_body, tenants.body_time).await {
        Ok(body) => body,
        Err(error) => {
            let error = unread(&*error, tenants.max_body);
            return a2a_runtime_a2a::refusal(&error, true);
        }
    };
    let tenant = match a2a_runtime_a2a::jsonrpc::tenant_of(&body) {
        Ok(tenant) => tenant,
        Err(response) => return *response,
    };
    let id = tenant.unwrap_or_else(|| tenants.primary.clone());
    let Some(calls) = tenants.calls.get(&id) else {
        let error = A2aError::unknown_tenant(&id, tenants.known.to_string());
        return a2a_runtime_a2a::jsonrpc::refuse(&body, &error);
    };
    let request = Request::from_parts(parts, Body::from(body));
    match calls.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The whole of `body`, at most `limit` bytes, within `time`. A request's body usually comes in
/// one frame, which is taken as it is; a longer one is gathered.
async fn read(body: Body, limit: usize, time: BodyTime) -> Result<Bytes, BoxError> {
    let body = Limited::new(TimedBody::new(body, time), limit);
    let mut body = std::pin::pin!(body);
    let first = match body.frame().await.transpose()? {
        Some(frame) => frame.into_data().unwrap_or_default(),
        None => return Ok(Bytes::new()),
    };
    if body.is_end_stream() {
        return Ok(first);
    }
    let rest = body.as_mut().collect().await?.to_bytes();
    let mut whole = Vec::with_capacity(first.len() + rest.len());
    whole.extend_from_slice(&first);
    whole.extend_from_slice(&rest);
    Ok(Bytes::from(whole))
}

/// Why a body could not be read: too large, too slow, or broken off.
fn unread(error: &(dyn std::error::Error + 'static), limit: usize) -> A2aError {
    if error.is::<LengthLimitError>() {
        return A2aError::PayloadTooLarge { limit };
    }
    match BodyTooSlow::of(error) {
        Some(slow) => A2aError::BodyTooSlow(slow.to_string()),
        None => A2aError::InvalidRequest(format!("the request body could not be read: {error}")),
    }
}

/// A path no route takes: when its first segment is not an agent, a not-found naming the
/// agents (HTTP+JSON's error body); any other path is a plain 404.
async fn unknown_agent(uri: Uri, ids: Arc<[String]>, known: Arc<String>) -> Response {
    let first = uri.path().trim_start_matches('/').split('/').next();
    match first.filter(|segment| !segment.is_empty()) {
        Some(segment) if !ids.iter().any(|id| id == segment) => {
            a2a_runtime_a2a::rest::error_response(&A2aError::unknown_tenant(
                segment,
                known.to_string(),
            ))
        }
        _ => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}
