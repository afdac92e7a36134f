//! A server's routes, assembled once whatever its agents: each agent's A2A routes, MCP
//! endpoint, card and application routes at its mount point (the root, or `/{id}`); for a
//! host, the tenant-selecting JSON-RPC endpoint, the shared MCP endpoint, the catalog and a
//! not-found naming the agents at the root; then what every server has (console, health,
//! metrics and usage, the authorization server), all behind one browser guard.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::http::Uri;
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::SessionStore;
use tokio_util::sync::CancellationToken;

use super::agent_routes::agent_routes;
use super::catalog::{self, CatalogEntry};
use super::config::ServeConfig;
use super::direct::Directed;
use super::discovery::{Discovery, Served};
use super::http::{browser_guard, cors, healthz_route, readable_anywhere};
use super::mcp::{Agents, Mcp};
use super::mounts::{Hosting, Mount, Mounted, Mounts};
use super::oauth::Deployed;
use super::paths;
use super::resource_metadata::ResourceMetadata;
use super::tenants::{AgentCalls, TenantCalls, tenant_endpoint, unknown_agent};
use super::transport::{BrowserGuard, GuardLayer};
use a2a_runtime_a2a::bindings::{self, ROOT_CALLS};
use a2a_runtime_a2a::rest::Tenants;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::{AudienceRule, Security};
use a2a_runtime_core::error::Error;

/// A server's routes, and the MCP endpoints its front may answer without them.
pub(crate) struct Assembled {
    pub(crate) router: Router,
    pub(crate) guard: Arc<BrowserGuard>,
    /// The endpoints answered without the router, by path.
    pub(crate) direct: Vec<(String, Directed)>,
    /// The discovery documents, by path, as served.
    pub(crate) documents: Vec<(String, Arc<Served>)>,
}

/// What a server being served gives its routes beyond its settings.
#[derive(Default)]
pub(crate) struct Serving {
    /// Cancelled once the server drains: `/healthz` fails from then on.
    pub(crate) draining: CancellationToken,
    /// Where MCP sessions are kept for other replicas (and restarts) to continue them.
    pub(crate) mcp_sessions: Option<Arc<dyn SessionStore>>,
}

/// The routes of the server `config` describes, serving `mounts` as `apps` (one per agent, in
/// the order added; a host's catalog is filled), with the routes of `oauth` (an authorization
/// server) behind the same browser guard.
pub(crate) fn assemble(
    mounts: &Mounts,
    apps: &[Arc<App>],
    config: &ServeConfig,
    oauth: Option<&Deployed>,
    serving: &Serving,
) -> Result<Assembled, Error> {
    config.validate()?;
    let mut assembly = Assembly {
        router: Router::new(),
        direct: Vec::new(),
        entries: Vec::new(),
        calls: HashMap::new(),
        config,
        mcp_sessions: serving.mcp_sessions.clone(),
        base: config.base_url(),
        discovery: Discovery::new(&config.base_url()),
    };
    for (mounted, app) in mounts.agents.iter().zip(apps) {
        assembly.agent(mounts, mounted, app)?;
    }
    if let Some(hosting) = &mounts.hosting {
        assembly.host_root(mounts, hosting, apps, oauth)?;
    }
    assembly.discovery.publish();
    let documents = assembly.discovery.bundle().to_vec();
    let (observed, observed_paths) = super::observe::routes(apps);
    let host = mounts.hosting.is_some();
    let console = super::console::routes(config, host, oauth.is_some(), &observed_paths);
    let managers = apps.iter().map(|app| Arc::clone(&app.manager)).collect();
    let guard = Arc::new(browser_guard(config, &assembly.base));
    let router = assembly
        .router
        .merge(console)
        .route(
            paths::HEALTHZ,
            healthz_route(managers, mounts.defined_agents(), serving.draining.clone()),
        )
        .merge(observed)
        .merge(oauth.map(Deployed::router).unwrap_or_default())
        .layer(GuardLayer(Arc::clone(&guard)));
    Ok(Assembled {
        router,
        guard,
        direct: assembly.direct,
        documents,
    })
}

/// The routes gathered so far.
struct Assembly<'a> {
    router: Router,
    direct: Vec<(String, Directed)>,
    /// A host's catalog.
    entries: Vec<CatalogEntry>,
    /// Each hosted agent's endpoints, for the root to hand requests to.
    calls: HashMap<String, AgentCalls>,
    config: &'a ServeConfig,
    /// Where MCP sessions are kept, when other replicas may continue them.
    mcp_sessions: Option<Arc<dyn SessionStore>>,
    base: String,
    discovery: Discovery,
}

impl Assembly<'_> {
    /// `app`'s routes at its mount point: at the root they are the server's; under `/{id}`
    /// the agent is also a tenant of the root and an entry of the catalog.
    fn agent(&mut self, mounts: &Mounts, mounted: &Mounted, app: &Arc<App>) -> Result<(), Error> {
        let config = self.config;
        let mount = &mounted.mount;
        let at = mount.path();
        let endpoints = mount.endpoints(&self.base, &app.rest_prefix);
        let tenants = match mount {
            Mount::Root => Tenants::Any,
            Mount::At(_) => Tenants::Mounted,
        };
        let endpoints = bindings::served_at(endpoints, &config.grpc_url());
        // The agent's URL as a protected resource: at the root well-known URL for the root
        // agent, below it for a hosted one (RFC 9728 §3.1 inserts the resource's path).
        let metadata = ResourceMetadata::new(
            &app.security,
            &[app],
            app.dispatcher.about().name(),
            &self.base,
            &mount.url_path(),
        );
        let metadata_url = metadata.as_ref().map(|m| Arc::from(m.url()));
        let agent = agent_routes(app, config, endpoints.clone(), tenants, metadata_url);
        let documents = self.discovery.agent(app, &at, &endpoints);
        let card_path = format!("{at}{}", paths::AGENT_CARDS[0]);
        self.discovery.card(card_path, &agent.public_card);
        self.router = std::mem::take(&mut self.router)
            .merge(metadata.map(ResourceMetadata::routes).unwrap_or_default());
        let mcp_path = format!("{at}{}", paths::MCP);
        let security = Arc::clone(&app.security);
        let agents = (&Agents::One(app), self.discovery.skill_shelf_at(&at));
        let sessions = self.mcp_sessions.clone();
        let mcp = Mcp::new(&mcp_path, agents, security, (&app.limits, sessions), config)?;
        let (mcp, metadata, direct) = mcp.mounted(paths::MCP);
        self.direct.extend(direct);
        // The agent's URL (`/`, or `/{id}/` on a host).
        if let Some(jsonrpc) = agent.direct_jsonrpc {
            self.direct
                .push((format!("{at}/"), Directed::JsonRpc(jsonrpc)));
        }
        let own = agent
            .calls
            .merge(mcp)
            .merge(agent.card.clone())
            .merge(documents)
            .merge(mounted.agent.routes.clone());
        let router = std::mem::take(&mut self.router).merge(metadata);
        let Mount::At(id) = mount else {
            self.router = router.merge(own);
            return Ok(());
        };
        let primary = mounts.primary_id() == Some(id.as_str());
        if primary {
            self.discovery
                .card(paths::AGENT_CARDS[0].to_owned(), &agent.public_card);
        }
        let own = match config.console_enabled() {
            true => own.merge(super::console::page()),
            false => own,
        };
        // The agent's JSON-RPC URL ends in `/`, which nesting does not route.
        self.router = router
            .route(&format!("{at}/"), agent.jsonrpc)
            .nest(&at, own)
            .merge(if primary { agent.card } else { Router::new() });
        self.entries.push(CatalogEntry {
            id: id.clone(),
            card_url: format!("{}{}", endpoints.jsonrpc, &paths::AGENT_CARDS[0][1..]),
            url: endpoints.jsonrpc,
            primary,
            card: agent.public_card,
        });
        self.calls.insert(id.clone(), agent.endpoints);
        Ok(())
    }

    /// A host's root: each binding's root call reaching the agent a request's `tenant` names
    /// (JSON-RPC at `/`), the shared MCP endpoint, the catalog, and a not-found naming the
    /// agents.
    fn host_root(
        &mut self,
        mounts: &Mounts,
        hosting: &Hosting,
        apps: &[Arc<App>],
        oauth: Option<&Deployed>,
    ) -> Result<(), Error> {
        let config = self.config;
        let ids: Arc<[String]> = mounts.ids().into_iter().map(str::to_owned).collect();
        let known = Arc::new(ids.join(", "));
        let tenants = Arc::new(TenantCalls {
            calls: std::mem::take(&mut self.calls),
            // A built host has agents, so a primary one (the first unless named).
            primary: mounts.primary_id().unwrap_or_default().to_owned(),
            known: Arc::clone(&known),
            max_body: config.limits.max_body_bytes,
            body_time: config.limits.body_time(),
        });
        let root_calls = root_calls(config, &tenants);
        if hosting.shared_mcp {
            self.shared_mcp(mounts, apps, oauth)?;
        }
        // The host's URL, which reaches every agent by tenant, as a protected resource.
        let security = Security::union(apps.iter().map(|app| &*app.security));
        let all: Vec<&Arc<App>> = apps.iter().collect();
        let metadata = ResourceMetadata::new(&security, &all, &hosting.name, &self.base, "");
        let metadata = metadata.map(ResourceMetadata::routes).unwrap_or_default();
        let shared = hosting.shared_mcp.then(|| mounts.shared_description());
        let shared = apps.first().zip(shared.as_deref());
        let mut listed = mounts.ids();
        // The primary agent first: the template's default.
        if let Some(primary) = mounts.primary_id() {
            listed.sort_by_key(|id| *id != primary);
        }
        let documents = self.discovery.host(&hosting.name, &listed, shared);
        let entries = hosting.catalog.fill(std::mem::take(&mut self.entries));
        let remotes: Arc<[_]> = mounts.defined_agents().into();
        let document = Arc::new(catalog::document(&entries, &remotes));
        let catalog = get(move || {
            // Built once, unless remotes say how they are now.
            let document = match remotes.is_empty() {
                true => Arc::clone(&document),
                false => Arc::new(catalog::document(&entries, &remotes)),
            };
            async move { axum::Json(document.as_ref().clone()) }
        });
        let catalog = Router::new()
            .route(paths::AGENTS, catalog)
            .layer(readable_anywhere());
        self.router = std::mem::take(&mut self.router)
            .merge(root_calls)
            .merge(catalog)
            .merge(documents)
            .merge(metadata)
            .fallback(move |uri: Uri| unknown_agent(uri, Arc::clone(&ids), Arc::clone(&known)));
        Ok(())
    }

    /// A host's `/mcp`, for every agent: authenticated with every agent's schemes, it takes the
    /// authorization server's tokens for itself (or the root) only.
    fn shared_mcp(
        &mut self,
        mounts: &Mounts,
        apps: &[Arc<App>],
        oauth: Option<&Deployed>,
    ) -> Result<(), Error> {
        let mut security = Security::union(apps.iter().map(|app| &*app.security));
        if let Some(deployed) = oauth {
            security = security.restricted(AudienceRule {
                issuer: deployed.issuer(),
                audiences: mounts
                    .shared_resource(&self.base)
                    .into_iter()
                    .chain([self.base.clone()])
                    .collect(),
            });
        }
        let description = mounts.shared_description();
        let agents = mounts.shared_agents(apps, &description);
        let limits = &self.config.limits;
        let agents = (&agents, self.discovery.all_skills_shelf());
        let limits = (limits, self.mcp_sessions.clone());
        let mcp = Mcp::new(paths::MCP, agents, Arc::new(security), limits, self.config)?;
        let (route, metadata, direct) = mcp.mounted(paths::MCP);
        self.router = std::mem::take(&mut self.router)
            .merge(route)
            .merge(metadata);
        self.direct.extend(direct);
        Ok(())
    }
}

/// A host's root calls: each binding of `ROOT_CALLS` at its route, reaching the agent a
/// request's tenant names. A browser at the host's URL gets the console (its agent picker),
/// as at an agent's.
fn root_calls(config: &ServeConfig, tenants: &Arc<TenantCalls>) -> Router {
    let mut router = Router::new();
    for call in ROOT_CALLS {
        let mut route = tenant_endpoint(Arc::clone(tenants), call);
        if call.route == "/" && config.console_enabled() {
            route = route.get(super::console::at_root);
        }
        let mut routes = Router::new().route(call.route, route);
        if call.browsers
            && let Some(cors) = cors(config)
        {
            routes = routes.layer(cors);
        }
        router = router.merge(routes);
    }
    router
}
