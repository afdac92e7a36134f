//! Records in a Postgres database, shared by the replicas that use it.
//!
//! Versions come from the sequence `a2a_record_clock`. Each change is announced with
//! `pg_notify` in the statement that makes it, so other replicas hear of it when (and only if)
//! it commits; one connection per replica listens while anyone watches.

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde::Deserialize;
use sqlx::Row as _;
use sqlx::postgres::{PgListener, PgPool, PgRow};

use super::backend::key_after_prefix;
use super::{Change, ChangeKind, Condition, Inner, RecordError, Row, Write, Written, backend};
use crate::usage::{UsageError, UsageStore};
use a2a_runtime_core::task::{StoreError, TaskStore};

/// The channel changes are announced on.
const CHANNEL: &str = "a2a_records";

/// The notification of one change (`kind`, with the SQL expressions of its collection, key,
/// version and origin), sent with the statement that makes it.
macro_rules! announce {
    ($kind:literal, $collection:literal, $key:literal, $version:literal, $origin:literal) => {
        concat!(
            "pg_notify('a2a_records', json_build_object('o', ",
            $origin,
            "::bigint, 'c', ",
            $collection,
            ", 'k', ",
            $key,
            ", 't', '",
            $kind,
            "', 'v', ",
            $version,
            ")::text)"
        )
    };
}

/// An upsert's head; the statements below add what the record must be for it to be replaced.
macro_rules! upsert {
    ($guard:literal) => {
        concat!(
            "WITH w AS (
                INSERT INTO a2a_records (collection, key, value, updated_us, version, expires_us)
                VALUES ($1, $2, $3, $4, nextval('a2a_record_clock'), $5)
                ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value,
                    updated_us = excluded.updated_us, version = excluded.version,
                    expires_us = excluded.expires_us ",
            $guard,
            " RETURNING version)
             SELECT w.version FROM w, LATERAL ",
            announce!("w", "$1::text", "$2::text", "w.version", "$6"),
            " AS n"
        )
    };
}

const WRITE_ANY: &str = upsert!("");

const WRITE_ABSENT: &str =
    upsert!("WHERE a2a_records.expires_us IS NOT NULL AND a2a_records.expires_us <= $4");

const WRITE_VERSION: &str = concat!(
    "WITH w AS (
        UPDATE a2a_records SET value = $3, updated_us = $4,
            version = nextval('a2a_record_clock'), expires_us = $5
        WHERE collection = $1 AND key = $2 AND version = $7
            AND (expires_us IS NULL OR expires_us > $4)
        RETURNING version)
     SELECT w.version FROM w, LATERAL ",
    announce!("w", "$1::text", "$2::text", "w.version", "$6"),
    " AS n"
);

const TRIM: &str = concat!(
    "WITH d AS (
        DELETE FROM a2a_records WHERE collection = $1 AND version < (
            SELECT version FROM a2a_records WHERE collection = $1
            ORDER BY version DESC LIMIT 1 OFFSET $2)
        RETURNING key)
     SELECT d.key FROM d, LATERAL ",
    announce!("d", "$1::text", "d.key", "0", "$3"),
    " AS n"
);

const DELETE: &str = concat!(
    "WITH d AS (
        DELETE FROM a2a_records
        WHERE collection = $1 AND key = $2 AND ($3::bigint IS NULL OR version = $3)
        RETURNING expires_us)
     SELECT d.expires_us FROM d, LATERAL ",
    announce!("d", "$1::text", "$2::text", "0", "$4"),
    " AS n"
);

const SWEEP: &str = concat!(
    "WITH d AS (
        DELETE FROM a2a_records WHERE expires_us IS NOT NULL AND expires_us <= $1
        RETURNING collection, key)
     SELECT d.collection, d.key FROM d, LATERAL ",
    announce!("e", "d.collection", "d.key", "0", "$2"),
    " AS n"
);

const SCHEMA: [&str; 10] = [
    // Keys in byte order, as SQLite keeps them: a key prefix is a range of the primary key,
    // whatever the database's collation.
    "CREATE TABLE IF NOT EXISTS a2a_records (
        collection TEXT NOT NULL,
        key TEXT COLLATE \"C\" NOT NULL,
        value TEXT NOT NULL,
        updated_us BIGINT NOT NULL,
        PRIMARY KEY (collection, key)
    )",
    "ALTER TABLE a2a_records ADD COLUMN IF NOT EXISTS version BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE a2a_records ADD COLUMN IF NOT EXISTS expires_us BIGINT",
    "CREATE SEQUENCE IF NOT EXISTS a2a_record_clock",
    "CREATE INDEX IF NOT EXISTS a2a_records_by_expiry ON a2a_records (expires_us)
        WHERE expires_us IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS a2a_records_by_version ON a2a_records (collection, version)",
    // A table of an earlier release, its keys in the database's collation: rebuilt in byte
    // order once (the primary key's index is rebuilt; the rows stay as they are).
    "DO $$ BEGIN
        IF (SELECT attcollation FROM pg_attribute
            WHERE attrelid = 'a2a_records'::regclass AND attname = 'key')
           <> (SELECT oid FROM pg_collation
               WHERE collname = 'C' AND collnamespace = 'pg_catalog'::regnamespace) THEN
            ALTER TABLE a2a_records ALTER COLUMN key TYPE TEXT COLLATE \"C\";
        END IF;
     END $$",
    // How many rows each bounded collection holds, kept by the trigger below in the
    // transaction that inserts or deletes them. A collection has a row here from its first
    // bounded write on (counted then): the other collections' writes update nothing, so they
    // never wait on one another's count.
    "CREATE TABLE IF NOT EXISTS a2a_record_counts (
        collection TEXT PRIMARY KEY,
        stored BIGINT NOT NULL
    )",
    "CREATE OR REPLACE FUNCTION a2a_records_count() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
        IF TG_OP = 'INSERT' THEN
            UPDATE a2a_record_counts SET stored = stored + 1 WHERE collection = NEW.collection;
        ELSE
            UPDATE a2a_record_counts SET stored = stored - 1 WHERE collection = OLD.collection;
        END IF;
        RETURN NULL;
     END $$",
    // Created once: replacing it at each start would lock the table against every writer.
    "DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_trigger
                       WHERE tgname = 'a2a_records_counted'
                         AND tgrelid = 'a2a_records'::regclass) THEN
            CREATE TRIGGER a2a_records_counted AFTER INSERT OR DELETE ON a2a_records
                FOR EACH ROW EXECUTE FUNCTION a2a_records_count();
        END IF;
     END $$",
];

/// The `a2a_records` table of one database, and this replica's listener.
#[derive(Debug)]
pub(super) struct PgRecords {
    pool: PgPool,
    listening: tokio::sync::OnceCell<()>,
}

impl PgRecords {
    pub(super) async fn connect(url: &str) -> Result<Self, RecordError> {
        let pool = crate::connect::postgres_pool(url, 8, "a2a-runtime records").await;
        Self::on(pool.map_err(backend)?).await
    }

    /// The records of the database `pool` connects to, through that pool.
    pub(super) async fn on(pool: PgPool) -> Result<Self, RecordError> {
        // Replicas starting together take turns.
        let mut tx = pool.begin().await.map_err(backend)?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtext('a2a_records'))")
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        for ddl in SCHEMA {
            sqlx::query(ddl).execute(&mut *tx).await.map_err(backend)?;
        }
        tx.commit().await.map_err(backend)?;
        Ok(Self {
            pool,
            listening: tokio::sync::OnceCell::new(),
        })
    }

    /// The pool, for others of this process that keep their tables in the database (usage).
    /// The usage store in this database, through this pool.
    pub(super) async fn usage(&self) -> Result<UsageStore, UsageError> {
        UsageStore::postgres_on(self.pool.clone()).await
    }

    /// The task store in this database, through this pool: replicas sharing the database
    /// share it, each holding leases of `lease` (the store's default when `None`).
    pub(super) async fn tasks(
        &self,
        lease: Option<std::time::Duration>,
    ) -> Result<Arc<dyn TaskStore>, StoreError> {
        let mut options = crate::PostgresStoreOptions::default();
        if let Some(lease) = lease {
            options.lease = lease;
        }
        let store = crate::PostgresTaskStore::on_pool(self.pool.clone(), options).await?;
        Ok(Arc::new(store))
    }

    pub(super) async fn write(&self, write: &Write<'_>) -> Result<Written, RecordError> {
        let statement = match write.condition {
            Condition::Any => WRITE_ANY,
            Condition::Absent => WRITE_ABSENT,
            Condition::Version(_) => WRITE_VERSION,
        };
        let expected = match write.condition {
            Condition::Version(version) => Some(i64::try_from(version).unwrap_or(-1)),
            _ => None,
        };
        let mut tx = self.pool.begin().await.map_err(backend)?;
        if write.keep.is_some() || write.at_most.is_some() {
            // Bounded writers to one collection take turns, so their trims cannot deadlock and
            // two of them cannot both take a collection's last free place.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind(write.collection)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
        }
        if let Some(limit) = write.at_most
            && full(&mut tx, write, limit).await?
        {
            return Ok(Written::Full);
        }
        let mut query = sqlx::query_scalar(statement)
            .bind(write.collection)
            .bind(write.key)
            .bind(&write.json)
            .bind(write.now_us)
            .bind(write.expires_us)
            .bind(write.origin);
        if let Some(expected) = expected {
            query = query.bind(expected);
        }
        let version: Option<i64> = query.fetch_optional(&mut *tx).await.map_err(backend)?;
        let Some(version) = version else {
            drop(tx);
            let current = self.get(write.collection, write.key, write.now_us).await?;
            return Ok(Written::Refused {
                current: current.and_then(|row| u64::try_from(row.version).ok()),
            });
        };
        let trimmed = match write.keep {
            Some(keep) => self.trim(&mut tx, write, keep).await?,
            None => Vec::new(),
        };
        tx.commit().await.map_err(backend)?;
        Ok(Written::Stored {
            version: u64::try_from(version).unwrap_or_default(),
            trimmed,
        })
    }

    /// Drops all but the `keep` newest records of the written collection: their keys.
    async fn trim(
        &self,
        tx: &mut sqlx::PgConnection,
        write: &Write<'_>,
        keep: usize,
    ) -> Result<Vec<String>, RecordError> {
        sqlx::query_scalar(TRIM)
            .bind(write.collection)
            // The newest `keep` stay: the oldest of them is at offset `keep - 1`.
            .bind(i64::try_from(keep.max(1) - 1).unwrap_or(i64::MAX))
            .bind(write.origin)
            .fetch_all(tx)
            .await
            .map_err(backend)
    }

    /// Live records of `collection` whose keys start with `prefix`, counted in the database.
    pub(super) async fn count(
        &self,
        collection: &str,
        prefix: &str,
        now: i64,
    ) -> Result<usize, RecordError> {
        // A range of the primary key (its keys in byte order): the records counted, not the
        // collection. Two statements, as an `OR` in the bound would not bound the range.
        let query = match key_after_prefix(prefix) {
            Some(after) => sqlx::query_scalar(
                "SELECT count(*) FROM a2a_records
                 WHERE collection = $1 AND key >= $2 AND key < $3
                    AND (expires_us IS NULL OR expires_us > $4)",
            )
            .bind(collection)
            .bind(prefix)
            .bind(after),
            None => sqlx::query_scalar(
                "SELECT count(*) FROM a2a_records WHERE collection = $1 AND key >= $2
                    AND (expires_us IS NULL OR expires_us > $3)",
            )
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

    pub(super) async fn get(
        &self,
        collection: &str,
        key: &str,
        now: i64,
    ) -> Result<Option<Row>, RecordError> {
        let row = sqlx::query(
            "SELECT key, value, version, updated_us, expires_us FROM a2a_records
             WHERE collection = $1 AND key = $2 AND (expires_us IS NULL OR expires_us > $3)",
        )
        .bind(collection)
        .bind(key)
        .bind(now)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.map(|row| read_row(&row)).transpose()
    }

    pub(super) async fn list(
        &self,
        collection: &str,
        limit: i64,
        now: i64,
    ) -> Result<Vec<Row>, RecordError> {
        let rows = sqlx::query(
            "SELECT key, value, version, updated_us, expires_us FROM a2a_records
             WHERE collection = $1 AND (expires_us IS NULL OR expires_us > $2)
             ORDER BY version DESC, updated_us DESC, key LIMIT $3",
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
        let expiry: Option<Option<i64>> = sqlx::query_scalar(DELETE)
            .bind(collection)
            .bind(key)
            .bind(version.map(|v| i64::try_from(v).unwrap_or(-1)))
            .bind(origin)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?;
        Ok(expiry.is_some_and(|expires_us| expires_us.is_none_or(|at| at > now)))
    }

    pub(super) async fn sweep(
        &self,
        now: i64,
        origin: i64,
    ) -> Result<Vec<(String, String)>, RecordError> {
        sqlx::query_as(SWEEP)
            .bind(now)
            .bind(origin)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)
    }

    /// Listens for other replicas' changes, once: announced to the watchers of `inner`
    /// (skipping those made through `origin`) until the records are dropped.
    pub(super) async fn listen(&self, inner: Weak<Inner>, origin: i64) -> Result<(), RecordError> {
        self.listening
            .get_or_try_init(|| async {
                let mut listener = PgListener::connect_with(&self.pool)
                    .await
                    .map_err(backend)?;
                listener.listen(CHANNEL).await.map_err(backend)?;
                let stop = match inner.upgrade() {
                    Some(inner) => inner.background.stopped(),
                    None => return Ok(()),
                };
                tokio::spawn(async move {
                    tokio::select! {
                        () = stop.cancelled() => {}
                        () = relay(listener, inner, origin) => {}
                    }
                });
                Ok(())
            })
            .await?;
        Ok(())
    }
}

/// A notification as [`notify`] builds it.
#[derive(Deserialize)]
struct Notice {
    o: i64,
    c: String,
    k: String,
    t: String,
    v: i64,
}

/// Hands each notification to the watchers; a lost connection is announced as [`Missed`]
/// changes (those sent meanwhile are gone), and the listener reconnects.
///
/// [`Missed`]: super::Missed
async fn relay(mut listener: PgListener, inner: Weak<Inner>, origin: i64) {
    loop {
        let received = listener.try_recv().await;
        let Some(inner) = inner.upgrade() else { return };
        match received {
            Ok(Some(notification)) => {
                let Ok(notice) = serde_json::from_str::<Notice>(notification.payload()) else {
                    continue;
                };
                if notice.o == origin {
                    continue;
                }
                let version = u64::try_from(notice.v).unwrap_or_default();
                if let Some(kind) = ChangeKind::from_code(&notice.t, version) {
                    inner.feed.publish(Change::new(&notice.c, &notice.k, kind));
                }
            }
            Ok(None) => inner.feed.missed(),
            Err(error) => {
                tracing::warn!(%error, "lost the connection that hears of other replicas' record changes");
                inner.feed.missed();
                drop(inner);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Whether `write` would add a record to a collection already holding `limit` live ones, read
/// under the collection's lock: its kept count less its expired rows the sweep has not deleted
/// yet (found through the expiry index), and whether the key is live.
async fn full(
    tx: &mut sqlx::PgConnection,
    write: &Write<'_>,
    limit: usize,
) -> Result<bool, RecordError> {
    let (mut live, mut has_key) = live_count(tx, write).await?;
    if live.is_none() {
        // The collection's first bounded write: counted once, with every other writer of the
        // table held off until this commits, so no row committed meanwhile goes uncounted.
        sqlx::query("LOCK TABLE a2a_records IN SHARE ROW EXCLUSIVE MODE")
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        sqlx::query(
            "INSERT INTO a2a_record_counts (collection, stored)
             SELECT $1, count(*) FROM a2a_records WHERE collection = $1
             ON CONFLICT (collection) DO NOTHING",
        )
        .bind(write.collection)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        (live, has_key) = live_count(tx, write).await?;
    }
    let live = live.map_or(usize::MAX, |live| {
        usize::try_from(live).unwrap_or(usize::MAX)
    });
    Ok(!has_key && live >= limit)
}

/// The written collection's live records by its kept count (`None` before its first bounded
/// write), and whether the written key is live: one round trip.
async fn live_count(
    tx: &mut sqlx::PgConnection,
    write: &Write<'_>,
) -> Result<(Option<i64>, bool), RecordError> {
    sqlx::query_as(
        "SELECT (SELECT stored FROM a2a_record_counts WHERE collection = $1)
              - (SELECT count(*) FROM a2a_records
                 WHERE expires_us IS NOT NULL AND expires_us <= $3 AND collection = $1),
            EXISTS (SELECT 1 FROM a2a_records WHERE collection = $1 AND key = $2
                    AND (expires_us IS NULL OR expires_us > $3))",
    )
    .bind(write.collection)
    .bind(write.key)
    .bind(write.now_us)
    .fetch_one(&mut *tx)
    .await
    .map_err(backend)
}

fn read_row(row: &PgRow) -> Result<Row, RecordError> {
    Ok(Row {
        key: row.try_get("key").map_err(backend)?,
        json: row.try_get("value").map_err(backend)?,
        version: row.try_get("version").map_err(backend)?,
        updated_us: row.try_get("updated_us").map_err(backend)?,
        expires_us: row.try_get("expires_us").map_err(backend)?,
    })
}
