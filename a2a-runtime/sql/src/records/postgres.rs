//! Records in a Postgres database, shared by the replicas that use it.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::{RecordError, backend};

/// The `a2a_records` table of one database.
#[derive(Debug)]
pub(super) struct PgRecords {
    pool: PgPool,
}

impl PgRecords {
    pub(super) async fn connect(url: &str) -> Result<Self, RecordError> {
        let options: PgConnectOptions = url.parse().map_err(backend)?;
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.application_name("a2a-runtime records"))
            .await
            .map_err(backend)?;
        // Replicas starting together may race to create the table; the loser's error is
        // harmless once the table exists, so the check runs again.
        let create = "CREATE TABLE IF NOT EXISTS a2a_records (
                collection TEXT NOT NULL,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                updated_us BIGINT NOT NULL,
                PRIMARY KEY (collection, key)
            )";
        if sqlx::query(create).execute(&pool).await.is_err() {
            sqlx::query(create).execute(&pool).await.map_err(backend)?;
        }
        Ok(Self { pool })
    }

    pub(super) async fn put(
        &self,
        collection: &str,
        key: &str,
        json: String,
        now: i64,
    ) -> Result<(), RecordError> {
        sqlx::query(
            "INSERT INTO a2a_records (collection, key, value, updated_us) VALUES ($1, $2, $3, $4)
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
        sqlx::query_scalar("SELECT value FROM a2a_records WHERE collection = $1 AND key = $2")
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
            "SELECT key, value FROM a2a_records WHERE collection = $1
             ORDER BY updated_us DESC, key LIMIT $2",
        )
        .bind(collection)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)
    }

    pub(super) async fn delete(&self, collection: &str, key: &str) -> Result<bool, RecordError> {
        let done = sqlx::query("DELETE FROM a2a_records WHERE collection = $1 AND key = $2")
            .bind(collection)
            .bind(key)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }
}
