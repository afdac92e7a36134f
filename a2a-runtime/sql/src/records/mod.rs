//! [`Records`]: an agent's own durable state, as JSON documents under a collection and a key,
//! beside its tasks: in a SQLite file (by default under the data directory `serve()` uses, so
//! state survives restarts, and `--stdio` hosts that start a process per session share it), in
//! Postgres (shared by the replicas of a server), or in memory. For what an agent keeps across calls (a registry, a cache, bookings), not for
//! task state, which the task store holds.

use std::collections::HashMap;
use std::path::Path;
#[cfg(feature = "sqlite")]
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;

#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

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
    #[cfg(feature = "sqlite")]
    Sqlite(sqlite::SqliteRecords),
    #[cfg(feature = "postgres")]
    Postgres(postgres::PgRecords),
}

/// Durable JSON documents, by collection and key. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct Records {
    backend: Arc<Backend>,
}

impl Records {
    /// Records kept in memory, lost when the process ends.
    pub fn memory() -> Self {
        Self::with(Backend::Memory(Mutex::new(HashMap::new())))
    }

    fn with(backend: Backend) -> Self {
        Self {
            backend: Arc::new(backend),
        }
    }

    /// Records in the SQLite file at `path` (created, with its directory, if missing).
    #[cfg(feature = "sqlite")]
    pub async fn sqlite(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        Ok(Self::with(Backend::Sqlite(
            sqlite::SqliteRecords::open(path.as_ref()).await?,
        )))
    }

    /// Records in the Postgres database at `url` (a table `a2a_records`, created if missing),
    /// which every replica using that database shares.
    #[cfg(feature = "postgres")]
    pub async fn postgres(url: &str) -> Result<Self, RecordError> {
        Ok(Self::with(Backend::Postgres(
            postgres::PgRecords::connect(url).await?,
        )))
    }

    /// The records of the agent named `agent_name` where `serve()` keeps its tasks by default:
    /// `records.sqlite3` beside `tasks.sqlite3` in the agent's directory under `A2A_DATA_DIR`
    /// (else `$XDG_DATA_HOME/a2a-runtime`, else `~/.local/share/a2a-runtime`).
    #[cfg(feature = "sqlite")]
    pub async fn for_agent(agent_name: &str) -> Result<Self, RecordError> {
        let dir = std::env::var_os("A2A_DATA_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        let path =
            a2a_runtime_core::data_dir::agent_data_dir(dir, agent_name).join("records.sqlite3");
        Self::sqlite(path).await
    }

    /// The SQLite file, unless the records are elsewhere.
    pub fn path(&self) -> Option<&Path> {
        match &*self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => Some(&sqlite.path),
            _ => None,
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
                Ok(())
            }
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.put(collection, key, json, now).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(postgres) => postgres.put(collection, key, json, now).await,
        }
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
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.get(collection, key).await?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(postgres) => postgres.get(collection, key).await?,
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
        let sql_limit = i64::try_from(limit).unwrap_or(i64::MAX);
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
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.list(collection, sql_limit).await?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(postgres) => postgres.list(collection, sql_limit).await?,
        };
        rows.iter()
            .map(|(key, json)| read(collection, key, json))
            .collect()
    }

    /// Removes the value under `collection` and `key`; whether there was one. Of several
    /// callers removing one record at once, exactly one is told it was there: a record can be
    /// redeemed once.
    pub async fn delete(&self, collection: &str, key: &str) -> Result<bool, RecordError> {
        match &*self.backend {
            Backend::Memory(map) => {
                let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(map.remove(&(collection.into(), key.into())).is_some())
            }
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.delete(collection, key).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(postgres) => postgres.delete(collection, key).await,
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
