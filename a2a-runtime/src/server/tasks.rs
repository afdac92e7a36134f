//! [`Tasks`]: a handle on a server's tasks for application code outside skills, such as the
//! OAuth callback that completes an authorization a skill is waiting for.

use std::sync::{Arc, OnceLock};

use a2a_runtime_core::auth::Caller;
use a2a_runtime_core::task::{TaskError, TaskManager};

/// A handle on the tasks of one [`AgentServer`](crate::AgentServer), taken with
/// [`AgentServer::tasks`](crate::AgentServer::tasks) before the server is built and usable once
/// it runs. Cheap to clone.
#[derive(Clone, Default)]
pub struct Tasks {
    manager: Arc<OnceLock<Arc<TaskManager>>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("started", &self.manager.get().is_some())
            .finish()
    }
}

/// Why a [`Tasks`] operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TasksError {
    /// The server has not been built yet (`router()` or `serve()`).
    #[error("the server has not started; tasks exist once router() or serve() has built it")]
    NotStarted,
    /// No task has this id.
    #[error("task `{0}` not found")]
    NotFound(String),
    /// The task exists but is not waiting for what was given.
    #[error("{reason}")]
    NotWaiting {
        /// The task.
        id: String,
        /// Why, naming the task's state.
        reason: String,
    },
    /// The task store failed.
    #[error("{0}")]
    Store(String),
}

impl Tasks {
    /// Connects the handle to the server's task manager; done once, when the server is built.
    pub(crate) fn bind(&self, manager: &Arc<TaskManager>) {
        let _ = self.manager.set(Arc::clone(manager));
    }

    /// Tells task `task_id`, waiting in `TASK_STATE_AUTH_REQUIRED` after
    /// [`TaskContext::require_auth`](crate::skills::TaskContext::require_auth), that its authorization
    /// arrived. `credential` is handed to the skill (and not stored in the task); the task goes
    /// back to `TASK_STATE_WORKING`. Only the task's `owner` (the caller that created it; the
    /// anonymous caller without authentication) can be authorized: another caller's task is
    /// not found. Verify the credential before calling this: the runtime passes it on as given.
    ///
    /// # Errors
    ///
    /// The server has not started, the task is unknown, or it is not waiting for authorization.
    pub async fn authorize(
        &self,
        task_id: &str,
        owner: &Caller,
        credential: serde_json::Value,
    ) -> Result<(), TasksError> {
        let manager = self.manager.get().ok_or(TasksError::NotStarted)?;
        manager
            .authorize(task_id, credential, owner.owner())
            .await
            .map_err(|error| match error {
                TaskError::NotFound(id) => TasksError::NotFound(id),
                TaskError::Store(error) => TasksError::Store(error.to_string()),
                other => TasksError::NotWaiting {
                    id: task_id.to_owned(),
                    reason: other.to_string(),
                },
            })
    }
}
