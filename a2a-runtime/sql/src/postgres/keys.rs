//! Idempotency keys in Postgres: a claim is one statement that inserts the key (or replaces an
//! expired one) and, only if it did, the task, so both commit or neither does. Of replicas
//! claiming one key at once, the primary key lets one insert; the others wait for its commit
//! and find the key held.

use sqlx::{PgPool, Row};

use super::PostgresTaskStore;
use a2a_runtime_core::task::{KeyClaim, KeyRecord, KeyScope, StoreError, StoredTask};

/// The statement claiming a key: inserts it, or takes over an expired record of it; returns a
/// row only when it did. (A macro, so the claim with a task can embed the same text.)
macro_rules! claim_key {
    () => {
        "INSERT INTO a2a_idempotency_keys AS k
             (agent, caller, key, fingerprint, task_id, item, expires_us)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (agent, caller, key) DO UPDATE SET
             fingerprint = excluded.fingerprint, task_id = excluded.task_id,
             item = excluded.item, expires_us = excluded.expires_us
         WHERE k.expires_us <= $8
         RETURNING k.task_id"
    };
}

/// A key's claim alone (for a change of an existing task).
const CLAIM_KEY: &str = claim_key!();

/// The claim, and the task inserted in the same statement only if the key was claimed.
const CLAIM_WITH_TASK: &str = concat!(
    "WITH claimed AS (",
    claim_key!(),
    ") INSERT INTO a2a_tasks
         (id, owner, context_id, state, status_us, finished_us, version, body, runner, agent)
     SELECT $9, $10, $11, $12, $13, $14, 1, $15, $16, $17 FROM claimed
     RETURNING id"
);

impl PostgresTaskStore {
    /// [`TaskStore::claim_key`](a2a_runtime_core::task::TaskStore::claim_key).
    pub(super) async fn claim(
        &self,
        key: &KeyRecord,
        task: Option<&StoredTask>,
    ) -> Result<KeyClaim, StoreError> {
        let now = chrono::Utc::now().timestamp_micros();
        let claimed = match task {
            None => sqlx::query(CLAIM_KEY),
            Some(_) => sqlx::query(CLAIM_WITH_TASK),
        };
        let mut query = claimed
            .bind(&*key.scope.agent)
            .bind(&*key.scope.caller)
            .bind(&*key.scope.key)
            .bind(&key.fingerprint)
            .bind(&key.task_id)
            .bind(&key.item)
            .bind(key.expires_at.timestamp_micros())
            .bind(now);
        if let Some(task) = task {
            let row = self.row(task)?;
            query = query
                .bind(row.id)
                .bind(row.owner)
                .bind(row.context_id)
                .bind(row.state)
                .bind(row.status_us)
                .bind(row.finished_us)
                .bind(row.body)
                .bind(row.runner)
                .bind(row.agent);
        }
        let claimed = query
            .fetch_optional(&self.pool)
            .await
            .map_err(StoreError::backend)?;
        if claimed.is_some() {
            return Ok(KeyClaim::Claimed);
        }
        crate::keys::held(find(&self.pool, &key.scope).await?)
    }
}

/// The unexpired record of the key `scope` names.
pub(super) async fn find(pool: &PgPool, scope: &KeyScope) -> Result<Option<KeyRecord>, StoreError> {
    let row = sqlx::query(
        "SELECT fingerprint, task_id, item, expires_us FROM a2a_idempotency_keys
         WHERE agent = $1 AND caller = $2 AND key = $3 AND expires_us > $4",
    )
    .bind(&*scope.agent)
    .bind(&*scope.caller)
    .bind(&*scope.key)
    .bind(chrono::Utc::now().timestamp_micros())
    .fetch_optional(pool)
    .await
    .map_err(StoreError::backend)?;
    Ok(row.map(|row| crate::keys::record(scope, (row.get(0), row.get(1), row.get(2), row.get(3)))))
}
