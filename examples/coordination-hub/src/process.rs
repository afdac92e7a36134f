//! Registrations tied to a stdio process. An MCP host starts one hub process per agent session
//! and closes its stdin when the session ends, so over stdio the process is the agent's
//! liveness: its sessions are renewed while the pipe is open (however long the model thinks),
//! and released with their reservations when it closes, the other agents told at once instead
//! of after a heartbeat TTL. One session may run through several processes (two windows of
//! one worktree): each process records its attachment, renewed with the session, and the
//! session is released only when the last of them closes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use a2a_runtime::records::LeaseError;
use a2a_runtime::tokio;

use crate::Hub;
use crate::identity::AgentData;
use crate::model::InboxMessage;
use crate::registry::active;

/// The sessions registered through this process: `(project, session)` to the lease's holder.
#[derive(Debug, Clone)]
pub(crate) struct Tethered {
    sessions: Arc<Mutex<BTreeMap<(String, String), String>>>,
    /// This process, as its attachments name it.
    process: Arc<str>,
}

impl Default for Tethered {
    fn default() -> Self {
        Self {
            sessions: Arc::default(),
            process: Arc::from(crate::new_id("process")),
        }
    }
}

impl Tethered {
    fn sessions(&self) -> Vec<((String, String), String)> {
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .iter()
            .map(|(key, holder)| (key.clone(), holder.clone()))
            .collect()
    }

    fn forget(&self, project: &str, session: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.remove(&(project.to_owned(), session.to_owned()));
    }
}

impl Hub {
    /// Ties the registrations made through this hub to the process: call
    /// [`keep_tethered_alive`](Self::keep_tethered_alive) while it serves and
    /// [`release_tethered`](Self::release_tethered) when its client is gone.
    #[must_use]
    pub fn tethered_to_process(mut self) -> Self {
        self.tethered = Some(Tethered::default());
        self
    }

    /// Notes that `session` of `project` was registered (or left) through this process.
    pub(crate) fn tether(&self, project: &str, session: &str, holder: Option<&str>) {
        let Some(tethered) = &self.tethered else {
            return;
        };
        match holder {
            Some(holder) => {
                let mut sessions = tethered
                    .sessions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                sessions.insert((project.to_owned(), session.to_owned()), holder.to_owned());
            }
            None => tethered.forget(project, session),
        }
    }

    /// Records that `session` of `project` runs through this process (nothing for a hub not
    /// tied to one), until the heartbeat TTL passes without a renewal.
    pub(crate) async fn attach(
        &self,
        project: &str,
        session: &str,
    ) -> Result<(), a2a_runtime::SkillError> {
        let Some(tethered) = &self.tethered else {
            return Ok(());
        };
        let key = format!("{session}/{}", tethered.process);
        self.records()
            .put(&crate::collection::attached(project), &key, &())
            .ttl(self.settings().heartbeat_ttl)
            .await
            .map(drop)
            .map_err(crate::store_failed)
    }

    /// Renews the process's sessions every third of the heartbeat TTL, forever (run it beside
    /// the server and drop it when the server ends). A session reaped meanwhile (the machine
    /// slept) is forgotten: its next call is told what it lost.
    pub async fn keep_tethered_alive(&self) {
        let Some(tethered) = &self.tethered else {
            return;
        };
        let ttl = self.settings().heartbeat_ttl;
        let mut ticks = tokio::time::interval(ttl / 3);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            for ((project, session), holder) in tethered.sessions() {
                let renewed = self
                    .agents(&project)
                    .renew::<AgentData>(&session, &holder, ttl)
                    .await;
                match renewed {
                    Ok(_) => {
                        if let Err(error) = self.attach(&project, &session).await {
                            let error = error.message().to_owned();
                            a2a_runtime::tracing::warn!(
                                error,
                                session,
                                "renewing an attachment failed"
                            );
                        }
                    }
                    Err(LeaseError::NotHeld { .. } | LeaseError::Held { .. }) => {
                        tethered.forget(&project, &session);
                    }
                    Err(error) => {
                        a2a_runtime::tracing::warn!(%error, session, "renewing a session failed");
                    }
                }
            }
        }
    }

    /// Releases every session of this process with its reservations (its todos stay, for a
    /// session resumed later), and tells each project's other agents which files are free.
    pub async fn release_tethered(&self) {
        let Some(tethered) = &self.tethered else {
            return;
        };
        for ((project, session), holder) in tethered.sessions() {
            // Another process still runs this session (another window): it keeps it.
            match self.detach(&project, &session, &tethered.process).await {
                Ok(0) => {}
                Ok(_) => {
                    tethered.forget(&project, &session);
                    continue;
                }
                Err(error) => {
                    let error = error.message().to_owned();
                    a2a_runtime::tracing::warn!(error, session, "detaching a session failed");
                }
            }
            if let Err(error) = self.release_session(&project, &session, &holder).await {
                a2a_runtime::tracing::warn!(error = %error.message(), session, "releasing a session failed");
            }
            tethered.forget(&project, &session);
        }
    }

    /// Removes this process's attachment to `session`: how many other processes it still runs
    /// through.
    async fn detach(
        &self,
        project: &str,
        session: &str,
        process: &str,
    ) -> Result<usize, a2a_runtime::SkillError> {
        let attached = crate::collection::attached(project);
        let records = self.records();
        let own = format!("{session}/{process}");
        records
            .delete(&attached, &own)
            .await
            .map_err(crate::store_failed)?;
        records
            .count(&attached, &format!("{session}/"))
            .await
            .map_err(crate::store_failed)
    }

    async fn release_session(
        &self,
        project: &str,
        session: &str,
        holder: &str,
    ) -> Result<(), a2a_runtime::SkillError> {
        let released = self.release_all(project, session).await?;
        match self.agents(project).release(session, holder).await {
            Ok(_) | Err(LeaseError::Held { .. }) => {}
            Err(error) => return Err(crate::store_failed(error)),
        }
        let paths: Vec<String> = released.into_iter().map(|r| r.file_path).collect();
        let content = match paths.as_slice() {
            [] => format!("{session} left (its MCP host closed its hub process)."),
            paths => format!(
                "{session} left (its MCP host closed its hub process); its reservations on {} \
                 were released.",
                paths.join(", ")
            ),
        };
        for recipient in active(self, project).await?.into_keys() {
            let message = InboxMessage::broadcast(session, "agent_left", &content);
            // A full inbox misses this notice; the reservations are free regardless.
            self.deliver(project, &recipient, &message).await?;
        }
        Ok(())
    }
}
