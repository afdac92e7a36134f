//! The [`Agent`] trait, implemented by `#[agent]`.

use std::future::Future;

use crate::descriptor::AgentDescriptor;
use crate::server::AgentServer;

/// An agent: a value holding the agent's shared state, described by `#[agent]`.
///
/// Do not implement this trait by hand; annotate a struct with `#[agent]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agent",
    label = "expected a type annotated with `#[agent]`",
    note = "`#[skill(agent = ...)]` must name a struct annotated with `#[agent(...)]`"
)]
pub trait Agent: Send + Sync + Sized + 'static {
    #[doc(hidden)]
    fn __descriptor() -> &'static AgentDescriptor;

    /// The agent's static description (card metadata and explicitly listed skills).
    fn descriptor() -> &'static AgentDescriptor {
        Self::__descriptor()
    }

    /// A server for this agent, to configure before serving or mounting.
    fn server(self) -> AgentServer {
        AgentServer::new(self)
    }

    /// Serves this agent over A2A and MCP, configured from command-line flags and environment
    /// variables (see [`crate::ServeConfig`]), until Ctrl-C.
    fn serve(self) -> impl Future<Output = Result<(), crate::Error>> + Send {
        async move { self.server().serve().await }
    }
}
