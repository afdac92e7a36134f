//! The state one running agent's front-ends share: below the A2A bindings and MCP, above the
//! task manager and the dispatcher. Protocol-specific state lives in its front-end.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::auth::{JwtConfig, Security};
use crate::content::{Catalog, ResourceUpdates};
use crate::dispatch::Dispatcher;
use crate::limits::Limits;
use crate::push::Pusher;
use crate::quota::Quotas;
use crate::task::{Outbox, TaskManager};

/// What every front-end (A2A bindings, MCP) of one running agent shares.
pub struct App {
    pub dispatcher: Arc<Dispatcher>,
    pub manager: Arc<TaskManager>,
    /// Per-caller caps and rates, shared by every front-end.
    pub quotas: Arc<Quotas>,
    pub limits: Limits,
    /// Whether a JSON-RPC request must carry `A2A-Version`.
    pub require_version_header: bool,
    /// Whether A2A streaming is served (and the card says so).
    pub streaming: bool,
    /// Where the A2A HTTP+JSON routes are mounted: empty (the root) or `/segment…`.
    pub rest_prefix: String,
    /// Cancelled when the server shuts down: open streams end so connections can close.
    pub shutdown: CancellationToken,
    /// The security schemes in force and their authenticators.
    pub security: Arc<Security>,
    /// How bearer JWTs are verified, when they are, and the further issuers trusted (for the
    /// protected-resource metadata).
    pub jwt: Vec<JwtConfig>,
    /// The key MCP request states are sealed with, when replicas share one.
    pub state_key: Option<Vec<u8>>,
    /// Delivers push notifications, unless they are off.
    pub push: Option<Arc<Pusher>>,
    /// The agent's MCP resources and prompts.
    pub catalog: Arc<Catalog>,
    /// Changes of resources, for subscribed MCP sessions.
    pub resource_updates: ResourceUpdates,
    /// What MCP's `initialize` tells clients, when the server set it (else the descriptor's).
    pub instructions: Option<Arc<str>>,
}

impl App {
    /// The instructions MCP's `initialize` gives: the server's, else the agent's own.
    pub fn instructions(&self) -> String {
        match &self.instructions {
            Some(instructions) => instructions.to_string(),
            None => self.dispatcher.about().instructions().to_owned(),
        }
    }
}

/// How often finished tasks past the store's retention are forgotten.
const SWEEP_PERIOD: std::time::Duration = std::time::Duration::from_secs(60);

impl App {
    /// What runs before the first request: tasks an earlier run left unfinished are settled,
    /// and the store's retention starts being enforced (until shutdown).
    /// With a store replicas share, this replica joins them first, and from then on settles,
    /// every lease, the tasks of replicas that died.
    pub async fn start(self: &Arc<Self>) -> Result<(), crate::error::Error> {
        start_all(std::slice::from_ref(self)).await
    }
}

/// [`App::start`] for the agents of one server, which share a store (and its replicas, push
/// outbox and retention): each agent's manager joins the replicas and settles its own tasks;
/// what belongs to the store is done once.
pub async fn start_all(apps: &[Arc<App>]) -> Result<(), crate::error::Error> {
    let Some(first) = apps.first() else {
        return Ok(());
    };
    for app in apps {
        app.manager.join_replicas(app.shutdown.clone());
    }
    // Deliveries an earlier run left pending go out before any new event of their tasks.
    if let (Some(pusher), Some(outbox)) = (&first.push, first.manager.outbox()) {
        let restored = pusher.restore(&outbox).await?;
        if restored > 0 {
            tracing::info!(restored, "push deliveries left pending by an earlier run");
        }
        if let Some(lease) = first.manager.replica_lease() {
            claim_orphaned_deliveries(Arc::clone(pusher), outbox, lease, first.shutdown.clone());
        }
    }
    for app in apps {
        app.manager.recover().await?;
    }
    first
        .manager
        .sweep_periodically(SWEEP_PERIOD, first.shutdown.clone());
    Ok(())
}

/// With replicas: every `lease`, takes over the push deliveries of replicas that went away
/// (each is claimed by exactly one survivor), until `stop`.
fn claim_orphaned_deliveries(
    pusher: Arc<Pusher>,
    outbox: Outbox,
    lease: std::time::Duration,
    stop: CancellationToken,
) {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = tokio::time::sleep(lease) => {}
                () = stop.cancelled() => return,
            }
            match pusher.restore(&outbox).await {
                Ok(0) => {}
                Ok(claimed) => {
                    tracing::info!(claimed, "push deliveries of a departed replica taken over");
                }
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "claiming the push deliveries of departed replicas failed"
                    );
                }
            }
        }
    });
}
