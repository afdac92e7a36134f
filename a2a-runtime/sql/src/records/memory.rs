//! Records in memory: one map under one lock, so every conditional write is atomic.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::{Condition, Row, Write, Written};

#[derive(Debug, Clone)]
struct Stored {
    json: String,
    version: i64,
    updated_us: i64,
    expires_us: Option<i64>,
}

impl Stored {
    fn live(&self, now: i64) -> bool {
        self.expires_us.is_none_or(|at| at > now)
    }

    fn row(&self, key: &str) -> Row {
        Row {
            key: key.to_owned(),
            json: self.json.clone(),
            version: self.version,
            updated_us: self.updated_us,
            expires_us: self.expires_us,
        }
    }
}

#[derive(Debug, Default)]
struct State {
    records: HashMap<(String, String), Stored>,
    /// The last version given.
    clock: i64,
}

/// The map and its version clock.
#[derive(Debug, Default)]
pub(crate) struct MemoryRecords {
    state: Mutex<State>,
}

impl MemoryRecords {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every update completes before it could panic, so a poisoned map is consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self, write: &Write<'_>) -> Written {
        let mut state = self.state();
        let id = (write.collection.to_owned(), write.key.to_owned());
        let current = state
            .records
            .get(&id)
            .filter(|stored| stored.live(write.now_us))
            .map(|stored| stored.version);
        let allowed = match write.condition {
            Condition::Any => true,
            Condition::Absent => current.is_none(),
            Condition::Version(version) => current == i64::try_from(version).ok(),
        };
        if !allowed {
            return Written::Refused {
                current: current.and_then(|v| u64::try_from(v).ok()),
            };
        }
        if let Some(limit) = write.at_most
            && current.is_none()
            && live_in(&state, write.collection, write.now_us) >= limit
        {
            return Written::Full;
        }
        state.clock += 1;
        let version = state.clock;
        state.records.insert(
            id,
            Stored {
                json: write.json.clone(),
                version,
                updated_us: write.now_us,
                expires_us: write.expires_us,
            },
        );
        let trimmed = match write.keep {
            Some(keep) => trim(&mut state, write.collection, keep),
            None => Vec::new(),
        };
        Written::Stored {
            version: u64::try_from(version).unwrap_or_default(),
            trimmed,
        }
    }

    pub(crate) fn get(&self, collection: &str, key: &str, now: i64) -> Option<Row> {
        let state = self.state();
        let id = (collection.to_owned(), key.to_owned());
        state
            .records
            .get(&id)
            .filter(|stored| stored.live(now))
            .map(|stored| stored.row(key))
    }

    pub(crate) fn list(&self, collection: &str, limit: usize, now: i64) -> Vec<Row> {
        let state = self.state();
        let mut rows: Vec<Row> = state
            .records
            .iter()
            .filter(|((c, _), stored)| c == collection && stored.live(now))
            .map(|((_, key), stored)| stored.row(key))
            .collect();
        rows.sort_by_key(|row| std::cmp::Reverse(row.version));
        rows.truncate(limit);
        rows
    }

    pub(crate) fn delete(
        &self,
        collection: &str,
        key: &str,
        version: Option<u64>,
        now: i64,
    ) -> bool {
        let mut state = self.state();
        let id = (collection.to_owned(), key.to_owned());
        let Some(stored) = state.records.get(&id) else {
            return false;
        };
        let live = stored.live(now);
        if version.is_some_and(|v| i64::try_from(v).ok() != Some(stored.version)) {
            return false;
        }
        state.records.remove(&id);
        live
    }

    /// Deletes what expired by `now`: their collections and keys.
    pub(crate) fn sweep(&self, now: i64) -> Vec<(String, String)> {
        let mut state = self.state();
        let expired: Vec<(String, String)> = state
            .records
            .iter()
            .filter(|(_, stored)| !stored.live(now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            state.records.remove(id);
        }
        expired
    }
}

/// How many live records `collection` holds.
fn live_in(state: &State, collection: &str, now: i64) -> usize {
    state
        .records
        .iter()
        .filter(|((c, _), stored)| c == collection && stored.live(now))
        .count()
}

/// Drops all but the `keep` newest records of `collection`: their keys.
fn trim(state: &mut State, collection: &str, keep: usize) -> Vec<String> {
    let mut versions: Vec<(i64, String)> = state
        .records
        .iter()
        .filter(|((c, _), _)| c == collection)
        .map(|((_, key), stored)| (stored.version, key.clone()))
        .collect();
    if versions.len() <= keep.max(1) {
        return Vec::new();
    }
    versions.sort_unstable_by_key(|(version, _)| std::cmp::Reverse(*version));
    let gone: Vec<String> = versions
        .split_off(keep)
        .into_iter()
        .map(|(_, key)| key)
        .collect();
    for key in &gone {
        state.records.remove(&(collection.to_owned(), key.clone()));
    }
    gone
}
