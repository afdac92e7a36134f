//! The schema of a records file and its migration from every earlier form: the records, the
//! change log the triggers write, and the collections' counts the triggers keep.

use sqlx::SqlitePool;

use super::{RecordError, backend};

/// Writes log themselves, in their own statement: the change's number is the version written.
const LOG_WRITES: [&str; 2] = [
    "CREATE TRIGGER IF NOT EXISTS records_log_insert AFTER INSERT ON records BEGIN
        INSERT INTO record_changes (seq, collection, key, kind, origin, at_us)
        VALUES (NEW.version, NEW.collection, NEW.key, 'w', NEW.origin, NEW.updated_us);
     END",
    "CREATE TRIGGER IF NOT EXISTS records_log_update AFTER UPDATE ON records BEGIN
        INSERT INTO record_changes (seq, collection, key, kind, origin, at_us)
        VALUES (NEW.version, NEW.collection, NEW.key, 'w', NEW.origin, NEW.updated_us);
     END",
];

/// Each collection's number of rows (live, or expired and not yet swept), kept by triggers in
/// the statement that adds or deletes one: a bounded write reads one row and the few expired
/// ones instead of counting its collection, so it costs the same at 10 records and at 10 000.
/// (An upsert that updates fires no INSERT trigger; nothing replaces rows.)
const COUNTS: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS record_counts (
        collection TEXT PRIMARY KEY,
        stored INTEGER NOT NULL
    )",
    "CREATE TRIGGER IF NOT EXISTS records_count_insert AFTER INSERT ON records BEGIN
        INSERT INTO record_counts (collection, stored) VALUES (NEW.collection, 1)
        ON CONFLICT (collection) DO UPDATE SET stored = stored + 1;
     END",
    "CREATE TRIGGER IF NOT EXISTS records_count_delete AFTER DELETE ON records BEGIN
        UPDATE record_counts SET stored = stored - 1 WHERE collection = OLD.collection;
     END",
];

const SCHEMA: [&str; 5] = [
    "CREATE TABLE IF NOT EXISTS records (
        collection TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_us INTEGER NOT NULL,
        PRIMARY KEY (collection, key)
    )",
    "CREATE TABLE IF NOT EXISTS record_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        collection TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        origin INTEGER NOT NULL,
        at_us INTEGER NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS record_changes_by_time ON record_changes (at_us)",
    "CREATE INDEX IF NOT EXISTS records_by_expiry ON records (expires_us)
        WHERE expires_us IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS records_by_version ON records (collection, version)",
];

/// Creates the tables, and adds the columns records written before versions and expiry lack.
pub(super) async fn migrate(pool: &SqlitePool) -> Result<(), RecordError> {
    // Immediate: processes opening one file together take turns instead of failing to upgrade
    // a read transaction.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await.map_err(backend)?;
    sqlx::query(SCHEMA[0])
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    let columns: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_table_info('records')")
        .fetch_all(&mut *tx)
        .await
        .map_err(backend)?;
    for (column, ddl) in [
        (
            "version",
            "ALTER TABLE records ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
        ),
        (
            "expires_us",
            "ALTER TABLE records ADD COLUMN expires_us INTEGER",
        ),
        (
            "origin",
            "ALTER TABLE records ADD COLUMN origin INTEGER NOT NULL DEFAULT 0",
        ),
    ] {
        if !columns.iter().any(|c| c == column) {
            sqlx::query(ddl).execute(&mut *tx).await.map_err(backend)?;
        }
    }
    // The change log of the first versioned files numbered its changes without AUTOINCREMENT
    // (beside a clock table); it only holds passing changes, so it is made again.
    let log: Option<String> =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE name = 'record_changes'")
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
    if log.is_some_and(|sql| !sql.contains("AUTOINCREMENT")) {
        for ddl in [
            "DROP TABLE record_changes",
            "DROP TABLE IF EXISTS record_clock",
        ] {
            sqlx::query(ddl).execute(&mut *tx).await.map_err(backend)?;
        }
    }
    for ddl in SCHEMA[1..].iter().chain(&LOG_WRITES) {
        sqlx::query(*ddl).execute(&mut *tx).await.map_err(backend)?;
    }
    // The counts start from the rows a file made before them had; from then on the triggers,
    // created in this same transaction, keep them.
    let counted: Option<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE name = 'record_counts'")
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
    for ddl in COUNTS {
        sqlx::query(ddl).execute(&mut *tx).await.map_err(backend)?;
    }
    if counted.is_none() {
        sqlx::query(
            "INSERT INTO record_counts (collection, stored)
             SELECT collection, count(*) FROM records GROUP BY collection",
        )
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    }
    // Versions go on from the highest a record has, even with an empty log.
    sqlx::query(
        "INSERT INTO sqlite_sequence (name, seq)
         SELECT 'record_changes', COALESCE(MAX(version), 0) FROM records
         WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'record_changes')",
    )
    .execute(&mut *tx)
    .await
    .map_err(backend)?;
    tx.commit().await.map_err(backend)
}
