//! One call of a skill ([`Invocation`]) and its injected parameters: the [`FromInvocation`]
//! extractor trait, [`State`] and the [`TaskContext`].

use std::any::Any;
use std::ops::Deref;
use std::sync::Arc;

use super::DecodedInput;
use crate::context::TaskContext;
use crate::skill_error::SkillError;

/// One call of a skill, as the generated shim receives it.
#[derive(Debug)]
pub struct Invocation {
    pub(crate) input: DecodedInput,
    pub(crate) state: Arc<dyn Any + Send + Sync>,
    pub(crate) context: TaskContext,
}

/// A skill parameter the runtime fills in rather than the caller (like axum's extractors).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a skill",
    label = "not an injectable parameter",
    note = "injectable parameters are `State<YourAgent>`, `TaskContext` and `Caller`; mark input properties with `#[input]`"
)]
pub trait FromInvocation: Sized {
    /// Extracts the value for one call.
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError>;
}

/// The agent value, shared by every call: `agent: State<Currency>` dereferences to `Currency`.
#[derive(Debug)]
pub struct State<A>(pub Arc<A>);

impl<A> Clone for State<A> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<A> Deref for State<A> {
    type Target = A;
    fn deref(&self) -> &A {
        &self.0
    }
}

impl<A: Send + Sync + 'static> FromInvocation for State<A> {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Arc::clone(&invocation.state)
            .downcast::<A>()
            .map(State)
            .map_err(|_| {
                SkillError::internal(format!(
                    "State<{}> requested, but this server runs a different agent",
                    std::any::type_name::<A>()
                ))
            })
    }
}

impl FromInvocation for TaskContext {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(invocation.context.clone())
    }
}

impl FromInvocation for crate::auth::Caller {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(invocation.context.caller().clone())
    }
}
