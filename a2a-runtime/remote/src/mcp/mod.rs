//! [`RemoteMcpServer`]: an MCP server in any language (streamable HTTP in either revision, or
//! a command whose stdio is the session) as a [`DefinedAgent`]: its tools are the agent's
//! skills, served as MCP tools and A2A skills alike, each call forwarded to it; its resources
//! and prompts are served over MCP beside them (`content.rs`); its lists are read at mount and
//! followed (each `list_changed` notification, a periodic re-read, a restart of a process that
//! exited).

mod call;
mod child;
mod content;
mod link;
mod relay;
mod settings;
mod tools;

use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::model::Tool;
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::follow::{Followed, follow};
use a2a_runtime_core::about::AgentAbout;
use a2a_runtime_core::content::DefinedContent;
use a2a_runtime_core::defined_agent::{DefinedAgent, Reach};
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::registry::{DefinedSkill, RunSkill};
use a2a_runtime_types::util::BoxFuture;
use call::McpCall;
use link::McpLink;
pub use settings::{McpSource, RemoteMcpSettings};

/// What was last read from the remote: what it said of itself, its tools, and its resources,
/// templates and prompts.
type Listed = (Option<Value>, Vec<Tool>, content::Listed);

/// A remote MCP server fronted by the host.
pub struct RemoteMcpServer {
    link: Arc<McpLink>,
    listed: Mutex<Option<Listed>>,
}

impl std::fmt::Debug for RemoteMcpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteMcpServer")
            .field("id", &self.link.id)
            .field("source", &self.link.source)
            .finish_non_exhaustive()
    }
}

impl RemoteMcpServer {
    /// The server `source`, mounted as `id`; its tools are read by [`connect`](Self::connect)
    /// or, failing that, while it is served.
    pub fn new(id: impl Into<String>, source: McpSource, settings: RemoteMcpSettings) -> Self {
        Self {
            link: Arc::new(McpLink::new(id.into(), source, settings)),
            listed: Mutex::new(None),
        }
    }

    /// Its id on the host.
    pub fn id(&self) -> &str {
        &self.link.id
    }

    /// Opens a session and reads the tools now; an unreachable server is an error naming it
    /// (it is still served, and tried again while it is).
    pub async fn connect(&self) -> Result<(), String> {
        self.refresh().await.map(drop)
    }

    fn listed(&self) -> std::sync::MutexGuard<'_, Option<Listed>> {
        self.listed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the lists again; whether anything changed.
    async fn refresh(&self) -> Result<bool, String> {
        let tools = self.link.tools().await.map_err(|e| e.to_string())?;
        let content = self.link.content().await.map_err(|e| e.to_string())?;
        let info = self.link.server_info().await;
        let now = (info, tools, content);
        let mut listed = self.listed();
        let changed = listed.as_ref() != Some(&now);
        if changed {
            *listed = Some(now);
        }
        Ok(changed)
    }
}

impl DefinedAgent for RemoteMcpServer {
    fn reach(&self) -> Reach {
        self.link.reach()
    }

    fn declared_scopes(&self) -> Vec<String> {
        self.link
            .settings
            .scopes
            .values()
            .flatten()
            .cloned()
            .collect()
    }

    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(error) = self.connect().await {
                tracing::warn!(remote = %self.link.id, %error, "remote MCP server unreachable at start; served without tools until it answers");
            }
        })
    }

    fn definition(&self) -> (AgentAbout, Vec<DefinedSkill>) {
        let link = &self.link;
        let label = link.label();
        let listed = self.listed();
        let Some((info, tools, _)) = listed.as_ref() else {
            return (tools::about(&link.id, &label, None), Vec::new());
        };
        let body = |tool: &str| -> Arc<dyn RunSkill> {
            Arc::new(McpCall {
                link: Arc::clone(link),
                tool: tool.to_owned(),
            })
        };
        let skills = tools::skills(&link.id, &label, tools, &link.settings.scopes, body);
        (tools::about(&link.id, &label, info.as_ref()), skills)
    }

    fn content(&self) -> DefinedContent {
        match self.listed().as_ref() {
            Some((_, _, listed)) => content::defined(&self.link, listed),
            None => DefinedContent::default(),
        }
    }

    fn follow(
        self: Arc<Self>,
        dispatcher: Weak<Dispatcher>,
        stop: CancellationToken,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            follow(&*self, dispatcher, stop).await;
            // The host is stopping: a stdio server's process is stopped with its session.
            self.link.close().await;
        })
    }
}

impl Followed for RemoteMcpServer {
    fn id(&self) -> &str {
        &self.link.id
    }

    fn read_once(&self) -> bool {
        self.listed().is_some()
    }

    async fn reread(&self) -> Result<bool, String> {
        self.refresh().await
    }

    fn changes(&self) -> Option<&Notify> {
        Some(&self.link.changed)
    }
}
