//! One call of a skill ([`Invocation`]) and its injected parameters: the [`FromInvocation`]
//! extractor trait, [`State`] and the [`TaskContext`].

use std::any::Any;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use super::{DecodedInput, TraceContext};
use crate::agent::Agent;
use crate::auth::Caller;
use crate::context::TaskContext;
use crate::skill_error::SkillError;
use a2a_runtime_types::model::Message;

/// One call of a skill, as the generated shim receives it: what an extractor
/// ([`FromInvocation`]) may read.
#[derive(Debug)]
pub struct Invocation {
    pub input: DecodedInput,
    pub state: Arc<dyn Any + Send + Sync>,
    pub context: TaskContext,
    /// The message that started the call; for a call that came without one (an MCP tool call),
    /// made from `arguments` on first read.
    pub message: OnceLock<Arc<Message>>,
    /// The input as JSON, before decoding, to make `message` from. A call that carries its
    /// message may have given it to its task's checkpoint (`Null` here): read the decoded
    /// `input` instead.
    pub arguments: serde_json::Value,
}

impl Invocation {
    /// The task context of the call (progress, artifacts, questions, cancellation).
    pub fn context(&self) -> &TaskContext {
        &self.context
    }

    /// Who the call runs for.
    pub fn caller(&self) -> &Caller {
        self.context.caller()
    }

    /// The message that started the call: the A2A request message, or, for an MCP tool call,
    /// one the server synthesizes (the arguments as a data part, the skill in `metadata.skill`).
    pub fn message(&self) -> &Message {
        self.shared_message()
    }

    fn shared_message(&self) -> &Arc<Message> {
        self.message.get_or_init(|| {
            Arc::new(Message::synthesized(
                self.context.skill_id(),
                self.arguments.clone(),
            ))
        })
    }

    /// The W3C Trace Context the request arrived in, if it carried one.
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.context.trace_context()
    }

    /// The id of the skill being called.
    pub fn skill_id(&self) -> &'static str {
        self.context.skill_id()
    }

    /// The agent value the server runs. `None` only if `A` is not that agent, which the
    /// [`FromInvocation<A>`] bound rules out for extractors.
    pub fn state<A: Agent>(&self) -> Option<Arc<A>> {
        Arc::clone(&self.state).downcast::<A>().ok()
    }
}

/// A skill parameter of agent `A`'s skills that the runtime fills in rather than the caller
/// (like axum's extractors). Implement it for your own types to inject them: mark such a
/// parameter `#[inject]` (the macro recognizes `State`, `TaskContext`, `Caller` and
/// `IncomingMessage` by name).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a skill of agent `{A}`",
    label = "not injectable here",
    note = "injectable parameters are `State<{A}>` (the skill's own agent), `TaskContext`, `Caller`, `IncomingMessage`, and types implementing `FromInvocation<{A}>`; mark input properties with `#[input]`"
)]
pub trait FromInvocation<A>: Sized {
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

/// Only the skill's own agent: `State<OtherAgent>` does not compile.
impl<A: Agent> FromInvocation<A> for State<A> {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        invocation.state::<A>().map(State).ok_or_else(|| {
            SkillError::internal(format!(
                "State<{}> requested, but this server runs a different agent",
                std::any::type_name::<A>()
            ))
        })
    }
}

impl<A> FromInvocation<A> for TaskContext {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(invocation.context.clone())
    }
}

impl<A> FromInvocation<A> for Caller {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(invocation.caller().clone())
    }
}

/// The message that started the call, injected: the A2A request message as sent (its
/// `messageId`, `metadata`, `extensions` and raw parts), or, for an MCP tool call, the one the
/// server synthesizes (the arguments as a data part, the tool in `metadata.skill`). It
/// dereferences to [`Message`].
#[derive(Debug, Clone)]
pub struct IncomingMessage(pub Arc<Message>);

impl Deref for IncomingMessage {
    type Target = Message;
    fn deref(&self) -> &Message {
        &self.0
    }
}

impl<A> FromInvocation<A> for IncomingMessage {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(Self(Arc::clone(invocation.shared_message())))
    }
}
