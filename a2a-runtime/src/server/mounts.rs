//! The agents of a server and where each sits: one agent at the root (a server of its own), or
//! agents at `/{id}` with tenants, a catalog and a shared MCP endpoint at the root (a host).
//! What differs between the two is decided here; everything else is built once for both.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::agent::{AgentSettings, Placement, Source, check_rest_prefix};
use super::catalog::AgentCatalog;
use super::mcp::Agents;
pub(crate) use super::mount::Mount;
use super::oauth;
use super::observe::Service;
use super::paths;
use super::settings::ServerSettings;
use super::shared::Shared;
use a2a_runtime_core::app::App;
use a2a_runtime_core::defined_agent::DefinedAgent;
use a2a_runtime_core::error::Error;

/// The longest agent id: it is a path segment, a tenant and an MCP tool-name prefix.
const MAX_ID_LEN: usize = 48;

/// See the module docs.
pub(crate) struct Mounts {
    pub(crate) agents: Vec<Mounted>,
    /// `None`: one agent at the root.
    pub(crate) hosting: Option<Hosting>,
}

/// One agent and where it sits.
pub(crate) struct Mounted {
    pub(crate) mount: Mount,
    pub(crate) agent: AgentSettings,
}

/// What a host adds at its root.
pub(crate) struct Hosting {
    pub(crate) name: String,
    /// The agent whose card the root serves and which a request naming no tenant reaches.
    pub(crate) primary: Option<String>,
    /// Whether `/mcp` serves every agent's tools together.
    pub(crate) shared_mcp: bool,
    pub(crate) catalog: AgentCatalog,
    /// Mistakes made while the host was put together, reported when it is built.
    pub(crate) refused: Vec<String>,
}

impl Hosting {
    /// A host named `agent-host`, its first agent primary, sharing `/mcp`.
    pub(crate) fn new() -> Self {
        Self {
            name: "agent-host".into(),
            primary: None,
            shared_mcp: true,
            catalog: AgentCatalog::default(),
            refused: Vec::new(),
        }
    }
}

/// What the server calls itself: on the command line, in traces, and in the data directory.
pub(crate) struct Identity {
    /// The name `--help` gives the program.
    pub(crate) program: String,
    pub(crate) name: String,
    pub(crate) version: &'static str,
    pub(crate) about: String,
}

impl Mounts {
    /// `agent` alone at the root.
    pub(crate) fn root(agent: AgentSettings) -> Self {
        Self {
            agents: vec![Mounted {
                mount: Mount::Root,
                agent,
            }],
            hosting: None,
        }
    }

    /// What the server calls itself.
    pub(crate) fn identity(&self) -> Identity {
        match (&self.hosting, self.agents.first()) {
            (
                None,
                Some(Mounted {
                    agent:
                        AgentSettings {
                            source:
                                Source::Compiled {
                                    descriptor: agent, ..
                                },
                            ..
                        },
                    ..
                }),
            ) => Identity {
                program: super::cli::program_name(),
                name: agent.name().to_owned(),
                version: agent.version(),
                about: format!("{}: {}", agent.name(), agent.description()),
            },
            (hosting, _) => {
                let name = hosting
                    .as_ref()
                    .map_or("agent-host", |hosting| hosting.name.as_str());
                Identity {
                    program: name.to_owned(),
                    name: name.to_owned(),
                    version: env!("CARGO_PKG_VERSION"),
                    about: format!("{name}: {} agents on one server", self.agents.len()),
                }
            }
        }
    }

    /// A host's primary agent, whose card the root well-known paths serve and which a request
    /// naming no tenant reaches (the first unless named); `None` for an agent at the root.
    pub(crate) fn primary_id(&self) -> Option<&str> {
        let hosting = self.hosting.as_ref()?;
        let first = || self.agents.first().and_then(|m| m.mount.id());
        hosting.primary.as_deref().or_else(first)
    }

    /// Whether `/mcp` is a host's endpoint for every agent.
    pub(crate) fn shared_mcp(&self) -> bool {
        self.hosting.as_ref().is_some_and(|h| h.shared_mcp)
    }

    /// The ids of a host's agents, in the order added (none for an agent at the root).
    pub(crate) fn ids(&self) -> Vec<&str> {
        self.agents.iter().filter_map(|m| m.mount.id()).collect()
    }

    /// The resources tokens may be issued for on the server at `base` (the first is the
    /// default): a host's shared MCP endpoint, each agent's MCP endpoint and URL, the root.
    pub(crate) fn resources(&self, base: &str) -> Vec<String> {
        let mut resources: Vec<String> = self.shared_resource(base).into_iter().collect();
        let (mcp, urls): (Vec<_>, Vec<_>) =
            self.agents.iter().map(|m| own_resources(base, m)).unzip();
        resources.extend(mcp);
        resources.extend(urls);
        push_unique(&mut resources, base);
        resources
    }

    /// The resources whose tokens `mounted` accepts: its own, and the shared MCP endpoint and
    /// the root, which reach it too.
    fn audiences(&self, base: &str, mounted: &Mounted) -> Vec<String> {
        let (mcp, url) = own_resources(base, mounted);
        let mut audiences: Vec<String> = self.shared_resource(base).into_iter().collect();
        audiences.extend([mcp, url]);
        push_unique(&mut audiences, base);
        audiences
    }

    /// A host's shared MCP endpoint, as a resource.
    pub(crate) fn shared_resource(&self, base: &str) -> Option<String> {
        let trimmed = base.trim_end_matches('/');
        self.shared_mcp()
            .then(|| format!("{trimmed}{}", paths::MCP))
    }

    /// What a host's shared MCP endpoint says it serves.
    pub(crate) fn shared_description(&self) -> String {
        let name = self.hosting.as_ref().map_or("", |h| h.name.as_str());
        format!("The agents of {name}: {}", self.ids().join(", "))
    }

    /// Every agent as `apps` serve them, under their ids, as a host's shared MCP endpoint
    /// (described by `description`) serves them.
    pub(crate) fn shared_agents<'a>(
        &'a self,
        apps: &'a [Arc<App>],
        description: &'a str,
    ) -> Agents<'a> {
        let name = self.hosting.as_ref().map_or("", |h| h.name.as_str());
        Agents::Shared {
            identity: a2a_runtime_mcp::Identity { name, description },
            agents: self
                .agents
                .iter()
                .zip(apps)
                .filter_map(|(mounted, app)| Some((mounted.mount.id()?, app)))
                .collect(),
        }
    }

    /// Serves `agent`, defined at run time (a remote), as `id`.
    #[cfg(feature = "remote")]
    pub(crate) fn mount_defined(&mut self, id: String, agent: Arc<dyn DefinedAgent>) {
        self.agents.push(Mounted {
            mount: Mount::At(id),
            agent: AgentSettings::defined(agent),
        });
    }

    /// The agents defined at run time, by id.
    pub(crate) fn defined_agents(&self) -> Vec<(String, Arc<dyn DefinedAgent>)> {
        self.agents
            .iter()
            .filter_map(
                |mounted| match (&mounted.agent.source, mounted.mount.id()) {
                    (Source::Defined(agent), Some(id)) => Some((id.to_owned(), Arc::clone(agent))),
                    _ => None,
                },
            )
            .collect()
    }

    /// Learns what each agent defined at run time is (their remotes read at once), before
    /// they are built.
    pub(crate) async fn prepare(&self) {
        let defined = self
            .agents
            .iter()
            .filter_map(|mounted| match &mounted.agent.source {
                Source::Defined(agent) => Some(agent.prepare()),
                Source::Compiled { .. } => None,
            });
        futures::future::join_all(defined).await;
    }

    /// Every scope the agents' skills need.
    pub(crate) fn skill_scopes(&self) -> Result<Vec<String>, Error> {
        let mut scopes = std::collections::BTreeSet::new();
        for mounted in &self.agents {
            let (_, registry) = mounted.agent.definition()?;
            scopes.extend(registry.scopes().into_keys().map(str::to_owned));
            if let Source::Defined(agent) = &mounted.agent.source {
                scopes.extend(agent.declared_scopes());
            }
        }
        Ok(scopes.into_iter().collect())
    }

    /// Every agent's [`App`], in the order added, on what `server`'s agents share; each
    /// accepts the tokens `oauth` issues for its resources at `base`.
    pub(crate) fn build(
        &self,
        server: &ServerSettings,
        shutdown: CancellationToken,
        oauth: Option<&oauth::Deployed>,
        base: &str,
    ) -> Result<Vec<Arc<App>>, Error> {
        let config = &server.config;
        config.validate()?;
        self.check()?;
        let identity = self.identity();
        let service = Service {
            name: &identity.name,
            version: identity.version,
        };
        let store = server.store.clone();
        let shared = Shared::new(config, store, &server.observers, service, shutdown)?;
        self.agents
            .iter()
            .map(|mounted| {
                let agent_oauth = oauth.map(|d| d.for_agent(&self.audiences(base, mounted)));
                let placement = Placement {
                    mount: &mounted.mount,
                    limits: mounted.agent.limits.as_ref().unwrap_or(&config.limits),
                    server_auth: &server.auth,
                    oauth: agent_oauth.as_ref(),
                };
                mounted.agent.build(placement, config, &shared)
            })
            .collect()
    }

    /// The agents are well placed: a root agent's REST prefix is well formed; a host's ids
    /// are unique path segments of letters, digits, `-` and `_`, not taken by the server's own
    /// paths, and its primary is one of them.
    fn check(&self) -> Result<(), Error> {
        let Some(hosting) = &self.hosting else {
            return self
                .agents
                .iter()
                .try_for_each(|m| check_rest_prefix(&m.agent.rest_prefix));
        };
        if self.agents.is_empty() {
            return Err(Error::Config(
                "a host needs at least one agent: Host::new().agent(\"id\", MyAgent)".into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for id in self.ids() {
            check_id(id)?;
            if !seen.insert(id) {
                return Err(Error::Config(format!(
                    "agent id `{id}` is used twice: every agent of a host needs its own"
                )));
            }
        }
        if let Some(refused) = hosting.refused.first() {
            return Err(Error::Config(refused.clone()));
        }
        if let Some(primary) = &hosting.primary
            && !seen.contains(primary.as_str())
        {
            return Err(Error::Config(format!(
                "primary agent `{primary}` is not an agent of this host (it has {})",
                self.ids().join(", ")
            )));
        }
        Ok(())
    }
}

/// An agent's own MCP endpoint and URL on the server at `base`, as resources.
fn own_resources(base: &str, mounted: &Mounted) -> (String, String) {
    let at = mounted.mount.path();
    let mcp = format!("{}{at}{}", base.trim_end_matches('/'), paths::MCP);
    (mcp, mounted.mount.url(base))
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|present| present == item) {
        list.push(item.to_owned());
    }
}

/// An id is 1 to [`MAX_ID_LEN`] letters, digits, `-` or `_`, and no path of the server's.
fn check_id(id: &str) -> Result<(), Error> {
    let well_formed = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if well_formed && !paths::is_reserved(id) {
        return Ok(());
    }
    Err(Error::Config(format!(
        "agent id `{id}` must be 1 to {MAX_ID_LEN} letters, digits, `-` or `_`, and not one of \
         {:?} (it is a URL path segment and a tenant)",
        paths::reserved()
    )))
}
