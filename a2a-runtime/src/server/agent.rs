//! One agent's own settings (its skills, schemes, authenticators, REST prefix, limits of its
//! own and application routes), whichever server mounts it, and the [`App`] they become once
//! the server places the agent.

use std::any::{Any, TypeId};
use std::sync::Arc;

use axum::Router;

use super::config::ServeConfig;
use super::mount::Mount;
use super::oauth::AgentOAuth;
use super::shared::{Shared, task_config};
use super::tasks::Tasks;
use a2a_runtime_core::about::AgentAbout;
use a2a_runtime_core::agent::Agent;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::{AuthConfig, NamedScheme, Security};
use a2a_runtime_core::content::{Catalog, ResourceUpdates};
use a2a_runtime_core::defined_agent::DefinedAgent;
use a2a_runtime_core::descriptor::{AgentDescriptor, SkillDescriptor};
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_core::observe::Meter;
use a2a_runtime_core::registry::Registry;
use a2a_runtime_core::task::{Observers, TaskManager};
use a2a_runtime_types::model::TaskObserver;

/// Where an agent's description and skills come from.
pub(crate) enum Source {
    /// `#[agent]` and its `#[skill]`s, fixed when the program was compiled.
    Compiled {
        descriptor: &'static AgentDescriptor,
        agent_type: TypeId,
        /// Skills registered explicitly, beside the linked ones.
        skills: Vec<&'static SkillDescriptor>,
    },
    /// An agent defined at run time (a remote), followed while it is served. Only the `remote`
    /// feature mounts one; the server handles it either way.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    Defined(Arc<dyn DefinedAgent>),
}

/// What a defined agent's catalog of resources and prompts is collected for: nothing is
/// registered for it, so it has none.
struct NoCompiledContent;

/// An agent's own settings.
pub(crate) struct AgentSettings {
    pub(crate) state: Arc<dyn Any + Send + Sync>,
    pub(crate) source: Source,
    /// Its own credentials and authenticators (the server's are added when it is placed).
    pub(crate) auth: AuthConfig,
    /// Schemes declared with the builder, beside those of `#[agent]`.
    pub(crate) schemes: Vec<NamedScheme>,
    pub(crate) rest_prefix: String,
    pub(crate) require_version_header: bool,
    /// Limits of its own instead of the server's.
    pub(crate) limits: Option<Limits>,
    /// Application routes, served below its mount point.
    pub(crate) routes: Router,
    pub(crate) handle: Tasks,
    /// Announces changed resources to subscribed MCP sessions.
    pub(crate) resource_updates: ResourceUpdates,
    /// MCP instructions of this server's own, instead of the descriptor's.
    pub(crate) instructions: Option<Arc<str>>,
}

/// Where one agent sits on its server, and what the server gives it.
pub(crate) struct Placement<'a> {
    /// Where it sits on the server.
    pub(crate) mount: &'a Mount,
    /// Its limits.
    pub(crate) limits: &'a Limits,
    /// The server's credentials, which every agent of it accepts.
    pub(crate) server_auth: &'a AuthConfig,
    /// How it accepts the tokens of the server's authorization server.
    pub(crate) oauth: Option<&'a AgentOAuth>,
}

impl AgentSettings {
    /// `agent` with nothing of its own set yet.
    pub(crate) fn new<A: Agent>(agent: A) -> Self {
        Self::of(
            Arc::new(agent),
            Source::Compiled {
                descriptor: A::__descriptor(),
                agent_type: TypeId::of::<A>(),
                skills: Vec::new(),
            },
        )
    }

    /// `agent`, defined at run time, with nothing of its own set yet.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) fn defined(agent: Arc<dyn DefinedAgent>) -> Self {
        Self::of(Arc::new(()), Source::Defined(agent))
    }

    fn of(state: Arc<dyn Any + Send + Sync>, source: Source) -> Self {
        Self {
            state,
            source,
            auth: AuthConfig::default(),
            schemes: Vec::new(),
            rest_prefix: String::new(),
            require_version_header: false,
            limits: None,
            routes: Router::new(),
            handle: Tasks::default(),
            resource_updates: ResourceUpdates::new(),
            instructions: None,
        }
    }

    /// The agent's name, as a server of its own calls it.
    pub(crate) fn name(&self) -> String {
        match &self.source {
            Source::Compiled { descriptor, .. } => descriptor.name().to_owned(),
            Source::Defined(agent) => agent.definition().0.name().to_owned(),
        }
    }

    /// What the agent says of itself now, and its skills, registered and checked.
    pub(crate) fn definition(&self) -> Result<(AgentAbout, Registry), Error> {
        match &self.source {
            Source::Compiled {
                descriptor,
                agent_type,
                skills,
            } => {
                let mut explicit = descriptor.explicit_skills().to_vec();
                explicit.extend(skills);
                let registry = Registry::build(*agent_type, descriptor.type_name(), &explicit)?;
                Ok((AgentAbout::of(descriptor), registry))
            }
            Source::Defined(agent) => {
                let (about, skills) = agent.definition();
                let registry = Registry::defined(about.type_name(), skills)?;
                Ok((about, registry.with_content(agent.content())))
            }
        }
    }

    /// The agent's resources and prompts.
    fn catalog(&self) -> Result<Catalog, Error> {
        match &self.source {
            Source::Compiled {
                descriptor,
                agent_type,
                ..
            } => Catalog::build(
                *agent_type,
                descriptor.type_name(),
                descriptor.explicit_resources(),
                descriptor.explicit_prompts(),
            ),
            Source::Defined(_) => {
                Catalog::build(TypeId::of::<NoCompiledContent>(), "defined", &[], &[])
            }
        }
    }

    /// The agent's security: its schemes and credentials, the server's credentials (and
    /// flags), and the authorization server's tokens.
    fn security(
        &self,
        server: &ServeConfig,
        server_auth: &AuthConfig,
        oauth: Option<&AgentOAuth>,
    ) -> Result<(Security, AuthConfig), Error> {
        let mut auth = self.auth.clone();
        auth.api_keys.extend(server_auth.api_keys.clone());
        if auth.jwt.is_none() {
            auth.jwt.clone_from(&server_auth.jwt);
        }
        auth.jwt_issuers
            .extend(server_auth.jwt_issuers.iter().cloned());
        auth.scope_implies.extend(&server_auth.scope_implies);
        server.auth.apply(&mut auth)?;
        auth.client_certificates = server.tls.client_ca.is_some();
        let mut schemes = match &self.source {
            Source::Compiled { descriptor, .. } => descriptor.security_schemes(),
            Source::Defined(_) => Vec::new(),
        };
        schemes.extend(self.schemes.iter().cloned());
        if let Some(oauth) = oauth {
            oauth.apply(&mut auth, &mut schemes);
        }
        let security = Security::resolve(&schemes, &auth).map_err(Error::Config)?;
        Ok((security, auth))
    }

    /// This agent's [`App`] on `shared`, placed on the server (configured by `server`) as
    /// `placement` says.
    pub(crate) fn build(
        &self,
        placement: Placement<'_>,
        server: &ServeConfig,
        shared: &Shared,
    ) -> Result<Arc<App>, Error> {
        let (about, registry) = self.definition()?;
        let catalog = self.catalog()?;
        let (security, auth) = self.security(server, placement.server_auth, placement.oauth)?;
        check_scopes(&registry, &security)?;
        // Records name the agent: its id on a host, its name on a server of its own.
        let label = match placement.mount.id() {
            Some(id) => id.to_owned(),
            None => about.name().to_owned(),
        };
        let meter = Meter::new(&label, shared.hub.clone());
        let state = Arc::clone(&self.state);
        let dispatcher = Arc::new(match &self.source {
            Source::Compiled { .. } => Dispatcher::new(about, registry, state).metered(meter),
            Source::Defined(_) => Dispatcher::changing(about, registry, state).metered(meter),
        });
        if let Source::Defined(agent) = &self.source {
            let follow =
                Arc::clone(agent).follow(Arc::downgrade(&dispatcher), shared.shutdown.clone());
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn(follow)),
                Err(_) => tracing::warn!(
                    agent = %label,
                    "built outside a tokio runtime: this agent's source is not followed"
                ),
            }
        }
        let observers: Observers = shared
            .push
            .iter()
            .map(|pusher| Arc::clone(pusher) as Arc<dyn TaskObserver>)
            .chain([Arc::new(self.resource_updates.clone()) as Arc<dyn TaskObserver>])
            .collect();
        let manager = TaskManager::hosted(
            placement.mount.task_key(),
            &shared.tasks,
            Arc::clone(&dispatcher),
            task_config(placement.limits),
            observers,
        );
        self.handle.bind(&manager);
        let app = Arc::new(App {
            dispatcher,
            quotas: Arc::clone(manager.quotas()),
            manager,
            limits: placement.limits.clone(),
            require_version_header: self.require_version_header,
            streaming: server.streaming,
            rest_prefix: self.rest_prefix.clone(),
            shutdown: shared.shutdown.clone(),
            security: Arc::new(security),
            jwt: auth.jwt.into_iter().chain(auth.jwt_issuers).collect(),
            state_key: shared.state_key.clone(),
            push: shared.push.clone(),
            catalog: Arc::new(catalog),
            resource_updates: self.resource_updates.clone(),
            instructions: self.instructions.clone(),
        });
        super::observe::watch_app(&app);
        Ok(app)
    }
}

/// A REST prefix is empty or a path like `/rest`.
pub(crate) fn check_rest_prefix(prefix: &str) -> Result<(), Error> {
    let well_formed =
        prefix.starts_with('/') && !prefix.ends_with('/') && !prefix.contains(['{', '}', ':']);
    if !prefix.is_empty() && !well_formed {
        return Err(Error::Config(format!(
            "rest_prefix `{prefix}` must be empty or a path like `/rest` (starting with `/`, \
             without a trailing `/`)"
        )));
    }
    Ok(())
}

/// A skill needing scopes is served only by an agent with a scheme whose tokens carry them, and
/// a skill listed only on the extended card needs a scheme to authenticate the callers who may
/// read it.
fn check_scopes(registry: &Registry, security: &Security) -> Result<(), Error> {
    if !security.is_enabled()
        && let Some(skill) = registry.skills().iter().find(|s| s.is_extended_only())
    {
        return Err(Error::Config(format!(
            "skill `{}` is `extended_only`, and this agent has no security scheme: the extended \
             card is for authenticated callers; declare one (`#[agent(security(..))]`) and \
             configure it, or list the skill on the public card",
            skill.id()
        )));
    }
    let scoped: Vec<&str> = security.scoped().collect();
    if !scoped.is_empty() {
        return Ok(());
    }
    match registry.skills().iter().find(|s| !s.scopes().is_empty()) {
        Some(skill) => Err(Error::Config(format!(
            "skill `{}` needs scopes {:?}, and no security scheme of this agent carries scopes: \
             declare a Bearer, OAuth 2 or OpenID Connect scheme (`#[agent(security(bearer))]`) \
             and configure how its tokens are verified (A2A_JWT_SECRET or A2A_JWKS_URL)",
            skill.id(),
            skill.scopes()
        ))),
        None => Ok(()),
    }
}
