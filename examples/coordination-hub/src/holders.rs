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
        let (mut yours, mut shared) = (None, None);
        for reservation in held {
            let overlaps = Pattern::stored(&reservation.file_path, rules)
                .is_none_or(|stored| stored.overlaps(&pattern));
            if !overlaps {
                continue;
            }
            if reservation.session == session {
                yours.get_or_insert(reservation);
            } else if reservation.mode == ReservationMode::Exclusive {
                return Err(conflict(&reservation));
            } else {
                shared.get_or_insert(reservation);
            }
        }
        // Others sharing it: editing it takes a shared reservation of one's own.
        if let (None, Some(other)) = (&yours, &shared) {
            return Err(conflict(other));
        }
        Ok(FileCheck {
            status: if yours.is_some() { "yours" } else { "free" }.into(),
            file_path: pattern.text,
            reservation: yours,
        })
    }
}
