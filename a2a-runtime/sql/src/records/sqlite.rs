//! Records in a SQLite file, which several processes may share (coding agents each start their
//! own stdio server over one data directory).
//!
//! Each change is logged in `record_changes`, in its own transaction, for other processes to read
//! (a write by triggers, in its own statement); the log's sequence (`AUTOINCREMENT`, never
//! reused) is also the version a write gives its record. SQLite runs one write transaction at a time, so the log's order is the order of the
//! changes and a gap in it can only mean rows pruned before a reader got to them. Writes go
//! through one connection, so this process's writers queue for it rather than meet SQLite's
//! busy handler (which sleeps).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};

use sqlx::Row as _;
use sqlx::sqlite::{SqliteConnection, SqlitePool, SqlitePoolOptions};

use super::backend::key_after_prefix;
use super::changes::Feed;
use super::{Change, ChangeKind, Condition, RecordError, Row, Write, Written, backend};
use crate::usage::{UsageError, UsageStore};

/// How long the change log keeps a change: how long another process may fall behind.
const LOG_KEEPS_US: i64 = 10 * 60 * 1_000_000;

/// The most changes read from the log at once.
const POLL_BATCH: i64 = 512;

/// The version the next change gets: one past the change log's sequence (the trigger logging
/// the write takes that very number, moving the sequence on).
macro_rules! next_version {
    () => {
        "(SELECT seq + 1 FROM sqlite_sequence WHERE name = 'record_changes')"
    };
}

/// ` - ` the rows of collection `?1` in a key range that expired by `now` but are not swept
/// yet: found through the expiry index, whose entries are few whatever the collection's size.
macro_rules! expired_in_range {
    ($range:literal, $now:literal) => {
        concat!(
            " - (SELECT count(*) FROM records INDEXED BY records_by_expiry
                 WHERE expires_us IS NOT NULL AND expires_us <= ",
            $now,
            " AND collection = ?1 ",
            $range,
            ")"
        )
    };
}

/// An upsert's head; the statements below add what the record must be for it to be replaced.
macro_rules! upsert {
    ($guard:literal) => {
        concat!(
            "INSERT INTO records (collection, key, value, updated_us, origin, expires_us, version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ",
            next_version!(),
            ")
             ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value,
                updated_us = excluded.updated_us, origin = excluded.origin,
                version = excluded.version, expires_us = excluded.expires_us ",
            $guard,
            " RETURNING version"
        )
    };
}

const WRITE_ANY: &str = upsert!("WHERE ?7 IS NOT NULL");

const WRITE_ABSENT: &str =
    upsert!("WHERE records.expires_us IS NOT NULL AND records.expires_us <= ?7");

const WRITE_VERSION: &str = concat!(
    "UPDATE records SET value = ?3, updated_us = ?4, origin = ?5, expires_us = ?6, version = ",
    next_version!(),
    " WHERE collection = ?1 AND key = ?2 AND version = ?7
        AND (expires_us IS NULL OR expires_us > ?4)
     RETURNING version"
);

/// A row of the change log: sequence, collection, key, kind, origin.
type LoggedChange = (i64, String, String, String, i64);

/// The `records` table of one SQLite file, and the reading of its change log.
#[derive(Debug)]
pub(super) struct SqliteRecords {
    /// Reads.
    pool: SqlitePool,
    /// Writes: one connection.
    writer: SqlitePool,
    pub(super) path: PathBuf,
    /// The last change read from the log, while someone watches.
    cursor: tokio::sync::Mutex<Option<i64>>,
    /// When this process last wrote (microseconds since the epoch): the log is cut back only
    /// once writes pause.
    last_write_us: AtomicI64,
}

/// The write-ahead log's size past which it is cut back: SQLite truncates it to this after a
/// checkpoint that restarts it (`journal_size_limit`), and the records' background task
/// checkpoints and truncates it once writes pause, so a burst of writes does not leave a log of
/// its size behind for good.
const WAL_LIMIT_BYTES: u64 = 1024 * 1024;

/// How long writes must pause before the log is cut back.
const QUIET_US: i64 = 1_000_000;

impl SqliteRecords {
    pub(super) async fn open(path: &Path) -> Result<Self, RecordError> {
        let options = crate::connect::sqlite_file(path)
            .map_err(backend)?
            .pragma("journal_size_limit", WAL_LIMIT_BYTES.to_string());
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await
            .map_err(backend)?;
        super::sqlite_schema::migrate(&writer).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(backend)?;
        Ok(Self {
            pool,
            writer,
            path: path.to_owned(),
            cursor: tokio::sync::Mutex::new(None),
            last_write_us: AtomicI64::new(0),
        })
    }

    /// The usage store in this file, written through its one writer connection (writes from
    /// one process go through one connection) and read through its readers.
    pub(super) async fn usage(&self) -> Result<UsageStore, UsageError> {
        UsageStore::sqlite_on(self.writer.clone(), self.pool.clone()).await
    }

    /// Checkpoints the write-ahead log and truncates it, when it is over [`WAL_LIMIT_BYTES`]
    /// and this process has not written for [`QUIET_US`]: run by the background task. Readers
    /// in other processes may keep the checkpoint from finishing; it is tried again later.
    pub(super) async fn trim_log(&self, now_us: i64) {
        if now_us.saturating_sub(self.last_write_us.load(Ordering::Relaxed)) < QUIET_US {
            return;
        }
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let size = std::fs::metadata(&wal).map_or(0, |meta| meta.len());
        if size <= WAL_LIMIT_BYTES {
            return;
        }
        match sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.writer)
            .await
        {
            Ok(_) => tracing::debug!(size, "the records' write-ahead log was cut back"),
            Err(error) => tracing::debug!(%error, "the records' write-ahead log was not cut back"),
        }
    }

    pub(super) async fn write(&self, write: &Write<'_>) -> Result<Written, RecordError> {
        self.last_write_us.store(write.now_us, Ordering::Relaxed);
        let (statement, expected) = match write.condition {
            Condition::Any => (WRITE_ANY, write.now_us),
            Condition::Absent => (WRITE_ABSENT, write.now_us),
            Condition::Version(expected) => (WRITE_VERSION, i64::try_from(expected).unwrap_or(-1)),
        };
        let query = sqlx::query_scalar(statement)
            .bind(write.collection)
            .bind(write.key)
            .bind(&write.json)
            .bind(write.now_us)
            .bind(write.origin)
            .bind(write.expires_us)
            .bind(expected);
        // A write alone is one statement, its own transaction; one that is bounded counts its
        // collection, and one that trims it trims, in the same transaction (on the one writing
        // connection, so no other write comes between).
        let (stored, trimmed): (Option<i64>, Vec<String>) = match (write.keep, write.at_most) {
            (None, None) => (
                query.fetch_optional(&self.writer).await.map_err(backend)?,
                Vec::new(),
            ),
            (keep, at_most) => {
                // Immediate: a bounded write reads its collection before it writes, and a
                // deferred transaction whose snapshot another process wrote past cannot take
                // the write lock (SQLite answers busy at once, with no wait).
                let mut tx = self
                    .writer
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .map_err(backend)?;
                if let Some(limit) = at_most
                    && full(&mut tx, write, limit).await?
                {
                    return Ok(Written::Full);
                }
                let stored = query.fetch_optional(&mut *tx).await.map_err(backend)?;
                let trimmed = match (stored, keep) {
                    (Some(_), Some(keep)) => trim(&mut tx, write, keep).await?,
                    _ => Vec::new(),
                };
                tx.commit().await.map_err(backend)?;
                (stored, trimmed)
            }
        };
        let Some(version) = stored else {
            let current = self.get(write.collection, write.key, write.now_us).await?;
            return Ok(Written::Refused {
                current: current.and_then(|row| u64::try_from(row.version).ok()),
            });
        };
        Ok(Written::Stored {
            version: u64::try_from(version).unwrap_or_default(),
            trimmed,
        })
    }

    pub(super) async fn get(
        &self,
        collection: &str,
        key: &str,
        now: i64,
    ) -> Result<Option<Row>, RecordError> {
        let row = sqlx::query(
            "SELECT key, value, version, updated_us, expires_us FROM records
             WHERE collection = ? AND key = ? AND (expires_us IS NULL OR expires_us > ?)",
        )
        .bind(collection)
        .bind(key)
        .bind(now)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.map(|row| read_row(&row)).transpose()
    }

    /// Live records of `collection` whose keys start with `prefix`: the range's entries in the
    /// primary key's index (SQLite orders text by its bytes) less its expired rows the sweep has
    /// not deleted yet, found through the expiry index. Neither part reads the table's rows, so
    /// it costs the index entries counted, not the collection: with the expiry test on the rows
    /// themselves, every counted key cost a visit to its row, and rows written in turns by many
    /// agents lie on every page of the table.
    pub(super) async fn count(
        &self,
        collection: &str,
        prefix: &str,
        now: i64,
    ) -> Result<usize, RecordError> {
        // Two statements rather than `(?3 IS NULL OR key < ?3)`: SQLite bounds an index range
        // only by a plain comparison, and the `OR` would scan to the collection's end.
        let query = match key_after_prefix(prefix) {
            Some(after) => sqlx::query_scalar(concat!(
                "SELECT (SELECT count(*) FROM records
                         WHERE collection = ?1 AND key >= ?2 AND key < ?3)",
                expired_in_range!("AND key >= ?2 AND key < ?3", "?4")
            ))
            .bind(collection)
            .bind(prefix)
            .bind(after),
            None => sqlx::query_scalar(concat!(
                "SELECT (SELECT count(*) FROM records WHERE collection = ?1 AND key >= ?2)",
                expired_in_range!("AND key >= ?2", "?3")
            ))
            .bind(collection)
            .bind(prefix),
        };
        let count: i64 = query
            .bind(now)
            .fetch_one(&self.pool)
            .await
            .map_err(backend)?;
        Ok(usize::try_from(count).unwrap_or_default())
    }

    pub(super) async fn list(
        &self,
        collection: &str,
        limit: i64,
        now: i64,
    ) -> Result<Vec<Row>, RecordError> {
        let rows = sqlx::query(
            "SELECT key, value, version, updated_us, expires_us FROM records
             WHERE collection = ? AND (expires_us IS NULL OR expires_us > ?)
             ORDER BY version DESC, updated_us DESC, key LIMIT ?",
        )
        .bind(collection)
        .bind(now)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        rows.iter().map(read_row).collect()
    }

    pub(super) async fn delete(
        &self,
        collection: &str,
        key: &str,
        version: Option<u64>,
        now: i64,
        origin: i64,
    ) -> Result<bool, RecordError> {
        let mut tx = self.writer.begin().await.map_err(backend)?;
        let version = version.map(|v| i64::try_from(v).unwrap_or(-1));
        let expiry: Option<Option<i64>> = sqlx::query_scalar(
            "DELETE FROM records WHERE collection = ? AND key = ? AND (?3 IS NULL OR version = ?3)
             RETURNING expires_us",
        )
        .bind(collection)
        .bind(key)
        .bind(version)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        let Some(expires_us) = expiry else {
            return Ok(false);
        };
        log(&mut tx, collection, key, ChangeKind::Deleted, origin, now).await?;
        tx.commit().await.map_err(backend)?;
        Ok(expires_us.is_none_or(|at| at > now))
    }

    /// Deletes what expired by `now`, logging each, and prunes the change log.
    pub(super) async fn sweep(
        &self,
        now: i64,
        origin: i64,
    ) -> Result<Vec<(String, String)>, RecordError> {
        let mut tx = self.writer.begin().await.map_err(backend)?;
        let expired: Vec<(String, String)> = sqlx::query_as(
            "DELETE FROM records WHERE expires_us IS NOT NULL AND expires_us <= ?
             RETURNING collection, key",
        )
        .bind(now)
        .fetch_all(&mut *tx)
        .await
        .map_err(backend)?;
        for (collection, key) in &expired {
            log(&mut tx, collection, key, ChangeKind::Expired, origin, now).await?;
        }
        sqlx::query("DELETE FROM record_changes WHERE at_us < ?")
            .bind(now - LOG_KEEPS_US)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(expired)
    }

    /// Starts reading the change log from its end, unless it is read already: called by each
    /// new watcher before it reads what it waits on.
    pub(super) async fn follow(&self) -> Result<(), RecordError> {
        let mut cursor = self.cursor.lock().await;
        if cursor.is_none() {
            let last: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM record_changes")
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
            *cursor = Some(last);
        }
        Ok(())
    }

    /// Announces the changes other processes logged since the last read, while anyone watches.
    pub(super) async fn poll(&self, feed: &Feed) {
        let mut cursor = self.cursor.lock().await;
        if !feed.watched() {
            *cursor = None;
            return;
        }
        let Some(last) = *cursor else { return };
        let rows: Result<Vec<LoggedChange>, _> = sqlx::query_as(
            "SELECT seq, collection, key, kind, origin FROM record_changes WHERE seq > ?
             ORDER BY seq LIMIT ?",
        )
        .bind(last)
        .bind(POLL_BATCH)
        .fetch_all(&self.pool)
        .await;
        let rows = match rows {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "the records' change log could not be read");
                return;
            }
        };
        let Some(first) = rows.first() else { return };
        if first.0 > last + 1 {
            // Pruned before this process read it.
            feed.missed();
        }
        for (seq, collection, key, kind, origin) in &rows {
            *cursor = Some(*seq);
            if *origin == feed.origin() {
                continue;
            }
            let version = u64::try_from(*seq).unwrap_or_default();
            if let Some(kind) = ChangeKind::from_code(kind, version) {
                feed.publish(Change::new(collection, key, kind));
            }
        }
    }
}

/// Logs one change (collection, key, kind) for other processes: its number in the log, which
/// is also the version of a write.
async fn log(
    conn: &mut SqliteConnection,
    collection: &str,
    key: &str,
    kind: ChangeKind,
    origin: i64,
    now: i64,
) -> Result<i64, RecordError> {
    sqlx::query_scalar(
        "INSERT INTO record_changes (collection, key, kind, origin, at_us)
         VALUES (?, ?, ?, ?, ?) RETURNING seq",
    )
    .bind(collection)
    .bind(key)
    .bind(kind.code())
    .bind(origin)
    .bind(now)
    .fetch_one(conn)
    .await
    .map_err(backend)
}

/// Whether `write` would add a record to a collection already holding `limit` live ones.
async fn full(
    tx: &mut sqlx::SqliteConnection,
    write: &Write<'_>,
    limit: usize,
) -> Result<bool, RecordError> {
    // The collection's count less its expired rows the sweep has not deleted yet (found
    // through the expiry index: few, whatever the collection's size), and whether the key is
    // live (its primary key).
    let (live, has_key): (i64, i64) = sqlx::query_as(concat!(
        "SELECT coalesce((SELECT stored FROM record_counts WHERE collection = ?1), 0)",
        expired_in_range!("", "?3"),
        ", EXISTS (SELECT 1 FROM records WHERE collection = ?1 AND key = ?2
                   AND (expires_us IS NULL OR expires_us > ?3))",
    ))
    .bind(write.collection)
    .bind(write.key)
    .bind(write.now_us)
    .fetch_one(tx)
    .await
    .map_err(backend)?;
    Ok(has_key == 0 && usize::try_from(live).unwrap_or(usize::MAX) >= limit)
}

/// Drops all but the `keep` newest records of the written collection, logging each: their
/// keys.
async fn trim(
    conn: &mut SqliteConnection,
    write: &Write<'_>,
    keep: usize,
) -> Result<Vec<String>, RecordError> {
    let gone: Vec<String> = sqlx::query_scalar(
        "DELETE FROM records WHERE collection = ?1 AND version < (
            SELECT version FROM records WHERE collection = ?1
            ORDER BY version DESC LIMIT 1 OFFSET ?2
         ) RETURNING key",
    )
    .bind(write.collection)
    // The newest `keep` stay: the oldest of them is at offset `keep - 1`.
    .bind(i64::try_from(keep.max(1) - 1).unwrap_or(i64::MAX))
    .fetch_all(&mut *conn)
    .await
    .map_err(backend)?;
    for key in &gone {
        let (collection, deleted) = (write.collection, ChangeKind::Deleted);
        log(conn, collection, key, deleted, write.origin, write.now_us).await?;
    }
    Ok(gone)
}

fn read_row(row: &sqlx::sqlite::SqliteRow) -> Result<Row, RecordError> {
    Ok(Row {
        key: row.try_get("key").map_err(backend)?,
        json: row.try_get("value").map_err(backend)?,
        version: row.try_get("version").map_err(backend)?,
        updated_us: row.try_get("updated_us").map_err(backend)?,
        expires_us: row.try_get("expires_us").map_err(backend)?,
    })
}
