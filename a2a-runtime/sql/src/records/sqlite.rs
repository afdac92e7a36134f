//! Records in a SQLite file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use super::{RecordError, backend};

/// The `records` table of one SQLite file.
#[derive(Debug)]
pub(super) struct SqliteRecords {
    pool: SqlitePool,
    pub(super) path: PathBuf,
}

impl SqliteRecords {
    pub(super) async fn open(path: &Path) -> Result<Self, RecordError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| backend(format!("cannot create {}: {e}", dir.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
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
            pool,
            path: path.to_owned(),
        })
    }

    pub(super) async fn put(
        &self,
        collection: &str,
        key: &str,
        json: String,
        now: i64,
    ) -> Result<(), RecordError> {
        sqlx::query(
            "INSERT INTO records (collection, key, value, updated_us) VALUES (?, ?, ?, ?)
             ON CONFLICT (collection, key)
             DO UPDATE SET value = excluded.value, updated_us = excluded.updated_us",
        )
        .bind(collection)
        .bind(key)
        .bind(json)
        .bind(now)
        .execute(&self.pool)
        .await
        .map_err(backend)?;
        Ok(())
    }

    pub(super) async fn get(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<String>, RecordError> {
        sqlx::query_scalar("SELECT value FROM records WHERE collection = ? AND key = ?")
            .bind(collection)
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)
    }

    pub(super) async fn list(
        &self,
        collection: &str,
        limit: i64,
    ) -> Result<Vec<(String, String)>, RecordError> {
        sqlx::query_as(
            "SELECT key, value FROM records WHERE collection = ?
             ORDER BY updated_us DESC, key LIMIT ?",
        )
        .bind(collection)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)
    }

    pub(super) async fn delete(&self, collection: &str, key: &str) -> Result<bool, RecordError> {
        let done = sqlx::query("DELETE FROM records WHERE collection = ? AND key = ?")
            .bind(collection)
            .bind(key)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }
}
