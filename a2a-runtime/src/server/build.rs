//! Assembling what every front-end of one agent shares (`App`) from the server's settings, and
//! opening the store it keeps tasks in.

use super::oauth::AgentOAuth;
use super::*;
use a2a_runtime_core::observe::{CallObserver, Hub, Meter};

/// Where one agent sits on its server.
pub(super) struct Placement<'a> {
    /// The key its tasks are stored under (empty for the one agent of a server).
    pub(super) key: &'a str,
    /// Its limits.
    pub(super) limits: &'a Limits,
    /// A host's credentials, which every agent of the host accepts.
    pub(super) host: Option<&'a AuthConfig>,
    /// How it accepts the tokens of the server's authorization server.
    pub(super) oauth: Option<&'a AgentOAuth>,
}

/// What the agents of one server share: where tasks are kept (and the replicas on it), the
/// callers' quotas, and push delivery.
pub(super) struct Shared {
    pub(super) tasks: SharedTasks,
    pub(super) push: Option<Arc<Pusher>>,
    /// Where every agent's meter reports (none: nothing observes the server).
    pub(super) hub: Option<Arc<Hub>>,
}

impl Shared {
    /// The machinery for a server configured by `config`, keeping tasks in `store` (memory
    /// within `config`'s limits when `None`), observed by `observers`.
    pub(super) fn new(
        config: &ServeConfig,
        store: Option<Arc<dyn TaskStore>>,
        (observers, service): (&[Arc<dyn CallObserver>], (&str, &str)),
    ) -> Result<Self, Error> {
        let limits = &config.limits;
        let store = store.unwrap_or_else(|| Arc::new(memory_store(limits)));
        let quotas = Quotas::new(quota_limits(config));
        let hub = observe::hub(config, (observers, &quotas), service)?;
        let push = pusher(&config.push, &store, Meter::new("", hub.clone()));
        Ok(Self {
            tasks: SharedTasks::new(store, quotas, limits.stream_buffer),
            push,
            hub,
        })
    }
}

/// Each caller's limits. Over HTTP they share the server fairly among its callers. Over stdio
/// the server has exactly one client, the MCP host that started it: fairness among callers
/// means nothing there, and a host that pipelines hundreds of calls must have them all
/// answered, so its limits are the server's own (`--max-waiting-tasks` calls held at once, no
/// rate of new calls).
fn quota_limits(config: &ServeConfig) -> QuotaLimits {
    let limits = &config.limits;
    if config.stdio {
        return QuotaLimits {
            running: limits.max_waiting_tasks,
            waiting: limits.max_waiting_tasks,
            streams: limits.max_waiting_tasks,
            tasks_per_second: u32::MAX,
            burst: u32::MAX,
        };
    }
    QuotaLimits {
        running: limits.max_running_per_caller,
        waiting: limits.max_waiting_per_caller,
        streams: limits.max_streams_per_caller,
        tasks_per_second: limits.tasks_per_second_per_caller,
        burst: limits.task_burst_per_caller,
    }
}

impl AgentServer {
    /// What every front-end of this agent shares, assembled and checked: the registry and
    /// catalog, the schemes in force, the store, quotas, push delivery and the task manager.
    pub(super) fn build(
        &self,
        shutdown: CancellationToken,
        oauth: Option<&AgentOAuth>,
    ) -> Result<Arc<App>, Error> {
        check_rest_prefix(&self.rest_prefix)?;
        self.config.validate()?;
        let service = (self.agent.name(), self.agent.version());
        let shared = Shared::new(&self.config, self.store.clone(), (&self.observers, service))?;
        let placement = Placement {
            key: "",
            limits: &self.config.limits,
            host: None,
            oauth,
        };
        self.build_on(placement, &self.config, &shared, shutdown)
    }

    /// The agent's skills, registered and checked.
    pub(super) fn registry(&self) -> Result<Registry, Error> {
        let mut explicit = self.agent.explicit_skills().to_vec();
        explicit.extend(&self.skills);
        Registry::build(self.agent_type, self.agent.type_name(), &explicit)
    }

    /// This agent's [`App`] on `shared`, placed on the server as `placement` says; `server` is
    /// the server's configuration, whose credentials, TLS and state key every agent of it
    /// takes, after the credentials of the host.
    pub(super) fn build_on(
        &self,
        placement: Placement<'_>,
        server: &ServeConfig,
        shared: &Shared,
        shutdown: CancellationToken,
    ) -> Result<Arc<App>, Error> {
        let Placement {
            key,
            limits,
            host,
            oauth,
        } = placement;
        let registry = self.registry()?;
        let catalog = Catalog::build(
            self.agent_type,
            self.agent.type_name(),
            self.agent.explicit_resources(),
            self.agent.explicit_prompts(),
        )?;
        let mut auth = self.auth.clone();
        if let Some(host) = host {
            auth.api_keys.extend(host.api_keys.clone());
            if auth.jwt.is_none() {
                auth.jwt.clone_from(&host.jwt);
            }
            auth.jwt_issuers.extend(host.jwt_issuers.iter().cloned());
            auth.scope_implies.extend(&host.scope_implies);
        }
        server.auth.apply(&mut auth)?;
        auth.client_certificates = server.tls.client_ca.is_some();
        let mut schemes = self.agent.security_schemes();
        schemes.extend(self.schemes.iter().cloned());
        if let Some(oauth) = oauth {
            oauth.apply(&mut auth, &mut schemes);
        }
        let security = Security::resolve(&schemes, &auth).map_err(Error::Config)?;
        check_scopes(&registry, &security)?;
        // Records name the agent: its id on a host, its name on a server of its own.
        let label = if key.is_empty() {
            self.agent.name()
        } else {
            key
        };
        let meter = Meter::new(label, shared.hub.clone());
        let dispatcher =
            Arc::new(Dispatcher::new(registry, Arc::clone(&self.state)).metered(meter));
        let state_key = state_key(server, shared.tasks.store().coordination().is_some())?;
        let observers: Observers = shared
            .push
            .iter()
            .map(|pusher| Arc::clone(pusher) as Arc<dyn TaskObserver>)
            .chain([Arc::new(self.resource_updates.clone()) as Arc<dyn TaskObserver>])
            .collect();
        let manager = TaskManager::hosted(
            key,
            &shared.tasks,
            Arc::clone(&dispatcher),
            task_config(limits),
            observers,
        );
        self.handle.bind(&manager);
        let app = Arc::new(App {
            agent: self.agent,
            dispatcher,
            quotas: Arc::clone(manager.quotas()),
            manager,
            limits: limits.clone(),
            require_version_header: self.require_version_header,
            streaming: server.streaming,
            rest_prefix: self.rest_prefix.clone(),
            shutdown,
            security: Arc::new(security),
            jwt: auth.jwt.into_iter().chain(auth.jwt_issuers).collect(),
            state_key,
            push: shared.push.clone(),
            catalog: Arc::new(catalog),
            resource_updates: self.resource_updates.clone(),
        });
        observe::watch_app(&app);
        Ok(app)
    }

    /// Opens the store at `location` with this server's limits.
    pub(super) async fn open_store(
        &self,
        location: &StoreLocation,
    ) -> Result<Arc<dyn TaskStore>, Error> {
        open_store(location, &self.config.limits).await
    }
}

/// Opens the store at `location`, a memory store within `limits`.
pub(super) async fn open_store(
    location: &StoreLocation,
    limits: &Limits,
) -> Result<Arc<dyn TaskStore>, Error> {
    Ok(match location {
        StoreLocation::Memory => Arc::new(memory_store(limits)),
        #[cfg(feature = "sqlite")]
        StoreLocation::Sqlite(path) => {
            Arc::new(SqliteTaskStore::open(path, SqliteStoreOptions::default()).await?)
        }
        #[cfg(feature = "postgres")]
        StoreLocation::Postgres(url) => {
            Arc::new(PostgresTaskStore::connect(url, PostgresStoreOptions::default()).await?)
        }
        #[allow(unreachable_patterns)] // Only when a feature is left out.
        other => return Err(missing_store_feature(other)),
    })
}

/// A memory store within `limits`.
fn memory_store(limits: &Limits) -> InMemoryTaskStore {
    InMemoryTaskStore::new(MemoryStoreLimits {
        max_tasks: limits.max_tasks,
        max_bytes: limits.max_store_bytes,
        ttl: limits.task_ttl,
    })
}

/// The key MCP `requestState`s are sealed with, at least as long as it must be; replicas
/// (`shared`) without one are told what they give up.
fn state_key(config: &ServeConfig, shared: bool) -> Result<Option<Vec<u8>>, Error> {
    let state_key = config.state_key.as_ref().map(|key| key.as_bytes().to_vec());
    if state_key
        .as_ref()
        .is_some_and(|key| key.len() < a2a_runtime_mcp::MIN_STATE_KEY_BYTES)
    {
        return Err(Error::Config(format!(
            "--state-key must be at least {} bytes long",
            a2a_runtime_mcp::MIN_STATE_KEY_BYTES
        )));
    }
    if state_key.is_none() && shared {
        tracing::warn!(
            "replicas share the task store but no --state-key: an MCP retry (protocol \
             2026-07-28) is answered only by the replica that asked; give every replica the \
             same --state-key"
        );
    }
    Ok(state_key)
}

/// The push deliverer, unless push notifications are off.
fn pusher(options: &PushOptions, store: &Arc<dyn TaskStore>, meter: Meter) -> Option<Arc<Pusher>> {
    if !options.enabled {
        return None;
    }
    let settings = PushSettings {
        allow_private: options.allow_private,
        timeout: options.timeout,
        attempts: options.attempts,
        first_retry: options.first_retry,
        queue: options.queue_per_config,
    };
    Some(Arc::new(Pusher::metered(settings, store.outbox(), meter)))
}

/// A REST prefix is empty or a path like `/rest`.
fn check_rest_prefix(prefix: &str) -> Result<(), Error> {
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

/// The error for a store this build cannot open: its feature was left out.
#[allow(dead_code)] // Unused when every store feature is on.
fn missing_store_feature(location: &StoreLocation) -> Error {
    let feature = match location {
        StoreLocation::Sqlite(_) => "sqlite",
        StoreLocation::Postgres(_) => "postgres",
        StoreLocation::Memory => "server",
    };
    Error::Config(format!(
        "--store {location}: this store needs the `{feature}` feature of a2a-runtime, which \
         this build leaves out (add it to the a2a-runtime dependency in Cargo.toml)"
    ))
}

/// A skill needing scopes is served only by an agent with a scheme whose tokens carry them, and
/// a skill listed only on the extended card needs a scheme to authenticate the callers who may
/// read it.
fn check_scopes(registry: &Registry, security: &Security) -> Result<(), Error> {
    if !security.is_enabled()
        && let Some(skill) = registry
            .skills()
            .iter()
            .find(|s| s.descriptor.is_extended_only())
    {
        return Err(Error::Config(format!(
            "skill `{}` is `extended_only`, and this agent has no security scheme: the extended \
             card is for authenticated callers; declare one (`#[agent(security(..))]`) and \
             configure it, or list the skill on the public card",
            skill.descriptor.id()
        )));
    }
    let scoped: Vec<&str> = security.scoped().collect();
    if !scoped.is_empty() {
        return Ok(());
    }
    match registry
        .skills()
        .iter()
        .find(|s| !s.descriptor.scopes().is_empty())
    {
        Some(skill) => Err(Error::Config(format!(
            "skill `{}` needs scopes {:?}, and no security scheme of this agent carries scopes: \
             declare a Bearer, OAuth 2 or OpenID Connect scheme (`#[agent(security(bearer))]`) \
             and configure how its tokens are verified (A2A_JWT_SECRET or A2A_JWKS_URL)",
            skill.descriptor.id(),
            skill.descriptor.scopes()
        ))),
        None => Ok(()),
    }
}

/// The task layer's share of the limits.
fn task_config(limits: &Limits) -> TaskConfig {
    TaskConfig {
        cancel_grace: limits.cancel_grace,
        stream_buffer: limits.stream_buffer,
        input_timeout: limits.input_timeout,
        max_waiting: limits.max_waiting_tasks,
        max_history_bytes: limits.max_task_history_bytes,
        max_artifact_bytes: limits.max_task_artifact_bytes,
        ..TaskConfig::default()
    }
}
