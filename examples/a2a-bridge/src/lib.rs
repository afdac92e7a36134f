//! The A2A bridge: an MCP server (built with the SDK's macros, like any agent) whose tools let an
//! MCP host use remote A2A agents: resolve and validate their cards, keep a registry of them,
//! and send, stream, get, list, cancel and subscribe to their tasks and configure push on them.
//! Its tools are those of the `mcp-a2a` API reference this project started from (its
//! parameters, return shapes and errors); the calls go through `a2a_runtime::client`, so every A2A
//! version and binding the client speaks is reachable. The registry and the tasks it knows
//! persist in the SDK's records (`records.sqlite3` under the data directory).
//!
//! Run: `cargo run -p a2a-bridge -- --stdio` for a desktop MCP host, or without `--stdio` to
//! serve MCP (and A2A) over HTTP.

mod registry;
pub mod shape;
mod tools;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_runtime::client::{A2aClient, ClientError, StreamEvent};
use a2a_runtime::prelude::*;
use a2a_runtime::records::{RecordError, Records};
use a2a_runtime::{Task, TaskState, model::TaskEvent};

pub use registry::{AgentRecord, AgentSummary, PushRecord, Registry, TaskRecord};
pub use tools::*;

/// How long a call to a remote agent may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Drives remote A2A agents for MCP hosts: agent-card discovery, a persistent registry of
/// agents, task management, streaming and push notifications.
#[agent(
    name = "A2A Bridge",
    provider(organization = "a2a-runtime", url = "https://a2a-protocol.org")
)]
#[derive(Debug, Clone)]
pub struct Bridge {
    registry: Registry,
    /// Clients of the registered agents, by agent id, made on first use.
    clients: Arc<Mutex<HashMap<String, Arc<A2aClient>>>>,
    /// Tasks being followed in the background, so each is followed once.
    following: Arc<Mutex<HashSet<String>>>,
}

impl Bridge {
    /// The bridge over `records`.
    pub fn new(records: Records) -> Self {
        Self {
            registry: Registry::new(records),
            clients: Arc::default(),
            following: Arc::default(),
        }
    }

    /// The bridge over its default records: `records.sqlite3` in `a2a-bridge/` under the data
    /// directory (`A2A_DATA_DIR`, else the SDK's default).
    pub async fn open() -> Result<Self, RecordError> {
        Ok(Self::new(Records::for_agent("A2A Bridge").await?))
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Keeps `client` as agent `agent_id`'s.
    fn remember(&self, agent_id: &str, client: A2aClient) {
        self.clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(agent_id.to_owned(), Arc::new(client));
    }

    /// A client of agent `agent`, made on first use.
    async fn client(&self, agent: &AgentRecord) -> Result<Arc<A2aClient>, SkillError> {
        let cached = self
            .clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&agent.agent_id)
            .cloned();
        if let Some(client) = cached {
            return Ok(client);
        }
        let client = Arc::new(connect(&agent.base_url).await.map_err(request_failed)?);
        self.clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(agent.agent_id.clone(), Arc::clone(&client));
        Ok(client)
    }

    /// Agent `agent_id`'s record and a client of it.
    async fn agent_and_client(
        &self,
        agent_id: &str,
    ) -> Result<(AgentRecord, Arc<A2aClient>), SkillError> {
        let agent = self.registry.agent(agent_id).await?;
        let client = self.client(&agent).await?;
        Ok((agent, client))
    }

    /// Follows task `task` of agent `agent_id` through `events` in the background, storing each
    /// change, unless it is followed already.
    fn follow(
        &self,
        agent_id: String,
        mut task: Task,
        mut events: a2a_runtime::client::EventStream,
    ) {
        let first = self
            .following
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(task.id.clone());
        if !first {
            return;
        }
        let bridge = self.clone();
        a2a_runtime::tokio::spawn(async move {
            use a2a_runtime::futures::StreamExt as _;
            while let Some(Ok(event)) = events.next().await {
                apply(&mut task, event);
                if let Err(error) = bridge.registry.put_task(&agent_id, &task).await {
                    a2a_runtime::tracing::warn!(task = task.id, %error, "not recorded");
                }
            }
            bridge
                .following
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&task.id);
        });
    }
}

/// A client of the agent at `base_url`, its calls bounded by [`CALL_TIMEOUT`].
async fn connect(base_url: &str) -> Result<A2aClient, ClientError> {
    A2aClient::builder(base_url)
        .timeout(CALL_TIMEOUT)
        .connect()
        .await
}

/// `task` after `event`.
fn apply(task: &mut Task, event: StreamEvent) {
    match event {
        StreamEvent::Task(snapshot) => *task = *snapshot,
        StreamEvent::Status(update) => task.apply(&TaskEvent::Status(update)),
        StreamEvent::Artifact(update) => task.apply(&TaskEvent::Artifact(update)),
        StreamEvent::Message(_) => {}
    }
}

/// The innermost cause of `error`: what a person needs to read (`connection refused`).
fn cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut last = error;
    while let Some(source) = last.source() {
        last = source;
    }
    last.to_string()
}

/// The seed's `Request failed: …`.
fn request_failed(error: ClientError) -> SkillError {
    let reason = match &error {
        ClientError::Transport { source, .. } if source.is_timeout() => "timeout".to_owned(),
        ClientError::Transport { source, .. } => cause(source),
        ClientError::GrpcTransport {
            timed_out: true, ..
        } => "timeout".to_owned(),
        ClientError::GrpcTransport { reason, .. } => reason.clone(),
        other => other.to_string(),
    };
    SkillError::new(format!("Request failed: {reason}"))
}

/// Whether `state` is settled for good.
fn settled(state: TaskState) -> bool {
    state.is_terminal()
}
