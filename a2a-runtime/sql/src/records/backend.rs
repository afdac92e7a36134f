//! What a place records are kept in does, one implementation per database (memory, a SQLite
//! file, a Postgres database): [`Records`](super::Records) holds one behind this trait, as sqlx
//! holds a driver behind its own, so a new database is one more implementation, not one more
//! arm in every operation.

use std::sync::{Arc, Weak};

use a2a_runtime_types::util::BoxFuture;

use super::changes::Feed;
use super::{Inner, RecordError, Row, Write, Written};
use crate::usage::{UsageError, UsageStore};
use a2a_runtime_core::task::{StoreError, TaskStore};

/// The rows a sweep removed: each expired record's collection and key.
pub(crate) type Expired = Vec<(String, String)>;

/// See the module docs. Times are microseconds since the epoch; `origin` names this process's
/// writes, so it knows its own changes when the database reports them back.
pub(crate) trait Backend: std::fmt::Debug + Send + Sync + 'static {
    /// The live record under `collection` and `key`.
    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<Option<Row>, RecordError>>;

    /// The live records of `collection`, newest first, at most `limit`.
    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
        now: i64,
    ) -> BoxFuture<'a, Result<Vec<Row>, RecordError>>;

    /// How many live records of `collection` have a key starting with `prefix`. This default
    /// reads the collection; a database with its keys in order counts the range alone.
    fn count<'a>(
        &'a self,
        collection: &'a str,
        prefix: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<usize, RecordError>> {
        Box::pin(async move {
            let rows = self.list(collection, usize::MAX, now).await?;
            Ok(rows
                .iter()
                .filter(|row| row.key.starts_with(prefix))
                .count())
        })
    }

    /// Removes the record (only at `version`, when given); whether it was there.
    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        version: Option<u64>,
        now: i64,
        origin: i64,
    ) -> BoxFuture<'a, Result<bool, RecordError>>;

    /// Makes `write`.
    fn write<'a>(&'a self, write: &'a Write<'a>) -> BoxFuture<'a, Result<Written, RecordError>>;

    /// Removes what has expired.
    fn sweep(&self, now: i64, origin: i64) -> BoxFuture<'_, Result<Expired, RecordError>>;

    /// Starts following the changes others sharing the database make, for `inner`'s watchers.
    fn follow(&self, _inner: Weak<Inner>, _origin: i64) -> BoxFuture<'_, Result<(), RecordError>> {
        Box::pin(async { Ok(()) })
    }

    /// What the background task does at each tick besides sweeping: hands `feed` the changes
    /// other processes made, and on a sweep's tick (`sweeping`) tidies up.
    fn tick<'a>(&'a self, _feed: &'a Feed, _sweeping: bool) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }

    /// The usage store beside these records, in the same database and through the same
    /// connections; in memory beside memory records.
    fn usage(&self) -> BoxFuture<'_, Result<UsageStore, UsageError>> {
        Box::pin(async { Ok(UsageStore::memory()) })
    }

    /// The task store in the same database and through the same connections, for a database
    /// replicas share, its replicas holding leases of `lease` (the store's default when
    /// `None`); `None` where tasks are kept apart.
    fn tasks(
        &self,
        _lease: Option<std::time::Duration>,
    ) -> Option<BoxFuture<'_, Result<Arc<dyn TaskStore>, StoreError>>> {
        None
    }
}

impl Backend for super::memory::MemoryRecords {
    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<Option<Row>, RecordError>> {
        let row = Self::get(self, collection, key, now);
        Box::pin(async move { Ok(row) })
    }

    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
        now: i64,
    ) -> BoxFuture<'a, Result<Vec<Row>, RecordError>> {
        let rows = Self::list(self, collection, limit, now);
        Box::pin(async move { Ok(rows) })
    }

    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        version: Option<u64>,
        now: i64,
        _origin: i64,
    ) -> BoxFuture<'a, Result<bool, RecordError>> {
        let removed = Self::delete(self, collection, key, version, now);
        Box::pin(async move { Ok(removed) })
    }

    fn write<'a>(&'a self, write: &'a Write<'a>) -> BoxFuture<'a, Result<Written, RecordError>> {
        let written = Self::write(self, write);
        Box::pin(async move { Ok(written) })
    }

    fn sweep(&self, now: i64, _origin: i64) -> BoxFuture<'_, Result<Expired, RecordError>> {
        let expired = Self::sweep(self, now);
        Box::pin(async move { Ok(expired) })
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
/// The operations a SQL database's records implement as inherent `async fn`s of the same names
/// (a list's limit as SQL's `i64`).
macro_rules! sql_operations {
    () => {
        fn get<'a>(
            &'a self,
            collection: &'a str,
            key: &'a str,
            now: i64,
        ) -> BoxFuture<'a, Result<Option<Row>, RecordError>> {
            Box::pin(Self::get(self, collection, key, now))
        }

        fn list<'a>(
            &'a self,
            collection: &'a str,
            limit: usize,
            now: i64,
        ) -> BoxFuture<'a, Result<Vec<Row>, RecordError>> {
            Box::pin(Self::list(self, collection, super::sql_limit(limit), now))
        }

        fn delete<'a>(
            &'a self,
            collection: &'a str,
            key: &'a str,
            version: Option<u64>,
            now: i64,
            origin: i64,
        ) -> BoxFuture<'a, Result<bool, RecordError>> {
            Box::pin(Self::delete(self, collection, key, version, now, origin))
        }

        fn write<'a>(
            &'a self,
            write: &'a Write<'a>,
        ) -> BoxFuture<'a, Result<Written, RecordError>> {
            Box::pin(Self::write(self, write))
        }

        fn sweep(&self, now: i64, origin: i64) -> BoxFuture<'_, Result<Expired, RecordError>> {
            Box::pin(Self::sweep(self, now, origin))
        }

        fn count<'a>(
            &'a self,
            collection: &'a str,
            prefix: &'a str,
            now: i64,
        ) -> BoxFuture<'a, Result<usize, RecordError>> {
            Box::pin(Self::count(self, collection, prefix, now))
        }
    };
}

#[cfg(feature = "sqlite")]
impl Backend for super::sqlite::SqliteRecords {
    sql_operations!();

    fn follow(&self, _inner: Weak<Inner>, _origin: i64) -> BoxFuture<'_, Result<(), RecordError>> {
        Box::pin(Self::follow(self))
    }

    fn tick<'a>(&'a self, feed: &'a Feed, sweeping: bool) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if sweeping {
                self.trim_log(super::now_us()).await;
            }
            self.poll(feed).await;
        })
    }

    fn usage(&self) -> BoxFuture<'_, Result<UsageStore, UsageError>> {
        Box::pin(Self::usage(self))
    }
}

#[cfg(feature = "postgres")]
impl Backend for super::postgres::PgRecords {
    sql_operations!();

    fn follow(&self, inner: Weak<Inner>, origin: i64) -> BoxFuture<'_, Result<(), RecordError>> {
        Box::pin(self.listen(inner, origin))
    }

    fn usage(&self) -> BoxFuture<'_, Result<UsageStore, UsageError>> {
        Box::pin(Self::usage(self))
    }

    fn tasks(
        &self,
        lease: Option<std::time::Duration>,
    ) -> Option<BoxFuture<'_, Result<Arc<dyn TaskStore>, StoreError>>> {
        Some(Box::pin(Self::tasks(self, lease)))
    }
}

/// The first key after every key starting with `prefix`, in byte order: `prefix` with its last
/// character moved one on (`None` when every key starting there follows it, as for an empty
/// prefix).
pub(super) fn key_after_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = (u32::from(last) + 1..=0x10_FFFF).find_map(char::from_u32) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}
