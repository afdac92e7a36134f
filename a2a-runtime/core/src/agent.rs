//! The [`Agent`] trait, implemented by `#[agent]`.

use crate::descriptor::AgentDescriptor;

/// An agent: a value holding the agent's shared state, described by `#[agent]`.
///
/// Do not implement this trait by hand; annotate a struct with `#[agent]`, which also gives the
/// struct its `server()` (an `AgentServer` to configure) and `serve()` methods.
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
}
