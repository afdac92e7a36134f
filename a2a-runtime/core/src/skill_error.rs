//! [`SkillError`]: how a skill reports failure.

use std::fmt;

/// The error a skill returns. Any `std::error::Error` converts into it with `?`; build one from
/// a message with [`SkillError::new`].
///
/// Over A2A the task ends `TASK_STATE_FAILED` with the message as its status message; over MCP
/// the call returns `isError: true` with the message as text.
pub struct SkillError {
    kind: SkillErrorKind,
    message: String,
    data: Option<serde_json::Value>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// What kind of failure a [`SkillError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillErrorKind {
    /// The skill ran and failed.
    Failed,
    /// The input did not match the skill's parameters.
    InvalidInput,
    /// The runtime could not run the skill (a panic, a missing extractor value).
    Internal,
    /// The skill declined the task ([`SkillError::rejected`]).
    Rejected,
}

impl SkillError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            kind: SkillErrorKind::Failed,
            message: message.into(),
            data: None,
            source: None,
        }
    }

    /// The input did not make sense for this skill (beyond what its types already check).
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self {
            kind: SkillErrorKind::InvalidInput,
            ..Self::new(message)
        }
    }

    /// The skill declines the task: over A2A it ends `TASK_STATE_REJECTED` (not `FAILED`) with
    /// `reason` as its status message; over MCP the call returns `isError: true` with the
    /// reason as text.
    pub fn rejected(reason: impl Into<String>) -> Self {
        Self {
            kind: SkillErrorKind::Rejected,
            ..Self::new(reason)
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            kind: SkillErrorKind::Internal,
            ..Self::new(message)
        }
    }

    /// Attaches structured details, sent as a data part (A2A) or `structuredContent` (MCP).
    #[must_use]
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> SkillErrorKind {
        self.kind
    }

    /// The message shown to the caller.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Structured details, if any.
    pub fn data(&self) -> Option<&serde_json::Value> {
        self.data.as_ref()
    }
}

impl fmt::Debug for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("data", &self.data)
            .field("source", &self.source)
            .finish()
    }
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Like `anyhow::Error`, `SkillError` does not implement `std::error::Error` itself, which is
/// what allows this blanket conversion for `?`.
impl SkillError {
    /// The question that went unanswered, when the error is one `?` made of an [`AskError`].
    pub fn ask_error(&self) -> Option<&crate::ask::AskError> {
        self.source.as_deref()?.downcast_ref()
    }
}

impl<E> From<E> for SkillError
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn from(error: E) -> Self {
        Self {
            kind: SkillErrorKind::Failed,
            message: error.to_string(),
            data: None,
            source: Some(Box::new(error)),
        }
    }
}

impl SkillError {
    /// How a call that ended with this error is reported.
    pub fn outcome(&self) -> crate::observe::CallOutcome {
        use crate::observe::CallOutcome;
        match self.kind {
            SkillErrorKind::Failed => CallOutcome::Errored,
            SkillErrorKind::InvalidInput => CallOutcome::InvalidInput,
            SkillErrorKind::Internal => CallOutcome::Failed,
            SkillErrorKind::Rejected => CallOutcome::Rejected,
        }
    }
}
