//! Opening a database, once for every store of this crate: the connection options of a SQLite
//! file (its directory created, write-ahead logging, commits that survive the process, a busy
//! timeout), and a Postgres pool (bounded, named, with an acquire timeout). Each store adds
//! only what is its own (pragmas, pool sizes, migrations).

#[cfg(feature = "sqlite")]
use std::path::Path;
use std::time::Duration;

/// How long a connection waits on another's lock (SQLite) or for a free connection
/// (Postgres) before the operation fails.
#[cfg(feature = "sqlite")]
const SQLITE_BUSY: Duration = Duration::from_secs(5);
#[cfg(feature = "postgres")]
const POSTGRES_ACQUIRE: Duration = Duration::from_secs(10);

/// The options of the SQLite file at `path`, created (with its directory) if missing. A
/// commit survives the process (kill -9 included); only an operating system crash may lose
/// the last ones.
#[cfg(feature = "sqlite")]
pub(crate) fn sqlite_file(path: &Path) -> Result<sqlx::sqlite::SqliteConnectOptions, String> {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    Ok(SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(SQLITE_BUSY))
}

/// The SQLite store's write connection to the file at `path` (which [`sqlite_file`]'s options
/// have opened before, creating it): the same journal, commits and busy timeout, held by one
/// thread that runs its statements itself (see `sqlite/writer.rs`), checkpointing the WAL
/// whenever it reaches `wal_pages` pages.
#[cfg(feature = "sqlite")]
pub(crate) fn sqlite_writer(path: &Path, wal_pages: u32) -> rusqlite::Result<rusqlite::Connection> {
    let connection = rusqlite::Connection::open(path)?;
    connection.busy_timeout(SQLITE_BUSY)?;
    connection
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "wal_autocheckpoint", wal_pages)?;
    Ok(connection)
}

/// A pool of at most `max_connections` to the Postgres database at `url`, its connections
/// named `application` (as `pg_stat_activity` shows them).
#[cfg(feature = "postgres")]
pub(crate) async fn postgres_pool(
    url: &str,
    max_connections: u32,
    application: &str,
) -> Result<sqlx::PgPool, sqlx::Error> {
    let options: sqlx::postgres::PgConnectOptions = url.parse()?;
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(POSTGRES_ACQUIRE)
        .connect_with(options.application_name(application))
        .await
}
