//! Who holds a path: `check_file`, which an agent (or the pre-edit hook acting for it) asks
//! before touching a file, without reserving anything.

use a2a_runtime::prelude::*;

use crate::files::conflict;
use crate::model::{Reservation, ReservationMode};
use crate::reservations::Pattern;
use crate::{Hub, HubClient, checked};

/// What `check_file` answers when no other agent's reservation stands in the way.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FileCheck {
    /// `free` (nobody's reservation covers it) or `yours` (one of the session's does).
    pub status: String,
    /// The path asked about, normalized, as the pattern that names that file alone (a glob
    /// character in its name written as a class: `app/[[]id[]]/page.tsx`).
    pub file_path: String,
    /// The session's reservation covering it, when `yours`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Reservation>,
}

/// Checks whether `session_name` may edit `file_path` now: `free`, `yours` (one of its
/// reservations covers it), or a `conflict` error naming the agent whose reservation does.
/// Reserves nothing: call `announce_file_change` to hold it.
#[skill(agent = Hub, read_only = true)]
pub async fn check_file(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The session asking.
    session_name: String,
    /// The file's path, relative to the repository: a real file name, never a glob (`*`, `?`,
    /// brackets and braces in it are the characters themselves).
    file_path: String,
) -> Result<FileCheck, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.check_file(&project_id, &session_name, &file_path).await
}

/// The most files one `check_files` asks about.
pub const MAX_CHECKED_FILES: usize = 10_000;

/// A file another agent holds, as `check_files` reports it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HeldFile {
    /// The file, as asked.
    pub file_path: String,
    /// The other agent's reservation covering it (its `session` holds it).
    pub reservation: Reservation,
}

/// What `check_files` answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FilesCheck {
    /// Each file asked about that another agent holds (empty: the session may edit them all).
    pub held: Vec<HeldFile>,
}

/// Checks many files at once, as `check_file` checks one: which of `file_paths` another agent
/// holds, and who (hooks and git's pre-commit hook ask this of every changed file).
#[skill(agent = Hub, read_only = true)]
pub async fn check_files(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The session asking.
    session_name: String,
    /// The files' paths, relative to the repository (file names, never globs), at most 10000.
    file_paths: Vec<String>,
) -> Result<FilesCheck, SkillError> {
    let project_id = hub.project(project_id)?;
    let held = hub
        .held_by_others(&project_id, &session_name, &file_paths)
        .await?;
    Ok(FilesCheck { held })
}

/// Whose reservation decides whether `session` may edit the file `pattern` names: `Ok` with
/// the session's own covering it (if any), or `Err` with another agent's that stands in the
/// way.
fn verdict<'a>(
    held: &'a [Reservation],
    session: &str,
    pattern: &Pattern,
    rules: crate::PathRules,
) -> Result<Option<&'a Reservation>, &'a Reservation> {
    let (mut yours, mut shared) = (None, None);
    for reservation in held {
        let overlaps = Pattern::stored(&reservation.file_path, rules)
            .is_none_or(|stored| stored.overlaps(pattern));
        if !overlaps {
            continue;
        }
        if reservation.session == session {
            yours.get_or_insert(reservation);
        } else if reservation.mode == ReservationMode::Exclusive {
            return Err(reservation);
        } else {
            shared.get_or_insert(reservation);
        }
    }
    // Others sharing it: editing it takes a shared reservation of one's own.
    match (yours, shared) {
        (None, Some(other)) => Err(other),
        (yours, _) => Ok(yours),
    }
}

impl Hub {
    /// `check_file`, for callers in this process (the pre-edit hook over the shared data
    /// directory).
    pub async fn check_file(
        &self,
        project: &str,
        session: &str,
        file_path: &str,
    ) -> Result<FileCheck, SkillError> {
        checked("session_name", session)?;
        let rules = self.settings().paths;
        // A file's name, not a pattern: `app/[id]/page.tsx` is that one file.
        let pattern = Pattern::new(&crate::glob::escape(file_path), rules)?;
        let held = self.reservations(project).await?;
        let yours = verdict(&held, session, &pattern, rules).map_err(conflict)?;
        Ok(FileCheck {
            status: if yours.is_some() { "yours" } else { "free" }.into(),
            file_path: pattern.text,
            reservation: yours.cloned(),
        })
    }

    /// `check_files`, for callers in this process: the files of `file_paths` another agent
    /// holds, read from one look at the reservations.
    pub async fn held_by_others(
        &self,
        project: &str,
        session: &str,
        file_paths: &[String],
    ) -> Result<Vec<HeldFile>, SkillError> {
        checked("session_name", session)?;
        if file_paths.len() > MAX_CHECKED_FILES {
            return Err(SkillError::invalid_input(format!(
                "`file_paths` names {} files; at most {MAX_CHECKED_FILES} at once",
                file_paths.len()
            )));
        }
        let rules = self.settings().paths;
        let named = |(i, path): (usize, &String)| {
            Pattern::new(&crate::glob::escape(path), rules).map_err(|e| {
                SkillError::invalid_input(format!("`file_paths[{i}]`: {}", e.message()))
            })
        };
        let patterns = file_paths
            .iter()
            .enumerate()
            .map(named)
            .collect::<Result<Vec<_>, _>>()?;
        let held = self.reservations(project).await?;
        Ok(file_paths
            .iter()
            .zip(&patterns)
            .filter_map(|(path, pattern)| {
                let holder = verdict(&held, session, pattern, rules).err()?;
                Some(HeldFile {
                    file_path: path.clone(),
                    reservation: holder.clone(),
                })
            })
            .collect())
    }
}
