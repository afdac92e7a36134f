//! File coordination: `announce_file_change` (a reservation on a path or glob, exclusive or
//! shared, expiring unless announced again), `release_file_lock`, `get_recent_changes`.

use std::time::Duration;

use a2a_runtime::prelude::*;
use a2a_runtime::serde_json::json;
use chrono::{DateTime, Utc};

use crate::model::{FileChange, Reservation, ReservationMode};
use crate::reservations::{Pattern, compatible};
use crate::{Hub, HubClient, PathRules, collection, failure, new_id, now, store_failed};

/// How many announced changes a project keeps (a log of what happened: the oldest go first).
const RECENT_CHANGES: usize = 500;

/// The most reservations one agent may hold in a project.
pub const MAX_RESERVATIONS_PER_SESSION: usize = 100;

/// The most reservations a project holds, over all its agents.
pub const MAX_RESERVATIONS_PER_PROJECT: usize = 1000;

/// What `announce_file_change` answers when the reservation is taken (or renewed).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Locked {
    /// `locked`.
    pub status: String,
    /// The path or glob reserved.
    pub file_path: String,
    /// Exclusive or shared.
    pub mode: ReservationMode,
    /// When it lapses unless announced again.
    pub expires_at: DateTime<Utc>,
    /// What to do next, for a person.
    pub message: String,
}

/// Announces the intention to modify a file and reserves it: a path or a glob (`src/api/**`),
/// exclusively (the default) or shared. Fails with `conflict` naming the holder's reservation
/// when another agent's overlaps. Announcing again renews the reservation; it lapses after
/// `ttl_seconds` (the hub's default otherwise), or when its agent is reaped.
#[skill(agent = Hub)]
#[allow(clippy::too_many_arguments)] // The reference's parameters and two of ours.
pub async fn announce_file_change(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// Path (or glob) of the files, relative to the repository.
    file_path: String,
    /// Type of change: `create`, `modify`, `delete` or `refactor`.
    change_type: String,
    /// What you are planning to do.
    description: String,
    /// `exclusive` (the default) or `shared`.
    mode: Option<ReservationMode>,
    /// How long the reservation lasts unless announced again (the hub's default otherwise).
    ttl_seconds: Option<u64>,
) -> Result<Locked, SkillError> {
    let announcement = Announcement {
        project: hub.project(project_id)?,
        session: session_name,
        file_path,
        change_type,
        description,
        mode: mode.unwrap_or_default(),
        ttl: ttl_seconds.map(Duration::from_secs),
    };
    hub.announce(&caller, announcement).await
}

/// A reservation to take (or renew), as `announce_file_change` asks for it.
#[derive(Debug, Clone)]
pub struct Announcement {
    /// The project.
    pub project: String,
    /// The agent taking it.
    pub session: String,
    /// The path or glob.
    pub file_path: String,
    /// `create`, `modify`, `delete` or `refactor`.
    pub change_type: String,
    /// What the agent plans to do.
    pub description: String,
    /// Exclusive or shared.
    pub mode: ReservationMode,
    /// How long it lasts unless announced again (the hub's default when `None`).
    pub ttl: Option<Duration>,
}

impl Hub {
    /// Takes (or renews) the reservation `announcement` asks for, for `caller` acting as its
    /// session, and records the change: `announce_file_change`, for callers in this process
    /// (the command line's hooks over the shared data directory).
    pub async fn announce(
        &self,
        caller: &Caller,
        announcement: Announcement,
    ) -> Result<Locked, SkillError> {
        let Announcement {
            project,
            session,
            file_path,
            change_type,
            description,
            mode,
            ttl,
        } = announcement;
        let rules = self.settings().paths;
        let pattern = Pattern::new(&file_path, rules)?;
        let ttl = ttl.unwrap_or(self.settings().reservation_ttl);
        if ttl.is_zero() || ttl > MAX_TTL {
            return Err(SkillError::invalid_input(
                "`ttl_seconds` must be between 1 second and 7 days",
            ));
        }
        let expires_at = now() + chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
        let acting = Some((caller, session.as_str()));
        let reservation = self
            .change_reservations(&project, acting, |entries| {
                let locked_at = locked_since(entries, &pattern, rules, &session, mode)?;
                entries.retain(|r| !(r.session == session && pattern.is(&r.file_path, rules)));
                check_room(entries, &session)?;
                let reservation = Reservation {
                    file_path: pattern.text.clone(),
                    session: session.clone(),
                    mode,
                    change_type: change_type.clone(),
                    description: description.clone(),
                    locked_at,
                    expires_at,
                };
                entries.push(reservation.clone());
                Ok(reservation)
            })
            .await?;
        let change = FileChange {
            session,
            file_path: reservation.file_path.clone(),
            change_type,
            description,
            timestamp: now(),
        };
        self.records()
            .put(&collection::changes(&project), &new_id("change"), &change)
            .keep_newest(RECENT_CHANGES)
            .await
            .map_err(store_failed)?;
        Ok(Locked {
            status: "locked".into(),
            file_path: reservation.file_path,
            mode,
            expires_at,
            message: "File locked successfully. Remember to release when done.".into(),
        })
    }
}

/// The longest a reservation lasts without being announced again.
const MAX_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// Since when `session` holds `pattern` (now, for a new reservation), or the conflict with
/// another agent's overlapping reservation that `mode` cannot share.
fn locked_since(
    entries: &[Reservation],
    pattern: &Pattern,
    rules: PathRules,
    session: &str,
    mode: ReservationMode,
) -> Result<DateTime<Utc>, SkillError> {
    let mut locked_at = now();
    for other in entries {
        let overlaps = match Pattern::stored(&other.file_path, rules) {
            Some(other) => other.overlaps(pattern),
            // Stored before paths were checked as they are now: it stands in the way of every
            // reservation until its holder releases it or it lapses.
            None => true,
        };
        if !overlaps {
            continue;
        }
        if other.session == session {
            if pattern.is(&other.file_path, rules) {
                locked_at = other.locked_at;
            }
        } else if !compatible(mode, other.mode) {
            return Err(conflict(other));
        }
    }
    Ok(locked_at)
}

/// Refuses a new reservation of `session` when it, or its project, holds the most it may: the
/// writer is told, and nobody's reservation is dropped to make room.
fn check_room(entries: &[Reservation], session: &str) -> Result<(), SkillError> {
    let own = entries.iter().filter(|r| r.session == session).count();
    if own >= MAX_RESERVATIONS_PER_SESSION {
        return Err(failure(
            "limit_reached",
            format!(
                "{session} holds {own} reservations, the most one agent may; release some \
                 (or reserve a glob covering several files)"
            ),
            json!({ "limit": MAX_RESERVATIONS_PER_SESSION }),
        ));
    }
    if entries.len() >= MAX_RESERVATIONS_PER_PROJECT {
        return Err(failure(
            "limit_reached",
            format!(
                "the project holds {} reservations, the most it may; wait for some to be \
                 released",
                entries.len()
            ),
            json!({ "limit": MAX_RESERVATIONS_PER_PROJECT }),
        ));
    }
    Ok(())
}

/// The seed's `conflict`: who holds what overlaps, and what to do.
pub(crate) fn conflict(holder: &Reservation) -> SkillError {
    failure(
        "conflict",
        format!(
            "File is locked by {} ({})",
            holder.session, holder.file_path
        ),
        json!({
            "lock_info": holder,
            "suggestion": "Query that agent about their progress or wait",
        }),
    )
}

/// What `release_file_lock` answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Released {
    /// `released`.
    pub status: String,
    /// The path or glob released.
    pub file_path: String,
}

/// Releases a file reservation after completing the changes.
#[skill(agent = Hub)]
pub async fn release_file_lock(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// Path (or glob) of the reservation, as announced.
    file_path: String,
) -> Result<Released, SkillError> {
    let project_id = hub.project(project_id)?;
    let rules = hub.settings().paths;
    let pattern = Pattern::new(&file_path, rules)?;
    let acting = Some((&caller, session_name.as_str()));
    let released = hub
        .change_reservations(&project_id, acting, |entries| {
            let before = entries.len();
            entries.retain(|r| !(r.session == session_name && pattern.is(&r.file_path, rules)));
            Ok(entries.len() < before)
        })
        .await?;
    if !released {
        return Err(failure(
            "not_found",
            format!("{session_name} holds no reservation on {}", pattern.text),
            json!({}),
        ));
    }
    Ok(Released {
        status: "released".into(),
        file_path: pattern.text,
    })
}

/// Gets recent file changes announced across all agents in the project, newest first.
#[skill(agent = Hub, read_only = true)]
pub async fn get_recent_changes(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Maximum number of changes to return (default 20).
    limit: Option<usize>,
) -> Result<Vec<FileChange>, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.records()
        .list(&collection::changes(&project_id), Some(limit.unwrap_or(20)))
        .await
        .map_err(store_failed)
}
