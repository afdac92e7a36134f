//! The push outbox on Postgres: each entry belongs to the replica that saved it, which
//! delivers it; a replica whose lease ran out leaves its entries to the first survivor that
//! claims them (one `UPDATE`, so exactly one replica takes each).

use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::Row;
use sqlx::postgres::PgPool;

use a2a_runtime_core::task::outbox::{OutboxBackend, OutboxEntry};
use a2a_runtime_core::task::store::StoreError;
use a2a_runtime_types::util::BoxFuture;

/// The outbox of one replica.
#[derive(Debug)]
pub(super) struct PgOutbox {
    pub(super) pool: PgPool,
    pub(super) replica: String,
    /// Whether this replica took its own entries already (at startup, once).
    started: AtomicBool,
}

impl PgOutbox {
    pub(super) fn new(pool: PgPool, replica: String) -> Self {
        Self {
            pool,
            replica,
            started: AtomicBool::new(false),
        }
    }
}

impl OutboxBackend for PgOutbox {
    fn apply<'a>(
        &'a self,
        save: &'a [OutboxEntry],
        remove: &'a [String],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await.map_err(StoreError::backend)?;
            if !save.is_empty() {
                let ids: Vec<&str> = save.iter().map(|e| e.id.as_str()).collect();
                let tasks: Vec<&str> = save.iter().map(|e| e.task_id.as_str()).collect();
                let bodies: Vec<&str> = save.iter().map(|e| e.body.as_str()).collect();
                sqlx::query(
                    "INSERT INTO a2a_push_outbox (id, task_id, replica, body)
                     SELECT id, task_id, $4, body
                     FROM UNNEST($1::text[], $2::text[], $3::text[]) AS e(id, task_id, body)
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&ids)
                .bind(&tasks)
                .bind(&bodies)
                .bind(&self.replica)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::backend)?;
            }
            if !remove.is_empty() {
                sqlx::query("DELETE FROM a2a_push_outbox WHERE id = ANY($1)")
                    .bind(remove)
                    .execute(&mut *tx)
                    .await
                    .map_err(StoreError::backend)?;
            }
            tx.commit().await.map_err(StoreError::backend)
        })
    }

    fn pending(&self) -> BoxFuture<'_, Result<Vec<OutboxEntry>, StoreError>> {
        Box::pin(async move {
            // The first call (at startup) also takes this replica's own entries (a restarted
            // process has a new id, so those are of no live replica either); later calls only
            // those of departed replicas, the rest being queued here already.
            let own = !self.started.swap(true, Ordering::AcqRel);
            let rows = sqlx::query(
                "UPDATE a2a_push_outbox SET replica = $1
                 WHERE ($2 AND replica = $1)
                    OR replica NOT IN (SELECT id FROM a2a_replicas WHERE lease_until > now())
                 RETURNING id, task_id, body",
            )
            .bind(&self.replica)
            .bind(own)
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::backend)?;
            let mut entries: Vec<OutboxEntry> = rows
                .iter()
                .map(|row| OutboxEntry {
                    id: row.get(0),
                    task_id: row.get(1),
                    body: row.get(2),
                })
                .collect();
            entries.sort_by(|a, b| a.id.cmp(&b.id));
            Ok(entries)
        })
    }
}
