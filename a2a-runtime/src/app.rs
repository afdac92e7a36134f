//! The state one running agent's front-ends share: below the A2A bindings and MCP, above the
//! task manager and the dispatcher. Protocol-specific state lives in its front-end.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::descriptor::AgentDescriptor;
use crate::dispatch::Dispatcher;
use crate::task::TaskManager;

/// Request limits and HTTP surface settings.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub(crate) max_body_bytes: usize,
    pub(crate) require_version_header: bool,
    /// How often an idle SSE stream gets a keep-alive comment.
    pub(crate) sse_keep_alive: Duration,
    /// How long an MCP `tools/call` from a client that supports tasks may run before it is
    /// answered with a task handle instead of the result.
    pub(crate) mcp_task_after: Duration,
    /// Where the A2A HTTP+JSON routes are mounted: empty (the root) or `/segment…`.
    pub(crate) rest_prefix: String,
}

/// What every front-end (A2A bindings, MCP) of one running agent shares.
pub(crate) struct App {
    pub(crate) agent: &'static AgentDescriptor,
    pub(crate) dispatcher: Arc<Dispatcher>,
    pub(crate) manager: Arc<TaskManager>,
    pub(crate) limits: Limits,
    /// Cancelled when the server shuts down: open streams end so connections can close.
    pub(crate) shutdown: CancellationToken,
}
