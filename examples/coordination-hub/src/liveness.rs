//! Keeping an agent registered while it works, and telling it when it was not. A language model
//! reasons and edits for minutes between calls, longer than any heartbeat it remembers to send,
//! so every call of a registered session renews its lease; the reservations of an agent that
//! lapsed anyway are kept as its loss, which its next call (or registration) reports, so it
//! learns which files it no longer holds before editing them.

use std::time::Duration;

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Entry, Lease, LeaseError};
use a2a_runtime::serde_json::json;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::identity::{AgentData, holder, not_registered};
use crate::model::Reservation;
use crate::{Hub, collection, failure, now, store_failed};

/// How long an agent's loss is kept for it to be told.
const LOSS_KEPT: Duration = Duration::from_secs(24 * 3600);

/// What a lapsed agent lost: when its reservations were dropped, and which.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Lost {
    /// When the hub found it gone and released its reservations.
    pub reaped_at: DateTime<Utc>,
    /// The reservations it held then.
    pub reservations: Vec<Reservation>,
}

impl Lost {
    /// What to tell the agent, for a person (or a model).
    pub(crate) fn notice(&self, session: &str) -> String {
        let paths: Vec<&str> = self
            .reservations
            .iter()
            .map(|r| r.file_path.as_str())
            .collect();
        format!(
            "{session} was reaped at {} (it made no call for longer than the hub's heartbeat \
             TTL), and its reservations on {} were released: another agent may hold them now. \
             Announce them again before editing them.",
            self.reaped_at.to_rfc3339(),
            paths.join(", ")
        )
    }
}

impl Hub {
    /// Renews `lease` for `caller` acting as its session, when a tenth of its TTL has passed
    /// since the last renewal: each call keeps an agent alive, and a busy agent does not write
    /// its registration on every call. `not_found` (with what it lost) if it lapsed meanwhile.
    pub(crate) async fn keep_alive(
        &self,
        project: &str,
        caller: &Caller,
        lease: &Lease<AgentData>,
    ) -> Result<(), SkillError> {
        let ttl = self.settings().heartbeat_ttl;
        let left = (lease.expires_at - now()).to_std().unwrap_or_default();
        if left + ttl / 10 >= ttl {
            return Ok(());
        }
        // One renewal at a time per session in this process: the calls arriving while it is
        // written go on under the lease they read, which is still valid.
        let Some(_renewing) = self.renewals.start(project, &lease.key) else {
            return Ok(());
        };
        let who = holder(caller, &lease.key);
        match self
            .agents(project)
            .renew::<AgentData>(&lease.key, &who, ttl)
            .await
        {
            Ok(_) => Ok(()),
            Err(LeaseError::NotHeld { .. }) => Err(self.unregistered(project, &lease.key).await),
            // Other processes renewed it meanwhile: the lease this call read has time left,
            // and theirs renewed it.
            Err(LeaseError::Contended { .. }) if lease.expires_at > now() => Ok(()),
            Err(other) => Err(store_failed(other)),
        }
    }

    /// The error for a call acting as `session`, not registered in `project`: `not_found`,
    /// saying when it was reaped and which reservations it lost, if it was.
    pub(crate) async fn unregistered(&self, project: &str, session: &str) -> SkillError {
        // Boxed: the sweep it does changes reservations, which may end here again.
        match Box::pin(self.take_lost(project, session)).await {
            Ok(Some(lost)) => failure(
                "not_found",
                format!("{} Register again.", lost.notice(session)),
                json!({
                    "reaped_at": lost.reaped_at,
                    "lost_reservations": lost.reservations,
                }),
            ),
            Ok(None) => not_registered(project, session),
            Err(error) => error,
        }
    }

    /// What `session` lost when it lapsed, if it did and has not been told: the project's
    /// reservations are swept first, so a lapse nobody noticed yet is found. Told once.
    pub(crate) async fn take_lost(
        &self,
        project: &str,
        session: &str,
    ) -> Result<Option<Lost>, SkillError> {
        self.change_reservations(project, None, |_| Ok(())).await?;
        let losses = collection::losses(project);
        let entry: Option<Entry<Lost>> = self
            .records()
            .entry(&losses, session)
            .await
            .map_err(store_failed)?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        // Of two calls at once, one tells it.
        let taken = self
            .records()
            .delete_if(&losses, session, entry.version)
            .await
            .map_err(store_failed)?;
        Ok(taken.then_some(entry.value))
    }

    /// Keeps `dropped`, reservations released because their agents lapsed, as those agents'
    /// losses (beside what they lost before and were not told yet).
    pub(crate) async fn record_losses(
        &self,
        project: &str,
        dropped: Vec<Reservation>,
    ) -> Result<(), SkillError> {
        let losses = collection::losses(project);
        let mut sessions: Vec<&str> = dropped.iter().map(|r| r.session.as_str()).collect();
        sessions.sort_unstable();
        sessions.dedup();
        for session in sessions {
            let earlier: Option<Lost> = self
                .records()
                .get(&losses, session)
                .await
                .map_err(store_failed)?;
            let mut lost = earlier.unwrap_or(Lost {
                reaped_at: now(),
                reservations: Vec::new(),
            });
            lost.reservations
                .extend(dropped.iter().filter(|r| r.session == session).cloned());
            self.records()
                .put(&losses, session, &lost)
                .ttl(LOSS_KEPT)
                .await
                .map_err(store_failed)?;
        }
        Ok(())
    }
}

/// The sessions whose registrations this process is renewing, so concurrent calls of one
/// session renew it once rather than racing each other's compare-and-set.
#[derive(Debug, Default, Clone)]
pub(crate) struct Renewals {
    in_flight: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<(String, String)>>>,
}

impl Renewals {
    /// Starts renewing `session` of `project`: a guard that ends it when dropped, or `None` if
    /// a renewal of it is already under way.
    fn start(&self, project: &str, session: &str) -> Option<Renewing> {
        let key = (project.to_owned(), session.to_owned());
        let mut in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        in_flight.insert(key.clone()).then(|| Renewing {
            renewals: self.clone(),
            key,
        })
    }
}

/// A renewal under way; dropping it ends it.
struct Renewing {
    renewals: Renewals,
    key: (String, String),
}

impl Drop for Renewing {
    fn drop(&mut self) {
        self.renewals
            .in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.key);
    }
}
