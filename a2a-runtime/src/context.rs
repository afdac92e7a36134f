//! [`TaskContext`]: what a running skill can ask of the runtime.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::dispatch::{FromInvocation, Invocation};
use crate::skill_error::SkillError;

/// Injected into skills that take a `TaskContext` parameter: the task's identity and its
/// cancellation signal. The same calls work whether the skill was started over A2A or MCP.
#[derive(Debug, Clone)]
pub struct TaskContext {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    task_id: String,
    context_id: String,
    skill_id: &'static str,
    cancel: CancellationToken,
}

impl TaskContext {
    pub(crate) fn new(
        task_id: String,
        context_id: String,
        skill_id: &'static str,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                task_id,
                context_id,
                skill_id,
                cancel,
            }),
        }
    }

    /// The id of the task this call runs in. Over MCP (which has no task for a plain
    /// `tools/call`) this is a fresh id unique to the call.
    pub fn task_id(&self) -> &str {
        &self.inner.task_id
    }

    /// The conversation (A2A `contextId`) this call belongs to.
    pub fn context_id(&self) -> &str {
        &self.inner.context_id
    }

    /// The id of the running skill.
    pub fn skill_id(&self) -> &'static str {
        self.inner.skill_id
    }

    /// Whether the caller asked to cancel this call.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the caller asks to cancel this call. Use it in `tokio::select!` to stop
    /// long work early; a skill that ignores it is stopped after the server's grace period.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// `Err` with a cancellation error if the call was cancelled, for use with `?` between steps.
    pub fn check_cancelled(&self) -> Result<(), SkillError> {
        if self.is_cancelled() {
            Err(SkillError::new("the task was canceled"))
        } else {
            Ok(())
        }
    }
}

impl FromInvocation for TaskContext {
    fn from_invocation(invocation: &Invocation) -> Result<Self, SkillError> {
        Ok(invocation.context.clone())
    }
}
