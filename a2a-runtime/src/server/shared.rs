//! What the agents of one server share: the task store and the replicas on it, the callers'
//! quotas, push delivery, the observers' hub, the state key and the shutdown token.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::config::{PushOptions, ServeConfig};
use super::observe::Service;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_core::observe::{CallObserver, Hub, Meter};
use a2a_runtime_core::push::{PushSettings, Pusher};
use a2a_runtime_core::quota::{QuotaLimits, Quotas};
use a2a_runtime_core::task::{SharedTasks, TaskConfig, TaskStore};

/// What the agents of one server share: where tasks are kept (and the replicas on it), the
/// callers' quotas, and push delivery.
pub(crate) struct Shared {
    pub(crate) tasks: SharedTasks,
    pub(crate) push: Option<Arc<Pusher>>,
    /// Where every agent's meter reports (none: nothing observes the server).
    pub(crate) hub: Option<Arc<Hub>>,
    /// The key MCP `requestState`s are sealed with.
    pub(crate) state_key: Option<Vec<u8>>,
    /// Ends open streams and sessions when the server shuts down.
    pub(crate) shutdown: CancellationToken,
}

impl Shared {
    /// The machinery for a server configured by `config`, keeping tasks in `store` (memory
    /// within `config`'s limits when `None`), observed by `observers` as `service`, ending its
    /// streams at `shutdown`.
    pub(crate) fn new(
        config: &ServeConfig,
        store: Option<Arc<dyn TaskStore>>,
        observers: &[Arc<dyn CallObserver>],
        service: Service<'_>,
        shutdown: CancellationToken,
    ) -> Result<Self, Error> {
        let limits = &config.limits;
        let store = store.unwrap_or_else(|| Arc::new(super::storage::memory_store(limits)));
        let state_key = state_key(config, store.coordination().is_some())?;
        let quotas = Quotas::new(quota_limits(config));
        if let Some(coordination) = store.coordination() {
            quotas.share_among(Arc::new(move || coordination.live_replicas()));
        }
        let hub = super::observe::hub(config, observers, &quotas, service)?;
        let push = pusher(&config.push, &store, Meter::new("", hub.clone()));
        Ok(Self {
            tasks: SharedTasks::new(store, quotas, limits.stream_buffer),
            push,
            hub,
            state_key,
            shutdown,
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

/// The task layer's share of the limits.
pub(crate) fn task_config(limits: &Limits) -> TaskConfig {
    TaskConfig {
        cancel_grace: limits.cancel_grace,
        stream_buffer: limits.stream_buffer,
        input_timeout: limits.input_timeout,
        max_waiting: limits.max_waiting_tasks,
        max_history_bytes: limits.max_task_history_bytes,
        max_artifact_bytes: limits.max_task_artifact_bytes,
        idempotency_ttl: limits.idempotency_ttl,
        ..TaskConfig::default()
    }
}
