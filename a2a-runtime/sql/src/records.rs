//! [`Records`]: an agent's own durable state, as JSON documents under a collection and a key,
//! beside its tasks: in a SQLite file (by default under the data directory `serve()` uses, so
//! state survives restarts, and `--stdio` hosts that start a process per session share it) or
//! in memory. For what an agent keeps across calls (a registry, a cache, bookings), not for
//! task state, which the task store holds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

/// Why a record could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The database failed.
    #[error("the record store failed: {0}")]
    Backend(String),
    /// A value could not be written as JSON, or a stored one read as the type asked for.
    #[error("record `{collection}/{key}`: {reason}")]
    Json {
        /// The collection.
        collection: String,
        /// The key.
        key: String,
        /// What went wrong.
        reason: String,
    },
}

fn backend(error: impl std::fmt::Display) -> RecordError {
    RecordError::Backend(error.to_string())
}

/// A document as stored: its JSON and when it was last written (microseconds, for ordering).
type Stored = (String, i64);

#[derive(Debug)]
enum Backend {
    Memory(Mutex<HashMap<(String, String), Stored>>),
    Sqlite { pool: SqlitePool, path: PathBuf },
}

/// Durable JSON documents, by collection and key. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct Records {
    backend: Arc<Backend>,
}

impl Records {
    /// Records kept in memory, lost when the process ends.
    pub fn memory() -> Self {
        Self {
            backend: Arc::new(Backend::Memory(Mutex::new(HashMap::new()))),
        }
    }

    /// Records in the SQLite file at `path` (created, with its directory, if missing).
    pub async fn sqlite(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref().to_owned();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| backend(format!("cannot create {}: {e}", dir.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(backend)?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS records (
                collection TEXT NOT NULL,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                updated_us INTEGER NOT NULL,
                PRIMARY KEY (collection, key)
            )",
        )
        .execute(&pool)
        .await
        .map_err(backend)?;
        Ok(Self {
            backend: Arc::new(Backend::Sqlite { pool, path }),
        })
    }

    /// The records of the agent named `agent_name` where `serve()` keeps its tasks by default:
    /// `records.sqlite3` beside `tasks.sqlite3` in the agent's directory under `A2A_DATA_DIR`
    /// (else `$XDG_DATA_HOME/a2a-runtime`, else `~/.local/share/a2a-runtime`).
    pub async fn for_agent(agent_name: &str) -> Result<Self, RecordError> {
        let dir = std::env::var_os("A2A_DATA_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        let path =
            a2a_runtime_core::data_dir::agent_data_dir(dir, agent_name).join("records.sqlite3");
        Self::sqlite(path).await
    }

    /// The SQLite file, unless the records are in memory.
    pub fn path(&self) -> Option<&Path> {
        match &*self.backend {
            Backend::Memory(_) => None,
            Backend::Sqlite { path, .. } => Some(path),
        }
    }

    /// Stores `value` under `collection` and `key`, replacing what was there.
    pub async fn put<T: Serialize>(
        &self,
        collection: &str,
        key: &str,
        value: &T,
    ) -> Result<(), RecordError> {
        let json = serde_json::to_string(value).map_err(|e| RecordError::Json {
            collection: collection.into(),
            key: key.into(),
            reason: format!("cannot be written as JSON: {e}"),
        })?;
        let now = chrono::Utc::now().timestamp_micros();
        match &*self.backend {
            Backend::Memory(map) => {
                let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
                map.insert((collection.into(), key.into()), (json, now));
            }
            Backend::Sqlite { pool, .. } => {
                sqlx::query(
                    "INSERT INTO records (collection, key, value, updated_us) VALUES (?, ?, ?, ?)
                     ON CONFLICT (collection, key)
                     DO UPDATE SET value = excluded.value, updated_us = excluded.updated_us",
                )
                .bind(collection)
                .bind(key)
                .bind(json)
                .bind(now)
                .execute(pool)
                .await
                .map_err(backend)?;
            }
        }
        Ok(())
    }

    /// The value under `collection` and `key`, if there is one.
    pub async fn get<T: DeserializeOwned>(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<T>, RecordError> {
        let json: Option<String> = match &*self.backend {
            Backend::Memory(map) => {
                let map = map.lock().unwrap_or_else(PoisonError::into_inner);
                map.get(&(collection.into(), key.into()))
                    .map(|(json, _)| json.clone())
            }
            Backend::Sqlite { pool, .. } => {
                sqlx::query_scalar("SELECT value FROM records WHERE collection = ? AND key = ?")
                    .bind(collection)
                    .bind(key)
                    .fetch_optional(pool)
                    .await
                    .map_err(backend)?
            }
        };
        json.map(|json| read(collection, key, &json)).transpose()
    }

    /// The values of `collection`, the most recently written first, at most `limit`.
    pub async fn list<T: DeserializeOwned>(
        &self,
        collection: &str,
        limit: Option<usize>,
    ) -> Result<Vec<T>, RecordError> {
        let limit = limit.unwrap_or(usize::MAX);
        let rows: Vec<(String, String)> = match &*self.backend {
            Backend::Memory(map) => {
                let map = map.lock().unwrap_or_else(PoisonError::into_inner);
                let mut rows: Vec<_> = map
                    .iter()
                    .filter(|((c, _), _)| c == collection)
                    .map(|((_, key), (json, at))| (*at, key.clone(), json.clone()))
                    .collect();
                rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                rows.into_iter()
                    .take(limit)
                    .map(|(_, key, json)| (key, json))
                    .collect()
            }
            Backend::Sqlite { pool, .. } => sqlx::query_as(
                "SELECT key, value FROM records WHERE collection = ?
                 ORDER BY updated_us DESC, key LIMIT ?",
            )
            .bind(collection)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(pool)
            .await
            .map_err(backend)?,
        };
        rows.iter()
            .map(|(key, json)| read(collection, key, json))
            .collect()
    }

    /// Removes the value under `collection` and `key`; whether there was one.
    pub async fn delete(&self, collection: &str, key: &str) -> Result<bool, RecordError> {
        match &*self.backend {
            Backend::Memory(map) => {
                let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(map.remove(&(collection.into(), key.into())).is_some())
            }
            Backend::Sqlite { pool, .. } => {
                let done = sqlx::query("DELETE FROM records WHERE collection = ? AND key = ?")
                    .bind(collection)
                    .bind(key)
                    .execute(pool)
                    .await
                    .map_err(backend)?;
                Ok(done.rows_affected() > 0)
            }
        }
    }
}

fn read<T: DeserializeOwned>(collection: &str, key: &str, json: &str) -> Result<T, RecordError> {
    serde_json::from_str(json).map_err(|e| RecordError::Json {
        collection: collection.into(),
        key: key.into(),
        reason: format!("is not the type asked for: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn round_trip(records: &Records) {
        records
            .put("agents", "a", &serde_json::json!({"n": 1}))
            .await
            .unwrap();
        records
            .put("agents", "b", &serde_json::json!({"n": 2}))
            .await
            .unwrap();
        records
            .put("agents", "a", &serde_json::json!({"n": 3}))
            .await
            .unwrap();
        records
            .put("tasks", "a", &serde_json::json!({"n": 9}))
            .await
            .unwrap();
        let a: Option<serde_json::Value> = records.get("agents", "a").await.unwrap();
        assert_eq!(a, Some(serde_json::json!({"n": 3})));
        let listed: Vec<serde_json::Value> = records.list("agents", None).await.unwrap();
        assert_eq!(
            listed,
            [serde_json::json!({"n": 3}), serde_json::json!({"n": 2})]
        );
        let one: Vec<serde_json::Value> = records.list("agents", Some(1)).await.unwrap();
        assert_eq!(one.len(), 1);
        assert!(records.delete("agents", "b").await.unwrap());
        assert!(!records.delete("agents", "b").await.unwrap());
        let wrong = records.get::<u64>("agents", "a").await.unwrap_err();
        assert!(wrong.to_string().contains("agents/a"), "{wrong}");
    }

    #[tokio::test]
    async fn memory_and_sqlite_records_keep_list_and_delete_the_same_way() {
        round_trip(&Records::memory()).await;
        let dir =
            std::env::temp_dir().join(format!("records-{}", a2a_runtime_types::model::new_id()));
        let path = dir.join("records.sqlite3");
        round_trip(&Records::sqlite(&path).await.unwrap()).await;
        // Written values outlive the handle.
        let again = Records::sqlite(&path).await.unwrap();
        let a: Option<serde_json::Value> = again.get("agents", "a").await.unwrap();
        assert_eq!(a, Some(serde_json::json!({"n": 3})));
        let _ = std::fs::remove_dir_all(dir);
    }
}
