//! Questions a running skill puts to its caller (`ctx.ask`, `ctx.require_auth`) and the answers
//! that resume it. The core is protocol-neutral: an [`Asker`] per call decides how a question
//! reaches the caller (an A2A task interruption, an MCP elicitation or input-required result).

pub mod asking;
pub mod batch;
pub mod error;
pub mod limits;
pub mod question;
pub mod sampling;

pub use asking::Asking;
pub use batch::{Ask, Reply};
pub use batch::{Asks, Input, ListRoots, QuestionSet};
pub use error::AskError;
pub use limits::InputLimits;
pub use question::{
    Answer, Asker, ClientRequest, Question, QuestionKind, ask_grouped, roots_unsupported,
    sampling_unsupported, undeclared,
};
pub use sampling::{Root, Sampled, Sampling};

/// What [`TaskContext::ask_answered`](crate::context::TaskContext::ask_answered) returns: the answer,
/// and the follow-up message that gave it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Answered<T> {
    /// The answer, read as a `T`.
    pub value: T,
    /// Over A2A, the message that answered, as the client sent it (its `messageId`,
    /// `metadata`, parts), so a skill can tell a new request sent on the task from an answer;
    /// `None` over MCP, whose answers are a form's values.
    pub message: Option<a2a_runtime_types::model::Message>,
}
