//! For Rust callers of the hub: [`HubClient::lock`] reserves a file and answers a guard that
//! releases it when dropped, as a `MutexGuard` unlocks.

use std::time::Duration;

use a2a_runtime::client::ClientError;
use a2a_runtime::tokio;

use crate::model::ReservationMode;
use crate::{HubClient, Locked, Released};

impl HubClient {
    /// Reserves `file_path` (a path or glob) exclusively for `session_name` in `project_id`,
    /// for `ttl` (the hub's default if `None`). The reservation is released when the guard
    /// is dropped (or [`FileLock::release`]d); a conflict is
    /// [`ClientError::SkillFailed`] naming the holder.
    pub async fn lock(
        &self,
        project_id: &str,
        session_name: &str,
        file_path: &str,
        description: &str,
        ttl: Option<Duration>,
    ) -> Result<FileLock, ClientError> {
        let locked = self
            .announce_file_change(
                Some(project_id.to_owned()),
                session_name.to_owned(),
                file_path.to_owned(),
                "modify".to_owned(),
                description.to_owned(),
                Some(ReservationMode::Exclusive),
                ttl.map(|ttl| ttl.as_secs().max(1)),
            )
            .await?;
        Ok(FileLock {
            client: self.clone(),
            project_id: project_id.to_owned(),
            session_name: session_name.to_owned(),
            locked,
            released: false,
        })
    }
}

/// A file reservation held through a [`HubClient`]; released when dropped (in the background,
/// on the runtime it was dropped in) unless [`release`](Self::release)d first.
#[derive(Debug)]
#[must_use = "the reservation is released when the guard is dropped"]
pub struct FileLock {
    client: HubClient,
    project_id: String,
    session_name: String,
    locked: Locked,
    released: bool,
}

impl FileLock {
    /// The reservation as the hub took it: its path, mode and expiry.
    pub fn info(&self) -> &Locked {
        &self.locked
    }

    /// Releases the reservation now, answering the hub's reply.
    pub async fn release(mut self) -> Result<Released, ClientError> {
        self.released = true;
        self.client
            .release_file_lock(
                Some(self.project_id.clone()),
                self.session_name.clone(),
                self.locked.file_path.clone(),
            )
            .await
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.client.clone();
        let (project, session) = (self.project_id.clone(), self.session_name.clone());
        let path = self.locked.file_path.clone();
        runtime.spawn(async move {
            if let Err(error) = client.release_file_lock(Some(project), session, path).await {
                a2a_runtime::tracing::warn!(%error, "a dropped file lock was not released");
            }
        });
    }
}
