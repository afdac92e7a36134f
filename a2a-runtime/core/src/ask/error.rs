//! Why a question got no usable answer.

use std::time::Duration;

/// Why [`TaskContext::ask`](crate::context::TaskContext::ask) or
/// [`TaskContext::require_auth`](crate::context::TaskContext::require_auth) returned without an answer.
/// Converts into a [`SkillError`](crate::skill_error::SkillError), so `?` fails the call with a message naming the question.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// Nobody answered within the server's input timeout; the task has failed.
    #[error("no answer to \"{prompt}\" within {after:?}")]
    Expired {
        /// The question.
        prompt: String,
        /// How long the server waited.
        after: Duration,
    },
    /// The server already holds its maximum number of calls waiting for input.
    #[error("cannot ask \"{prompt}\": {limit} calls are already waiting for input on this server")]
    Capacity {
        /// The question.
        prompt: String,
        /// The server's limit.
        limit: usize,
    },
    /// The caller already has as many tasks waiting for answers as it may.
    #[error("cannot ask \"{prompt}\": {reason}")]
    CallerLimit {
        /// The question.
        prompt: String,
        /// The limit reached.
        reason: String,
    },
    /// The caller has no way to answer: an MCP client that declared no elicitation support, or
    /// authorization over a plain MCP call.
    #[error("this call needs {what} (\"{prompt}\"), but {why}")]
    Unsupported {
        /// What the skill needed: more input or authorization.
        what: &'static str,
        /// The question.
        prompt: String,
        /// Why the caller cannot provide it.
        why: String,
    },
    /// The MCP client did not declare the capability the question needs (`elicitation`,
    /// `sampling`, `roots`). On protocol 2026-07-28 a call that fails with it is answered with
    /// the protocol's MissingRequiredClientCapability error (-32021) naming the capability.
    #[error(
        "this call needs {what} (\"{prompt}\"), but the MCP client did not declare the `{capability}` capability"
    )]
    MissingCapability {
        /// The capability, as the client would declare it.
        capability: &'static str,
        /// What the skill needed.
        what: &'static str,
        /// The question.
        prompt: String,
    },
    /// The caller declined or dismissed the question.
    #[error("the caller declined to answer \"{prompt}\"")]
    Declined {
        /// The question.
        prompt: String,
    },
    /// The call was canceled, or it ended, while waiting.
    #[error("the call was canceled while waiting for an answer to \"{prompt}\"")]
    Canceled {
        /// The question.
        prompt: String,
    },
}
