//! The hub's settings, and where a stdio hub leaves them for the commands of its repository:
//! the hooks run as processes of their own, without the flags the MCP host started the hub
//! with, yet must compare paths (case) and hold reservations (TTL) as that hub does. A stdio hub
//! writes its settings under its project when it starts; a hook opening the same records reads
//! them back (an HTTP hub applies its own, since a hook calls it).

use std::time::Duration;

use a2a_runtime::records::Records;
use serde::{Deserialize, Serialize};

use crate::PathRules;

/// The collection a project's settings are kept in, one record.
fn collection(project: &str) -> String {
    format!("hub/{project}/settings")
}

/// The one record's key.
const KEY: &str = "current";

/// How the hub behaves: how long agents and reservations live, how long a question may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// An agent that sends no heartbeat for this long is reaped, and its reservations released.
    pub heartbeat_ttl: Duration,
    /// How long a file reservation lasts unless announced again.
    pub reservation_ttl: Duration,
    /// The longest a `query_agent` may wait for its answer.
    pub max_wait: Duration,
    /// How many messages an inbox holds: past it, the oldest messages its agent has read make
    /// room; an inbox full of unread messages refuses new ones (the sender is told).
    pub inbox_size: usize,
    /// How paths and globs of file reservations are compared.
    pub paths: PathRules,
    /// The most todos one agent holds in a project.
    pub max_todos_per_session: usize,
    /// The most todos a project holds.
    pub max_todos_per_project: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            heartbeat_ttl: Duration::from_secs(120),
            reservation_ttl: Duration::from_secs(3600),
            max_wait: Duration::from_secs(600),
            inbox_size: 500,
            paths: PathRules::default(),
            max_todos_per_session: 1_000,
            max_todos_per_project: 10_000,
        }
    }
}

impl Settings {
    /// Leaves these settings for the commands of `project` (the hooks), replacing any before.
    pub async fn save(
        &self,
        records: &Records,
        project: &str,
    ) -> Result<(), a2a_runtime::records::RecordError> {
        records
            .put(&collection(project), KEY, self)
            .await
            .map(|_| ())
    }

    /// The settings a hub of `project` left, else the defaults (no stdio hub of it has run, or
    /// its record cannot be read: a hook must still act).
    pub async fn saved(records: &Records, project: &str) -> Settings {
        match records.get(&collection(project), KEY).await {
            Ok(Some(settings)) => settings,
            _ => Settings::default(),
        }
    }
}
