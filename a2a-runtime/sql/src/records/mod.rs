//! [`Records`]: an agent's own durable state, as JSON documents under a collection and a key,
//! beside its tasks: in a SQLite file (by default under the data directory `serve()` uses, so
//! state survives restarts, and `--stdio` hosts that start a process per session share it), in
//! Postgres (shared by the replicas of a server), or in memory. For what an agent keeps across
//! calls (a registry, a cache, bookings, who holds which lock), not for task state, which the
//! task store holds.
//!
//! Records coordinate as well as keep:
//!
//! - every record has a version, new at each write and never reused, so a write can be made
//!   only if the record is absent ([`Put::if_absent`]) or unchanged since it was read
//!   ([`Put::if_version`]): of concurrent writers exactly one wins, everywhere the records are
//!   shared;
//! - a record may expire ([`Put::ttl`]): it is gone for readers at once, and a sweep deletes it
//!   and announces it as [`ChangeKind::Expired`];
//! - a collection may be kept to its newest records ([`Put::keep_newest`]), or refuse new
//!   records once it holds a number of them ([`Put::at_most`]), so that no writer's records
//!   push out another's;
//! - every change is announced ([`Records::watch`]), including those other processes sharing
//!   the SQLite file make and those other replicas make in the Postgres database;
//! - [`Leases`] build exclusive, expiring, renewable holds on keys from the above.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;

mod backend;
mod background;
mod changes;
mod lease;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod put;
mod shared;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
mod sqlite_schema;

pub use changes::{Change, ChangeKind, Changes, Missed};
pub use lease::{Lease, LeaseError, Leases};
pub use put::Put;

use backend::Backend;
use changes::Feed;

/// The longest collection name or key, in bytes: a change must fit a Postgres notification.
pub const MAX_NAME_BYTES: usize = 1024;

/// How often expired records are swept by default.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

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
    /// A conditional write found the record otherwise than it required: present for
    /// [`Put::if_absent`], absent or at another version for [`Put::if_version`].
    #[error("record `{collection}/{key}` {}", conflict_text(*current))]
    Conflict {
        /// The collection.
        collection: String,
        /// The key.
        key: String,
        /// The record's version now, if it exists.
        current: Option<u64>,
    },
    /// A collection name or key is empty or longer than [`MAX_NAME_BYTES`].
    #[error("{0}")]
    InvalidName(String),
    /// A write bounded by [`Put::at_most`] would have added a record to a collection already
    /// holding `limit`; nothing was written, and nothing else was removed.
    #[error("collection `{collection}` already holds {limit} records, its limit")]
    Full {
        /// The collection.
        collection: String,
        /// How many records it may hold.
        limit: usize,
    },
}

fn conflict_text(current: Option<u64>) -> String {
    match current {
        Some(version) => format!("exists at version {version}"),
        None => "does not exist".to_owned(),
    }
}

fn backend(error: impl std::fmt::Display) -> RecordError {
    RecordError::Backend(error.to_string())
}

/// A record as read: its value with its key, version and times.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Entry<T> {
    /// The key in its collection.
    pub key: String,
    /// The value.
    pub value: T,
    /// The version the last write gave it: greater than any version written before in the
    /// same store, never reused.
    pub version: u64,
    /// When it was last written.
    pub updated_at: DateTime<Utc>,
    /// When it expires, if it does.
    pub expires_at: Option<DateTime<Utc>>,
}

/// A record as a backend keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) key: String,
    pub(crate) json: String,
    pub(crate) version: i64,
    pub(crate) updated_us: i64,
    pub(crate) expires_us: Option<i64>,
}

/// What a write requires of the record it replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Condition {
    /// Nothing.
    Any,
    /// That there be none (or only an expired one).
    Absent,
    /// That it exist, unexpired, at this version.
    Version(u64),
}

/// One write, as the backends take it.
#[derive(Debug)]
pub(crate) struct Write<'a> {
    pub(crate) collection: &'a str,
    pub(crate) key: &'a str,
    pub(crate) json: String,
    pub(crate) now_us: i64,
    pub(crate) expires_us: Option<i64>,
    pub(crate) condition: Condition,
    pub(crate) keep: Option<usize>,
    /// The most live records the collection may hold once written: a new key beyond it is
    /// refused ([`Written::Full`]); replacing a record is always allowed.
    pub(crate) at_most: Option<usize>,
    /// Who writes, so a process knows its own changes when they come back from the database.
    pub(crate) origin: i64,
}

/// What a write did.
#[derive(Debug)]
pub(crate) enum Written {
    /// Stored at `version`; `trimmed` are the keys its collection dropped to keep its newest.
    Stored { version: u64, trimmed: Vec<String> },
    /// Not stored: the record is at `current` (or absent).
    Refused { current: Option<u64> },
    /// Not stored: the collection holds [`Write::at_most`] records already.
    Full,
}

/// What every clone of one [`Records`] shares.
#[derive(Debug)]
struct Inner {
    backend: Box<dyn Backend>,
    /// The file the records are in, when they are in one.
    path: Option<PathBuf>,
    feed: Feed,
    background: background::Background,
}

/// Durable JSON documents, by collection and key. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct Records {
    inner: Arc<Inner>,
}

impl Records {
    /// Records kept in memory, lost when the process ends.
    pub fn memory() -> Self {
        Self::with(Box::new(memory::MemoryRecords::default()))
    }

    fn with(backend: Box<dyn Backend>) -> Self {
        Self::in_file(backend, None)
    }

    fn in_file(backend: Box<dyn Backend>, path: Option<PathBuf>) -> Self {
        let records = Self {
            inner: Arc::new(Inner {
                backend,
                path,
                feed: Feed::new(),
                background: background::Background::new(SWEEP_EVERY),
            }),
        };
        records.start();
        records
    }

    /// Records in the SQLite file at `path` (created, with its directory, if missing). Several
    /// processes may share the file: each sees the others' writes and is told of their changes.
    #[cfg(feature = "sqlite")]
    pub async fn sqlite(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref();
        let backend = Box::new(sqlite::SqliteRecords::open(path).await?);
        Ok(Self::in_file(backend, Some(path.to_owned())))
    }

    /// Records in the Postgres database at `url` (tables `a2a_records` and the sequence
    /// `a2a_record_clock`, created if missing), which every replica using that database shares;
    /// changes reach the other replicas as notifications on the channel `a2a_records`.
    #[cfg(feature = "postgres")]
    pub async fn postgres(url: &str) -> Result<Self, RecordError> {
        Ok(Self::with(Box::new(
            postgres::PgRecords::connect(url).await?,
        )))
    }

    /// The records of the SQLite file at `path` this process shares: every caller gets one
    /// handle (one writer connection, one background task) while any holds it, so what the
    /// server keeps beside its tasks (an agent's records, grants, usage) goes through one
    /// writer. [`sqlite`](Self::sqlite) opens a handle of its own, as another process would.
    #[cfg(feature = "sqlite")]
    pub async fn shared_sqlite(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref();
        let key = format!("sqlite:{}", shared::canonical(path)?.display());
        shared::get_or_open(key, Self::sqlite(path)).await
    }

    /// The records of the Postgres database at `url` this process shares, over one pool of
    /// `max_connections` (made by the first caller), which the task store and usage on that
    /// database take too ([`task_store_beside`](Self::task_store_beside),
    /// [`usage_beside`](Self::usage_beside)).
    #[cfg(feature = "postgres")]
    pub async fn shared_postgres(url: &str, max_connections: u32) -> Result<Self, RecordError> {
        let open = async {
            let connections = max_connections.max(2);
            let pool = crate::connect::postgres_pool(url, connections, "a2a-runtime").await;
            Ok(Self::with(Box::new(
                postgres::PgRecords::on(pool.map_err(backend)?).await?,
            )))
        };
        shared::get_or_open(format!("postgres:{url}"), open).await
    }

    /// The usage store beside these records: its tables in the same database, written through
    /// the same connections (the SQLite file's one writer, the Postgres pool); in memory beside
    /// memory records.
    pub async fn usage_beside(&self) -> Result<crate::UsageStore, crate::UsageError> {
        self.inner.backend.usage().await
    }

    /// The task store in the same database and through the same connections, for a database
    /// replicas share (Postgres); `None` where tasks are kept apart from the records (in
    /// memory, or a SQLite file of their own).
    pub async fn task_store_beside(
        &self,
    ) -> Option<
        Result<Arc<dyn a2a_runtime_core::task::TaskStore>, a2a_runtime_core::task::StoreError>,
    > {
        Some(self.inner.backend.tasks(None)?.await)
    }

    /// [`task_store_beside`](Self::task_store_beside), its replicas holding leases of `lease`
    /// (the Postgres store's `lease` option; the server's `--replica-lease`).
    pub async fn task_store_beside_leased(
        &self,
        lease: std::time::Duration,
    ) -> Option<
        Result<Arc<dyn a2a_runtime_core::task::TaskStore>, a2a_runtime_core::task::StoreError>,
    > {
        Some(self.inner.backend.tasks(Some(lease))?.await)
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

    /// Sweeps expired records every `every` (default one second) from now on: how late after
    /// its expiry a record's [`ChangeKind::Expired`] may be announced. Readers never see an
    /// expired record, swept or not.
    #[must_use]
    pub fn sweep_every(self, every: Duration) -> Self {
        self.inner.background.set_sweep_every(every);
        self
    }

    /// The SQLite file, unless the records are elsewhere.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// Stores `value` under `collection` and `key`, replacing what was there, and answers its
    /// new version. The write may be made conditional, expiring or bounding before it is
    /// awaited:
    ///
    /// ```no_run
    /// # use a2a_runtime_sql::records::{Records, RecordError};
    /// # use std::time::Duration;
    /// # async fn f(records: Records) -> Result<(), RecordError> {
    /// let version = records
    ///     .put("locks", "src/lib.rs", &"ann")
    ///     .if_absent()
    ///     .ttl(Duration::from_secs(60))
    ///     .await?;
    /// # let _ = version; Ok(()) }
    /// ```
    pub fn put<'a, T: Serialize + ?Sized>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: &'a T,
    ) -> Put<'a, T> {
        Put::new(self, collection, key, value)
    }

    /// The value under `collection` and `key`, if there is one (and it has not expired).
    pub async fn get<T: DeserializeOwned>(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<T>, RecordError> {
        Ok(self.entry(collection, key).await?.map(|entry| entry.value))
    }

    /// The record under `collection` and `key` with its version and times, if there is one.
    pub async fn entry<T: DeserializeOwned>(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<Entry<T>>, RecordError> {
        let now = now_us();
        let row = self.inner.backend.get(collection, key, now).await?;
        row.map(|row| entry(collection, row)).transpose()
    }

    /// The values of `collection`, the most recently written first, at most `limit`.
    pub async fn list<T: DeserializeOwned>(
        &self,
        collection: &str,
        limit: Option<usize>,
    ) -> Result<Vec<T>, RecordError> {
        let entries = self.entries(collection, limit).await?;
        Ok(entries.into_iter().map(|entry| entry.value).collect())
    }

    /// How many live records of `collection` have a key starting with `prefix` (`""`: all of
    /// them). In SQLite it costs the records counted, not the collection; elsewhere it reads
    /// the collection.
    pub async fn count(&self, collection: &str, prefix: &str) -> Result<usize, RecordError> {
        self.inner.backend.count(collection, prefix, now_us()).await
    }

    /// The records of `collection` with their versions and times, the most recently written
    /// first, at most `limit`.
    pub async fn entries<T: DeserializeOwned>(
        &self,
        collection: &str,
        limit: Option<usize>,
    ) -> Result<Vec<Entry<T>>, RecordError> {
        let limit = limit.unwrap_or(usize::MAX);
        let now = now_us();
        let rows = self.inner.backend.list(collection, limit, now).await?;
        rows.into_iter().map(|row| entry(collection, row)).collect()
    }

    /// Removes the value under `collection` and `key`; whether there was one. Of several
    /// callers removing one record at once, exactly one is told it was there: a record can be
    /// redeemed once.
    pub async fn delete(&self, collection: &str, key: &str) -> Result<bool, RecordError> {
        self.remove(collection, key, None).await
    }

    /// Removes the record under `collection` and `key` only if it is still at `version`;
    /// whether it was.
    pub async fn delete_if(
        &self,
        collection: &str,
        key: &str,
        version: u64,
    ) -> Result<bool, RecordError> {
        self.remove(collection, key, Some(version)).await
    }

    async fn remove(
        &self,
        collection: &str,
        key: &str,
        version: Option<u64>,
    ) -> Result<bool, RecordError> {
        check_names(collection, key)?;
        let now = now_us();
        let origin = self.inner.feed.origin();
        let backend = &self.inner.backend;
        let removed = backend
            .delete(collection, key, version, now, origin)
            .await?;
        if removed {
            self.inner
                .feed
                .publish(Change::new(collection, key, ChangeKind::Deleted));
        }
        Ok(removed)
    }

    /// Changes to the collections whose names start with `prefix` (`""` for all), from now
    /// on: each write, deletion and expiry, whichever process or replica made it. Subscribe
    /// before reading what you wait on, so a change in between is not lost.
    pub async fn watch(&self, prefix: &str) -> Result<Changes, RecordError> {
        let receiver = self.inner.feed.subscribe();
        let origin = self.inner.feed.origin();
        (self.inner.backend)
            .follow(Arc::downgrade(&self.inner), origin)
            .await?;
        Ok(Changes::new(receiver, prefix, self.clone()))
    }

    /// Deletes the records that have expired, announcing each; how many. The records sweep
    /// themselves in the background, so this is for tests and tools.
    pub async fn sweep(&self) -> Result<usize, RecordError> {
        let now = now_us();
        let origin = self.inner.feed.origin();
        let expired = self.inner.backend.sweep(now, origin).await?;
        let count = expired.len();
        for (collection, key) in expired {
            self.inner
                .feed
                .publish(Change::new(&collection, &key, ChangeKind::Expired));
        }
        Ok(count)
    }

    /// Leases on the keys of `collection`: exclusive holds that expire unless renewed.
    pub fn leases(&self, collection: impl Into<String>) -> Leases {
        Leases::new(self.clone(), collection.into())
    }

    /// Runs `write` on the backend and announces what it changed.
    async fn write(&self, write: Write<'_>) -> Result<u64, RecordError> {
        let (collection, key) = (write.collection, write.key);
        let written = self.inner.backend.write(&write).await?;
        match written {
            Written::Stored { version, trimmed } => {
                let feed = &self.inner.feed;
                feed.publish(Change::new(
                    collection,
                    key,
                    ChangeKind::Written { version },
                ));
                for gone in trimmed {
                    feed.publish(Change::new(collection, &gone, ChangeKind::Deleted));
                }
                Ok(version)
            }
            Written::Refused { current } => Err(RecordError::Conflict {
                collection: collection.to_owned(),
                key: key.to_owned(),
                current,
            }),
            Written::Full => Err(RecordError::Full {
                collection: collection.to_owned(),
                limit: write.at_most.unwrap_or_default(),
            }),
        }
    }

    /// Starts the sweep (and, for a shared file, the reading of other processes' changes), if
    /// there is a runtime to run it on; the operations start it otherwise.
    fn start(&self) {
        self.inner.background.start(&self.inner);
    }
}

/// Now, in microseconds since the epoch: the unit of every stored time.
pub(crate) fn now_us() -> i64 {
    Utc::now().timestamp_micros()
}

fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// Refuses an empty or overlong collection name or key.
fn check_names(collection: &str, key: &str) -> Result<(), RecordError> {
    for (what, name) in [("collection", collection), ("key", key)] {
        if name.is_empty() {
            return Err(RecordError::InvalidName(format!(
                "a record's {what} is empty"
            )));
        }
        if name.len() > MAX_NAME_BYTES {
            return Err(RecordError::InvalidName(format!(
                "a record's {what} is {} bytes long, over the limit of {MAX_NAME_BYTES}",
                name.len()
            )));
        }
    }
    Ok(())
}

fn entry<T: DeserializeOwned>(collection: &str, row: Row) -> Result<Entry<T>, RecordError> {
    let value = serde_json::from_str(&row.json).map_err(|e| RecordError::Json {
        collection: collection.into(),
        key: row.key.clone(),
        reason: format!("is not the type asked for: {e}"),
    })?;
    Ok(Entry {
        key: row.key,
        value,
        version: u64::try_from(row.version).unwrap_or_default(),
        updated_at: time(row.updated_us),
        expires_at: row.expires_us.map(time),
    })
}

fn time(us: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(us).unwrap_or_default()
}

#[cfg(test)]
mod tests;
