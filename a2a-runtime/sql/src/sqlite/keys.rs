//! Idempotency keys in SQLite: claimed by the one writer, in one transaction with the task a
//! keyed request creates; read back through the read pool.

use sqlx::{Connection, Row, SqliteConnection, SqlitePool};

use super::{Op, SqliteTaskStore, TaskRow, submit};
use a2a_runtime_core::task::{KeyClaim, KeyRecord, KeyScope, StoreError, StoredTask};

impl SqliteTaskStore {
    /// [`TaskStore::claim_key`](a2a_runtime_core::task::TaskStore::claim_key).
    pub(super) async fn claim(
        &self,
        key: &KeyRecord,
        task: Option<&StoredTask>,
    ) -> Result<KeyClaim, StoreError> {
        let row = task.map(TaskRow::of).transpose()?;
        if submit(&self.writes, Op::Claim(key.clone(), row)).await? == 1 {
            return Ok(KeyClaim::Claimed);
        }
        // Held: its record, read after the writer's commit (the writer is this process's
        // only one, so nothing changes it in between but its expiry).
        crate::keys::held(find(&self.reads, &key.scope).await?)
    }
}

/// Claims `key` on the writer's connection, creating `task` with it: 1 when claimed, 0 when an
/// unexpired record holds the key (nothing is written then). An existing task id fails the
/// claim whole.
pub(super) async fn claim(
    connection: &mut SqliteConnection,
    key: &KeyRecord,
    task: Option<&TaskRow>,
) -> Result<u64, StoreError> {
    let now = chrono::Utc::now().timestamp_micros();
    let mut tx = connection.begin().await.map_err(StoreError::backend)?;
    sqlx::query(
        "DELETE FROM idempotency_keys
         WHERE agent = ? AND caller = ? AND key = ? AND expires_us <= ?",
    )
    .bind(&key.scope.agent)
    .bind(&key.scope.caller)
    .bind(&key.scope.key)
    .bind(now)
    .execute(&mut *tx)
    .await
    .map_err(StoreError::backend)?;
    let claimed = sqlx::query(
        "INSERT INTO idempotency_keys
             (agent, caller, key, fingerprint, task_id, item, expires_us)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING",
    )
    .bind(&key.scope.agent)
    .bind(&key.scope.caller)
    .bind(&key.scope.key)
    .bind(&key.fingerprint)
    .bind(&key.task_id)
    .bind(&key.item)
    .bind(key.expires_at.timestamp_micros())
    .execute(&mut *tx)
    .await
    .map_err(StoreError::backend)?
    .rows_affected();
    if claimed == 1
        && let Some(row) = task
    {
        let created = sqlx::query(
            "INSERT INTO tasks
                 (id, owner, context_id, state, status_us, finished_us, version, body, agent)
             VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&row.id)
        .bind(&row.owner)
        .bind(&row.context_id)
        .bind(row.state)
        .bind(row.status_us)
        .bind(row.finished_us)
        .bind(&row.body)
        .bind(&row.agent)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::backend)?
        .rows_affected();
        if created == 0 {
            // Dropping the transaction rolls the key back with it.
            return Err(StoreError::Exists(row.id.clone()));
        }
    }
    tx.commit().await.map_err(StoreError::backend)?;
    Ok(claimed)
}

/// The unexpired record of the key `scope` names.
pub(super) async fn find(
    reads: &SqlitePool,
    scope: &KeyScope,
) -> Result<Option<KeyRecord>, StoreError> {
    let row = sqlx::query(
        "SELECT fingerprint, task_id, item, expires_us FROM idempotency_keys
         WHERE agent = ? AND caller = ? AND key = ? AND expires_us > ?",
    )
    .bind(&scope.agent)
    .bind(&scope.caller)
    .bind(&scope.key)
    .bind(chrono::Utc::now().timestamp_micros())
    .fetch_optional(reads)
    .await
    .map_err(StoreError::backend)?;
    Ok(row.map(|row| crate::keys::record(scope, (row.get(0), row.get(1), row.get(2), row.get(3)))))
}
