//! A project's file reservations: one record holding them all, changed by compare-and-set, so
//! a reservation is checked against every other and taken in one step even when agents race
//! (through one hub or several replicas). Two reservations overlap when some path matches both
//! (`glob::intersect`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Entry, Lease, RecordError};
use a2a_runtime::tokio;
use globset::GlobBuilder;
use serde::{Deserialize, Serialize};

use crate::identity::{AgentData, may_act};
use crate::model::{Reservation, ReservationMode};
use crate::paths::{PathRules, Refused};
use crate::{Hub, checked, collection, glob, now, store_failed};

/// The key of the one record holding a project's reservations.
const TABLE: &str = "table";

/// How many times a change is tried again when another agent changed the table under it.
const RETRIES: usize = 64;

/// A lock per project, held while this process changes that project's reservations.
#[derive(Debug, Default, Clone)]
pub(crate) struct Turns {
    projects: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

impl Turns {
    /// Waits for `project`'s turn.
    async fn take(&self, project: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let turn = {
            let mut projects = self.projects.lock().unwrap_or_else(PoisonError::into_inner);
            // Forget the projects nobody waits on, so the map stays as small as the busy ones.
            if projects.len() > 1024 {
                projects.retain(|_, turn| Arc::strong_count(turn) > 1);
            }
            Arc::clone(projects.entry(project.to_owned()).or_default())
        };
        turn.lock_owned().await
    }
}

/// Every reservation of a project.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Table {
    pub(crate) entries: Vec<Reservation>,
}

/// A path or glob, checked and normalized ([`crate::paths`]).
#[derive(Debug)]
pub(crate) struct Pattern {
    pub(crate) text: String,
}

impl Pattern {
    /// `path` as a pattern, normalized by `rules`: a repository-relative path or glob within
    /// the bounds an overlap check can afford; anything else is refused naming `file_path`.
    pub(crate) fn new(path: &str, rules: PathRules) -> Result<Self, SkillError> {
        let refused = |why: String| SkillError::invalid_input(format!("`file_path` {why}"));
        let text = rules.normalize(path).map_err(|Refused(why)| refused(why))?;
        glob::check(&text).map_err(refused)?;
        GlobBuilder::new(&text)
            .literal_separator(true)
            .build()
            .map_err(|e| refused(format!("is not a valid glob: {e}")))?;
        Ok(Self { text })
    }

    /// Whether some path matches both.
    pub(crate) fn overlaps(&self, other: &Pattern) -> bool {
        self.text == other.text || glob::intersect(&self.text, &other.text)
    }

    /// A reservation's path as stored: checked when it was written, so only normalized again
    /// (it may predate normalization), not compiled as a glob for every comparison; `None`
    /// when it is not one a reservation could take today.
    pub(crate) fn stored(text: &str, rules: PathRules) -> Option<Self> {
        rules.normalize(text).ok().map(|text| Self { text })
    }

    /// Whether `stored`, a reservation's path as stored, names this pattern.
    pub(crate) fn is(&self, stored: &str, rules: PathRules) -> bool {
        stored == self.text || Pattern::stored(stored, rules).is_some_and(|p| p.text == self.text)
    }
}

/// Whether a reservation in `mode` may stand beside one in `other`.
pub(crate) fn compatible(mode: ReservationMode, other: ReservationMode) -> bool {
    mode == ReservationMode::Shared && other == ReservationMode::Shared
}

impl Hub {
    /// Applies `change` to `project`'s reservations, from which lapsed ones and those of agents
    /// no longer registered are dropped first, and stores the result if it differs; what
    /// `change` answered. With `acting`, the change is made for that caller acting as that
    /// session, which must be registered to it (checked on the same read of the registrations).
    pub(crate) async fn change_reservations<R>(
        &self,
        project: &str,
        acting: Option<(&Caller, &str)>,
        mut change: impl FnMut(&mut Vec<Reservation>) -> Result<R, SkillError>,
    ) -> Result<R, SkillError> {
        checked("project_id", project)?;
        if let Some((_, session)) = acting {
            checked("session_name", session)?;
        }
        let turn = self.turns.take(project).await;
        for _ in 0..RETRIES {
            let agents: Vec<Lease<AgentData>> =
                self.agents(project).list().await.map_err(store_failed)?;
            let mut lease = None;
            if let Some((caller, session)) = acting {
                let Some(found) = agents.iter().find(|lease| lease.key == session) else {
                    // Telling it what it lost sweeps the table: that takes this turn.
                    drop(turn);
                    return Err(self.unregistered(project, session).await);
                };
                may_act(caller, found)?;
                lease = Some((caller, found));
            }
            let Some(changed) = self.try_change(project, &agents, &mut change).await? else {
                continue;
            };
            if let Some((caller, lease)) = lease {
                self.keep_alive(project, caller, lease).await?;
            }
            return Ok(changed);
        }
        Err(SkillError::new(
            "the file reservations changed too often to update; try again",
        ))
    }

    /// One attempt of [`change_reservations`](Self::change_reservations) with the project's
    /// registrations `agents`: what `change` answered, or `None` when another writer changed
    /// the table first. Reservations dropped because their agent lapsed become its losses.
    async fn try_change<R>(
        &self,
        project: &str,
        agents: &[Lease<AgentData>],
        change: &mut impl FnMut(&mut Vec<Reservation>) -> Result<R, SkillError>,
    ) -> Result<Option<R>, SkillError> {
        let collection = collection::reservations(project);
        let live: HashSet<&str> = agents.iter().map(|lease| lease.key.as_str()).collect();
        let entry: Option<Entry<Table>> = self
            .records()
            .entry(&collection, TABLE)
            .await
            .map_err(store_failed)?;
        let version = entry.as_ref().map(|e| e.version);
        let before = entry.map(|e| e.value.entries).unwrap_or_default();
        let at = now();
        let (mut entries, lapsed): (Vec<Reservation>, Vec<Reservation>) = before
            .iter()
            .filter(|r| r.expires_at > at)
            .cloned()
            .partition(|r| live.contains(r.session.as_str()));
        let answer = change(&mut entries)?;
        if entries == before {
            return Ok(Some(answer));
        }
        let table = Table { entries };
        let put = self.records().put(&collection, TABLE, &table);
        let written = match version {
            Some(version) => put.if_version(version).await,
            None => put.if_absent().await,
        };
        match written {
            Ok(_) => {}
            Err(RecordError::Conflict { .. }) => return Ok(None),
            Err(other) => return Err(store_failed(other)),
        }
        if !lapsed.is_empty() {
            self.record_losses(project, lapsed).await?;
        }
        Ok(Some(answer))
    }

    /// `project`'s reservations in force: unexpired, of registered agents.
    pub(crate) async fn reservations(&self, project: &str) -> Result<Vec<Reservation>, SkillError> {
        checked("project_id", project)?;
        let agents: Vec<Lease<AgentData>> =
            self.agents(project).list().await.map_err(store_failed)?;
        let live: HashSet<&str> = agents.iter().map(|lease| lease.key.as_str()).collect();
        let table: Option<Table> = self
            .records()
            .get(&collection::reservations(project), TABLE)
            .await
            .map_err(store_failed)?;
        let at = now();
        Ok(table
            .map(|t| t.entries)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.expires_at > at && live.contains(r.session.as_str()))
            .collect())
    }

    /// Releases every reservation of `session` in `project` (it left, or was reaped): those
    /// it held.
    pub(crate) async fn release_all(
        &self,
        project: &str,
        session: &str,
    ) -> Result<Vec<Reservation>, SkillError> {
        self.change_reservations(project, None, |entries| {
            let (released, kept) = std::mem::take(entries)
                .into_iter()
                .partition(|r| r.session == session);
            *entries = kept;
            Ok(released)
        })
        .await
    }
}
