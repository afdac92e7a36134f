//! [`DefinedAgent`]: an agent the server did not compile (a remote A2A agent, a remote MCP
//! server), served as compiled agents are from what it says of itself and the skills it offers,
//! both of which may change while it is served.

use std::sync::{Arc, Weak};

use tokio_util::sync::CancellationToken;

use crate::about::AgentAbout;
use crate::content::DefinedContent;
use crate::dispatch::Dispatcher;
use crate::registry::DefinedSkill;
use a2a_runtime_types::util::BoxFuture;

/// How an agent defined at run time was last found, for `/healthz` and the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Not tried yet.
    NotYet,
    /// Its source answered.
    Reached,
    /// Its source did not answer, or not usably: why.
    Unreachable(String),
}

/// An agent defined at run time.
pub trait DefinedAgent: Send + Sync + 'static {
    /// How its source was last found.
    fn reach(&self) -> Reach;

    /// Learns what the agent is before the server serves it (reads a remote's card), within
    /// the source's own time bound; a failure is logged, and [`follow`](Self::follow) tries
    /// again while the agent is served.
    fn prepare(&self) -> BoxFuture<'_, ()>;

    /// The scopes its configuration says its skills need: grantable by the server's
    /// authorization server whether or not its source has answered yet.
    fn declared_scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the agent is now: at mount, what is known before the remote answered, if it has not.
    fn definition(&self) -> (AgentAbout, Vec<DefinedSkill>);

    /// The resources and prompts it offers now (a remote MCP server's); none unless it says.
    fn content(&self) -> DefinedContent {
        DefinedContent::default()
    }

    /// Follows the agent's source until `stop`: whenever its card or list changes, gives the
    /// dispatcher the new definition ([`redefine`]); ends early when the dispatcher is gone.
    fn follow(
        self: Arc<Self>,
        dispatcher: Weak<Dispatcher>,
        stop: CancellationToken,
    ) -> BoxFuture<'static, ()>;
}

/// Replaces `dispatcher`'s agent, skills, resources and prompts with `agent`'s definition now,
/// named `label` in messages; whether it did (a definition the registry refuses is logged and
/// the old one kept).
pub fn redefine(dispatcher: &Dispatcher, label: &str, agent: &dyn DefinedAgent) -> bool {
    let (about, skills) = agent.definition();
    match crate::registry::Registry::defined(label, skills) {
        Ok(registry) => dispatcher.replace(about, registry.with_content(agent.content())),
        Err(error) => {
            tracing::warn!(agent = label, %error, "a new definition was refused; the last one is kept");
            false
        }
    }
}
