//! A task's push configs: registered, read and deleted by the task's owner, kept on the task
//! (so the store keeps them with it). A change goes to the task's authoritative copy: the live
//! task here, the replica running it, or the stored task when nothing runs it.

use super::cluster::{Outcome, Request};
use super::error::TaskError;
use super::manager::TaskManager;
pub use super::push_edit::PushEdit;
use super::store::StoreError;
use a2a_runtime_types::model::PushConfig;

/// Attempts at a conditional write of a stored task's configs (another write may come first).
const EDIT_ATTEMPTS: u32 = 5;

impl TaskManager {
    /// Makes `edit` to the push configs of task `task_id`, which `owner` must own.
    pub async fn edit_push_configs(
        &self,
        task_id: &str,
        owner: &str,
        edit: PushEdit,
    ) -> Result<(), TaskError> {
        if let Some(outcome) = self.edit_here(task_id, owner, &edit).await {
            return outcome;
        }
        if let (Some(cluster), Some(runner)) = (&self.cluster, self.runner(task_id).await?) {
            let request = Request::Push {
                task: task_id.to_owned(),
                owner: owner.to_owned(),
                edit: edit.clone(),
            };
            match cluster.request(&runner, &self.agent, request).await {
                Ok(Outcome::Pushed) => return Ok(()),
                // Finished or moved there: the stored copy is the one to change.
                Ok(_) => {}
                Err(error) => {
                    if let Some(error) = self.remote_error(task_id, error) {
                        return Err(error);
                    }
                }
            }
        }
        self.edit_stored(task_id, owner, &edit).await
    }

    /// Makes `edit` if the task is live here; `None` if it is not.
    pub(super) async fn edit_here(
        &self,
        task_id: &str,
        owner: &str,
        edit: &PushEdit,
    ) -> Option<Result<(), TaskError>> {
        let live = self.live(task_id, owner)?;
        // A task that already ended takes configs too (A2A lists only push-not-supported and
        // task-not-found as this operation's errors): a client registering right after a fast
        // task finished gets its config, with nothing more to deliver to it.
        let edited = live.edit_push_configs(|configs| edit.apply(task_id, configs));
        Some(match edited {
            Err(error) => Err(error),
            Ok(()) => {
                // Answered once stored: a registration must survive a crash that follows it.
                if self.persist(&live).await {
                    Ok(())
                } else {
                    Err(TaskError::Store(StoreError::backend(format!(
                        "the push configs of task `{task_id}` could not be stored; retry"
                    ))))
                }
            }
        })
    }

    /// Makes `edit` to the stored task, which nothing runs.
    async fn edit_stored(
        &self,
        task_id: &str,
        owner: &str,
        edit: &PushEdit,
    ) -> Result<(), TaskError> {
        for _ in 1..EDIT_ATTEMPTS {
            let mut stored = self.found(task_id, owner).await?;
            edit.apply(task_id, &mut stored.push_configs)?;
            match self.store.update(&stored).await {
                Err(StoreError::Conflict { .. }) => continue,
                written => return Ok(written?),
            }
        }
        Err(TaskError::Store(StoreError::backend(format!(
            "task `{task_id}` kept changing while its push configs were edited; retry"
        ))))
    }

    /// The push configs of task `task_id`, which `owner` must own.
    pub async fn push_configs(
        &self,
        task_id: &str,
        owner: &str,
    ) -> Result<Vec<PushConfig>, TaskError> {
        if let Some(live) = self.live(task_id, owner) {
            return Ok(live.push_configs());
        }
        // A replica running the task stores every edit before answering it, so the stored
        // copy holds the configs as they are.
        Ok(self.found(task_id, owner).await?.push_configs)
    }
}
