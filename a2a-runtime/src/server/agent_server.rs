//! [`AgentServer`]: one agent at the root of a server of its own.

use std::sync::Arc;
use std::time::Duration;

use super::agent::{AgentSettings, Source};
use super::config::PushOptions;
use super::lifecycle::Lifecycle;
use super::mounts::Mounts;
use super::settings::{ServerSettings, server_builder};
use super::tasks::Tasks;
use a2a_runtime_core::agent::Agent;
use a2a_runtime_core::auth::{Authenticator, NamedScheme};
use a2a_runtime_core::content::ResourceUpdates;
use a2a_runtime_core::descriptor::SkillDef;
use a2a_runtime_core::task::MemoryStoreLimits;

/// Builds a server for one agent.
///
/// ```no_run
/// # use a2a_runtime::prelude::*;
/// # /// Doc.
/// # #[agent] struct Hello;
/// # /// Greets.
/// # #[skill(agent = Hello)] async fn greet(name: String) -> String { name }
/// # async fn run() -> Result<(), a2a_runtime::Error> {
/// let app: axum::Router = Hello.server().public_url("https://agents.example/hello/").router()?;
/// # Ok(()) }
/// ```
pub struct AgentServer {
    /// The agent's own settings.
    pub(crate) agent: AgentSettings,
    /// The server's.
    pub(crate) server: ServerSettings,
}

impl std::fmt::Debug for AgentServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentServer")
            .field("agent", &self.agent.name())
            .field("config", &self.server.config)
            .finish_non_exhaustive()
    }
}

impl AgentServer {
    /// A server for `agent` with default settings.
    pub fn new<A: Agent>(agent: A) -> Self {
        Self {
            agent: AgentSettings::new(agent),
            server: ServerSettings::default(),
        }
    }

    server_builder!();

    /// The server and its one agent, at the root, to serve.
    fn into_lifecycle(self) -> Lifecycle {
        Lifecycle::new(self.server, Mounts::root(self.agent))
    }

    /// Declares a security scheme (for values known only at run time; `#[agent(security(..))]`
    /// declares them in code). It is published in the card and enforced on every request.
    #[must_use]
    pub fn security_scheme(mut self, scheme: NamedScheme) -> Self {
        self.agent.schemes.push(scheme);
        self
    }

    /// Declares `scheme`, verified by `authenticator` (a scheme of the application's own, or a
    /// built-in kind verified differently).
    #[must_use]
    pub fn authenticator(mut self, scheme: NamedScheme, authenticator: impl Authenticator) -> Self {
        self.agent
            .auth
            .custom
            .push((scheme, Arc::new(authenticator)));
        self
    }

    /// Registers a skill explicitly (for targets without link-time registration):
    /// `.skill::<convert>()`.
    #[must_use]
    pub fn skill<S: SkillDef>(mut self) -> Self {
        if let Source::Compiled { skills, .. } = &mut self.agent.source {
            skills.push(S::DESCRIPTOR);
        }
        self
    }

    /// Mounts the A2A HTTP+JSON routes under `prefix` (such as `/rest`) instead of the root,
    /// for example to keep them apart from application routes; the agent card names it.
    #[must_use]
    pub fn rest_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.agent.rest_prefix = prefix.into();
        self
    }

    /// Replaces the instructions MCP's `initialize` gives clients (`#[agent(instructions =
    /// "…")]`) with `text`, for what only the running process knows: the account or
    /// repository it serves, the name its caller should use.
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.agent.instructions = Some(Arc::from(text.into()));
        self
    }

    /// Rejects A2A 1.0 requests that carry no `A2A-Version` header (a missing header means 0.3,
    /// which has no such methods); by default they are served as 1.0.
    #[must_use]
    pub fn require_version_header(mut self, require: bool) -> Self {
        self.agent.require_version_header = require;
        self
    }

    //TASKS
    /// A handle on this server's tasks for application code, such as an OAuth callback route
    /// that calls [`Tasks::authorize`] for a task waiting in `TASK_STATE_AUTH_REQUIRED`. Take
    /// it before [`router`](Self::router) or [`serve`](Self::serve); it works once the server
    /// is built.
    pub fn tasks(&self) -> Tasks {
        self.agent.handle.clone()
    }

    /// A handle that tells subscribed MCP clients a resource changed
    /// (`notifications/resources/updated`). Usable at any time, from anywhere.
    pub fn resource_updates(&self) -> ResourceUpdates {
        self.agent.resource_updates.clone()
    }
}

/// Shortcuts for single limits and push settings (flags and environment variables still
/// override them in `serve()`).
impl AgentServer {
    /// The limits of the default in-memory store (also set by [`limits`](Self::limits):
    /// `max_tasks`, `max_store_bytes`, `task_ttl`).
    #[must_use]
    pub fn memory_store_limits(mut self, limits: MemoryStoreLimits) -> Self {
        self.server.config.limits.max_tasks = limits.max_tasks;
        self.server.config.limits.max_store_bytes = limits.max_bytes;
        self.server.config.limits.task_ttl = limits.ttl;
        self
    }

    /// Sets how push notifications are delivered, or turns them off (flags and environment
    /// variables still override them in `serve()`):
    ///
    /// ```
    /// # use a2a_runtime::server::PushOptions;
    /// let mut push = PushOptions::default();
    /// push.enabled = false; // every push config operation answers -32003
    /// # let _ = push;
    /// ```
    #[must_use]
    pub fn push(mut self, options: PushOptions) -> Self {
        self.server.config.push = options;
        self
    }

    /// The largest request body accepted (default 1 MiB); larger requests get HTTP 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.server.config.limits.max_body_bytes = bytes;
        self
    }

    /// How long a cancelled skill may keep running before it is stopped (default 5 s).
    #[must_use]
    pub fn cancel_grace(mut self, grace: Duration) -> Self {
        self.server.config.limits.cancel_grace = grace;
        self
    }

    /// Events buffered per task for stream subscribers (default 256). A subscriber that falls
    /// further behind is not waited for: its stream continues with a fresh task snapshot.
    #[must_use]
    pub fn stream_buffer(mut self, events: usize) -> Self {
        self.server.config.limits.stream_buffer = events;
        self
    }

    /// How often an idle SSE stream gets a keep-alive comment (default 15 s), so proxies do not
    /// close it.
    #[must_use]
    pub fn sse_keep_alive(mut self, interval: Duration) -> Self {
        self.server.config.limits.sse_keep_alive = interval;
        self
    }

    /// How long a question from [`TaskContext::ask`](crate::skills::TaskContext::ask) or
    /// [`require_auth`](crate::skills::TaskContext::require_auth) waits for its answer (default 15
    /// minutes). An A2A task still unanswered then fails with a message saying so; the skill's
    /// `ask` returns [`AskError::Expired`](crate::ask::AskError::Expired).
    #[must_use]
    pub fn input_timeout(mut self, timeout: Duration) -> Self {
        self.server.config.limits.input_timeout = timeout;
        self
    }

    /// The most calls that may wait for answers at once, over both protocols (default
    /// 10 000). A skill asking beyond it gets [`AskError::Capacity`](crate::ask::AskError::Capacity).
    #[must_use]
    pub fn max_waiting_tasks(mut self, max: usize) -> Self {
        self.server.config.limits.max_waiting_tasks = max;
        self
    }

    //MCP
    /// How long an MCP `tools/call` may run before the server answers with a task handle, when
    /// the client supports the MCP tasks extension (default 250 ms). Quicker calls are answered
    /// with their result; `Duration::ZERO` makes every such call a task.
    #[must_use]
    pub fn mcp_task_after(mut self, after: Duration) -> Self {
        self.server.config.limits.mcp_task_after = after;
        self
    }
}
