//! The discovery documents clients, registries and crawlers read, generated from the same
//! definitions as the agent card (name, description, version, provider, skills, schemes,
//! endpoints): for every agent its MCP server card and MCP Registry entry (`/mcp/server-card`,
//! `/mcp/server.json`), its Agent Skills `SKILL.md` and index; for the server the AI Catalog and
//! the MCP catalog listing every agent. Built with the routes, and again whenever an agent
//! defined at run time changes (`live`); served readable from any origin with strong ETags;
//! `--print-manifests` and `a2a manifest` write the same bytes.

mod catalogs;
mod live;
mod names;
mod sample;
mod served;
mod server_card;
mod skill_md;

use std::sync::Arc;

use axum::Router;

use super::mounts::Mounts;
use a2a_runtime_a2a::card::Endpoints;
use a2a_runtime_core::app::App;
use a2a_runtime_mcp::skills_ext::{SkillDocument, SkillShelf};
use catalogs::{Listed, SharedEndpoint};
use live::{Recipe, Shelved, Step};
pub(crate) use served::Served;
use served::{AI_CATALOG, Documents, JSON, MARKDOWN, SERVER_CARD};
use server_card::{Identity, Remote};

/// Where the server card is, below an MCP endpoint.
const SERVER_CARD_PATH: &str = crate::server::paths::SERVER_CARD;
/// Where the MCP Registry entry is, below an MCP endpoint.
const SERVER_JSON_PATH: &str = crate::server::paths::SERVER_JSON;
/// The AI Catalog.
const AI_CATALOG_PATH: &str = crate::server::paths::AI_CATALOG;
/// The MCP catalog.
const MCP_CATALOG_PATH: &str = crate::server::paths::MCP_CATALOG;
/// The Agent Skills folder.
const SKILLS_PATH: &str = crate::server::paths::AGENT_SKILLS;

/// Where one agent is reached, as its documents give it.
#[derive(Debug, Clone)]
pub(crate) struct Urls {
    pub(crate) card: String,
    pub(crate) jsonrpc: String,
    pub(crate) rest: String,
    pub(crate) grpc: Option<String>,
    pub(crate) mcp: String,
}

/// The documents of a server, gathered agent by agent as its routes are built.
#[derive(Debug)]
pub(crate) struct Discovery {
    /// The server's URL, without the final `/`.
    origin: String,
    listed: Vec<Listed>,
    /// Every document by its path from the server's root, for `--print-manifests`.
    bundle: Vec<(String, Arc<Served>)>,
    /// Each agent's `SKILL.md` for MCP's skills extension, by mount point.
    skills: Vec<(String, SkillDocument)>,
    /// How the documents were built, to build them again, and where they are served from.
    recipe: Recipe,
}

impl Discovery {
    /// No documents yet, for a server at `base_url`.
    pub(crate) fn new(base_url: &str) -> Self {
        let origin = base_url.trim_end_matches('/').to_owned();
        Self {
            recipe: Recipe {
                origin: origin.clone(),
                steps: Vec::new(),
                live: Arc::default(),
                shelves: Vec::new(),
            },
            origin,
            listed: Vec::new(),
            bundle: Vec::new(),
            skills: Vec::new(),
        }
    }

    /// The documents of every agent of `mounts` (served as `apps`) at `base_url`, without
    /// routes: what a server serving MCP over stdio offers through the skills extension.
    pub(crate) fn of_agents(mounts: &Mounts, apps: &[Arc<App>], base_url: &str) -> Self {
        let mut discovery = Self::new(base_url);
        for (mounted, app) in mounts.agents.iter().zip(apps) {
            let endpoints = mounted.mount.endpoints(base_url, &app.rest_prefix);
            let _ = discovery.agent(app, &mounted.mount.path(), &endpoints);
        }
        discovery
    }

    /// The `SKILL.md` of the agent mounted at `at`, for its MCP endpoint.
    pub(crate) fn skills_at(&self, at: &str) -> Vec<SkillDocument> {
        let own = self.skills.iter().filter(|(mount, _)| mount == at);
        own.map(|(_, skill)| skill.clone()).collect()
    }

    /// The same, as they are when asked for: kept up to date once [`publish`](Self::publish)ed.
    pub(crate) fn skill_shelf_at(&mut self, at: &str) -> Arc<SkillShelf> {
        self.shelf(Some(at.to_owned()), self.skills_at(at))
    }

    /// Every agent's `SKILL.md` as they are when asked for, for a host's shared endpoint.
    pub(crate) fn all_skills_shelf(&mut self) -> Arc<SkillShelf> {
        self.shelf(None, self.all_skills())
    }

    fn shelf(&mut self, at: Option<String>, skills: Vec<SkillDocument>) -> Arc<SkillShelf> {
        let shelf = Arc::new(SkillShelf::new(skills));
        let shelf_kept = Arc::clone(&shelf);
        self.recipe.shelves.push(Shelved { at, shelf });
        shelf_kept
    }

    /// Serves the documents built so far, and builds them again whenever an agent defined at
    /// run time changes (inside a runtime), until the server stops.
    pub(crate) fn publish(&mut self) {
        let recipe = Recipe {
            origin: self.origin.clone(),
            steps: std::mem::take(&mut self.recipe.steps),
            live: Arc::clone(&self.recipe.live),
            shelves: std::mem::take(&mut self.recipe.shelves),
        };
        recipe.publish(&self.bundle, Self::rebuild);
    }

    /// Builds `recipe`'s documents again and serves them; nothing when an agent is gone (the
    /// server stopped).
    fn rebuild(recipe: &Recipe) {
        let mut discovery = Discovery::new(&recipe.origin);
        for step in &recipe.steps {
            match step {
                Step::Agent { app, at, endpoints } => {
                    let Some(app) = app.upgrade() else { return };
                    discovery.agent_documents(&app, at, endpoints);
                }
                Step::Host { name, ids, shared } => {
                    let shared = match shared {
                        Some((app, text)) => match app.upgrade() {
                            Some(app) => Some((app, text.as_str())),
                            None => return,
                        },
                        None => None,
                    };
                    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                    let shared = shared.as_ref().map(|(app, text)| (app, *text));
                    discovery.host_documents(name, &ids, shared);
                }
            }
        }
        recipe.live.replace(discovery.bundle());
        for shelved in &recipe.shelves {
            let skills = match &shelved.at {
                Some(at) => discovery.skills_at(at),
                None => discovery.all_skills(),
            };
            shelved.shelf.replace(skills);
        }
    }

    /// Every agent's `SKILL.md`, for a host's shared endpoint.
    pub(crate) fn all_skills(&self) -> Vec<SkillDocument> {
        self.skills.iter().map(|(_, skill)| skill.clone()).collect()
    }

    /// Every document, by its path from the server's root.
    pub(crate) fn bundle(&self) -> &[(String, Arc<Served>)] {
        &self.bundle
    }

    /// Bundles an agent card served at `path` (by the agent's own routes), so that a static
    /// copy of the server has it too.
    pub(crate) fn card(&mut self, path: String, card: &serde_json::Value) {
        // The bytes the card route serves.
        let text = serde_json::to_string_pretty(card).unwrap_or_default();
        self.bundle.push((path, Arc::new(Served::text(text, JSON))));
    }

    /// The documents of `app`, mounted at `at` (its mount's path: empty, or `/{id}` on a host)
    /// and reached at `endpoints`: routes relative to its mount point.
    pub(crate) fn agent(&mut self, app: &Arc<App>, at: &str, endpoints: &Endpoints) -> Router {
        self.recipe.steps.push(Step::Agent {
            app: Arc::downgrade(app),
            at: at.to_owned(),
            endpoints: endpoints.clone(),
        });
        self.agent_documents(app, at, endpoints)
            .routes(&self.recipe.live, at)
    }

    /// The documents of `app`, bundled.
    fn agent_documents(&mut self, app: &App, at: &str, endpoints: &Endpoints) -> Documents {
        let agent = app.dispatcher.about();
        let own = |path: &str| format!("{}{at}{path}", self.origin);
        let urls = Urls {
            card: own(crate::server::paths::AGENT_CARDS[0]),
            jsonrpc: endpoints.jsonrpc.clone(),
            rest: endpoints.rest.clone(),
            grpc: endpoints.grpc.clone(),
            mcp: own(crate::server::paths::MCP),
        };
        let name = match at.strip_prefix('/') {
            Some(id) => names::skill_name(id),
            None => names::skill_name(agent.name()),
        };
        let provider = agent.provider();
        let publisher = names::publisher(provider.map(|(_, url)| url), &self.origin);
        let identity = identity(app, &name, &publisher);
        let any_public = app
            .dispatcher
            .registry()
            .skills()
            .iter()
            .any(|skill| skill.is_public());
        let remote = Remote {
            url: urls.mcp.clone(),
            headers: server_card::credential_headers(&app.security, any_public),
            variables: Default::default(),
        };
        let mut docs = Documents::default();
        let card = server_card::server_card(&identity, &remote);
        docs.add(SERVER_CARD_PATH.into(), Served::json(&card, SERVER_CARD));
        let entry = server_card::registry_entry(&identity, &remote);
        docs.add(SERVER_JSON_PATH.into(), Served::json(&entry, JSON));
        let skill_md_path = format!("{SKILLS_PATH}/{name}/SKILL.md");
        let description = skill_md::description(app);
        let text = skill_md::skill_md(&name, &description, app, &urls);
        let skill_md = docs.add(skill_md_path.clone(), Served::text(text, MARKDOWN));
        let text = Arc::from(String::from_utf8_lossy(skill_md.bytes()).as_ref());
        let document = SkillDocument::new(name.clone(), description.clone(), text);
        self.skills.push((at.to_owned(), document));
        let listed = Listed {
            name,
            title: agent.name().to_owned(),
            description: agent.description().to_owned(),
            version: agent.version().to_owned(),
            tags: tags(app),
            publisher,
            organization: provider.map(|(organization, _)| organization.to_owned()),
            card_url: urls.card.clone(),
            server_card_url: own(SERVER_CARD_PATH),
            skill_md_url: own(&skill_md_path),
            skill_md_digest: skill_md.digest().to_owned(),
            skill_description: description,
        };
        self.catalogs(
            &mut docs,
            &identity.title,
            std::slice::from_ref(&listed),
            None,
        );
        self.listed.push(listed);
        let bundled = docs
            .iter()
            .map(|(path, doc)| (format!("{at}{path}"), Arc::clone(doc)));
        self.bundle.extend(bundled);
        docs
    }

    /// A host's own documents, at its root: the catalogs and skills index of every agent, the
    /// host's MCP Registry entry (its agents' endpoints as one URL template), and the shared MCP
    /// endpoint's server card, when it has one (`shared`: an agent's app and its description).
    pub(crate) fn host(
        &mut self,
        host: &str,
        ids: &[&str],
        shared: Option<(&Arc<App>, &str)>,
    ) -> Router {
        self.recipe.steps.push(Step::Host {
            name: host.to_owned(),
            ids: ids.iter().map(|id| (*id).to_owned()).collect(),
            shared: shared.map(|(app, text)| (Arc::downgrade(app), text.to_owned())),
        });
        self.host_documents(host, ids, shared)
            .routes(&self.recipe.live, "")
    }

    /// A host's own documents, bundled.
    fn host_documents(
        &mut self,
        host: &str,
        ids: &[&str],
        shared: Option<(&Arc<App>, &str)>,
    ) -> Documents {
        let mut docs = Documents::default();
        let publisher = names::publisher(None, &self.origin);
        let name = names::skill_name(host);
        let version = shared.map_or(env!("CARGO_PKG_VERSION").to_owned(), |(app, _)| {
            app.dispatcher.about().version().to_owned()
        });
        let identity = Identity {
            name: names::registry_name(&Default::default(), &publisher, &name),
            title: names::clip(host, 100, &name),
            description: names::clip(shared.map_or(host, |(_, text)| text), 100, host),
            version,
            website: None,
            icon: None,
            package: Default::default(),
        };
        let shared = shared.map(|_| {
            let remote = Remote {
                url: format!("{}{}", self.origin, crate::server::paths::MCP),
                headers: Vec::new(),
                variables: Default::default(),
            };
            let card = server_card::server_card(&identity, &remote);
            docs.add(SERVER_CARD_PATH.into(), Served::json(&card, SERVER_CARD));
            SharedEndpoint {
                name: name.clone(),
                title: identity.title.clone(),
                server_card_url: format!("{}{SERVER_CARD_PATH}", self.origin),
            }
        });
        let entry = server_card::registry_entry(&identity, &self.agents_remote(ids));
        docs.add(SERVER_JSON_PATH.into(), Served::json(&entry, JSON));
        let listed = std::mem::take(&mut self.listed);
        self.catalogs(&mut docs, host, &listed, shared.as_ref());
        self.listed = listed;
        let bundled = docs
            .iter()
            .map(|(path, doc)| (path.to_owned(), Arc::clone(doc)));
        self.bundle.extend(bundled);
        docs
    }

    /// A host's agents' MCP endpoints as one remote: `{origin}/{agent}/mcp`.
    fn agents_remote(&self, ids: &[&str]) -> Remote {
        let mut variables = serde_json::Map::new();
        variables.insert(
            "agent".into(),
            serde_json::json!({
                "description": "The agent to connect to.",
                "isRequired": true,
                "choices": ids,
                "default": ids.first().copied().unwrap_or_default(),
            }),
        );
        Remote {
            url: format!("{}/{{agent}}{}", self.origin, crate::server::paths::MCP),
            headers: Vec::new(),
            variables,
        }
    }

    /// The catalogs and skills index of `agents` into `docs`.
    fn catalogs(
        &self,
        docs: &mut Documents,
        host: &str,
        agents: &[Listed],
        shared: Option<&SharedEndpoint>,
    ) {
        let publisher = agents.first().map_or_else(
            || names::publisher(None, &self.origin),
            |a| a.publisher.clone(),
        );
        let ai = catalogs::ai_catalog(host, &publisher, agents, shared);
        docs.add(AI_CATALOG_PATH.into(), Served::json(&ai, AI_CATALOG));
        let mcp = catalogs::mcp_catalog(&publisher, agents, shared);
        docs.add(MCP_CATALOG_PATH.into(), Served::json(&mcp, JSON));
        let index = catalogs::skills_index(agents);
        docs.add(
            format!("{SKILLS_PATH}/index.json"),
            Served::json(&index, JSON),
        );
    }
}

/// Who an agent's MCP endpoint is, as its server card and registry entry say it.
fn identity(app: &App, name: &str, publisher: &str) -> Identity {
    let agent = app.dispatcher.about();
    let provider_url = agent.provider().map(|(_, url)| url);
    Identity {
        name: names::registry_name(&agent.package(), publisher, name),
        title: names::clip(agent.name(), 100, name),
        description: names::clip(agent.description(), 100, agent.name()),
        version: agent.version().to_owned(),
        website: agent
            .documentation_url()
            .or(provider_url)
            .map(str::to_owned),
        icon: agent.icon_url().map(str::to_owned),
        package: agent.package(),
    }
}

/// The tags of the agent's skills, each once, in order.
fn tags(app: &App) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for skill in app.dispatcher.registry().skills() {
        for tag in skill.tags() {
            if !tags.iter().any(|t| t == tag) {
                tags.push(tag.to_string());
            }
        }
    }
    tags
}
