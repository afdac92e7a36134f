//! Idempotency keys in SQLite: claimed by the one writer, the claims of a round in one
//! transaction with the tasks they create and the round's other writes; read back through
//! the read pool.

use std::collections::HashMap;

use sqlx::{AssertSqlSafe, Row, SqliteConnection, SqlitePool};

use super::writer::{
    bind_row, bind_upsert, room_for, unused_room, upsert_outcomes, upsert_rows, upsert_sql,
};
use super::{Op, SqliteTaskStore, TaskRow, Write, submit};
use a2a_runtime_core::task::{KeyClaim, KeyRecord, KeyScope, StoreError, StoredTask, TaskStore};

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
        // only one, so nothing changes it in between but its expiry). Not held: the claim
        // was refused for its task, whose id is stored already.
        if let Some(held) = find(&self.reads, &key.scope).await? {
            return Ok(KeyClaim::Held(held));
        }
        match task {
            Some(task)
                if TaskStore::get(self, &task.task.id, Some(0))
                    .await?
                    .is_some() =>
            {
                Err(StoreError::Exists(task.task.id.clone()))
            }
            _ => crate::keys::held(None),
        }
    }
}

/// A claim as the writer applies it: the key's record and the task it creates, if any.
type Claim<'a> = (&'a KeyRecord, Option<&'a TaskRow>);

/// One round of the writer's batch holding claims, as one transaction sent to SQLite at once:
/// the claims at `claims` (of distinct keys) — their keys inserted together (an expired record
/// replaced, a held one left, none whose task id is already stored), then the tasks of the
/// keys this round holds — and the creates and updates at `writes`, written as the writer's
/// upsert writes them. The outcomes of the claims (1 for a key claimed, 0 for one not: held,
/// or refused for its task's id, which the caller reads back), then of the writes.
pub(super) async fn claim_round(
    connection: &mut SqliteConnection,
    batch: &[Write],
    claims: &[usize],
    writes: &[usize],
) -> Vec<Result<u64, StoreError>> {
    let picked: Vec<Claim<'_>> = claims
        .iter()
        .filter_map(|&i| match &batch[i].op {
            Op::Claim(key, task) => Some((key, task.as_ref())),
            _ => None,
        })
        .collect();
    let rows = upsert_rows(batch, writes);
    let mut sql = claim_sql(&picked);
    if !rows.is_empty() {
        sql.push_str(&upsert_sql(rows.len()));
        sql.push(';');
    }
    sql.push_str("COMMIT;");
    let query = bind_upsert(bind_claims(sqlx::query(AssertSqlSafe(sql)), &picked), &rows);
    let returned = match query.fetch_all(&mut *connection).await {
        Ok(returned) => returned,
        Err(error) => {
            // A statement that failed left the transaction open: nothing of it stays.
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *connection).await;
            let mut outcomes: Vec<_> = picked
                .iter()
                .map(|_| Err(StoreError::backend(error.to_string())))
                .collect();
            outcomes.extend(upsert_outcomes(connection, batch, writes, &rows, Err(error)).await);
            return outcomes;
        }
    };
    // The keys' statement returns three columns, the upsert's one.
    let (keys, ids): (Vec<_>, Vec<_>) = returned.iter().partition(|row| row.len() == 3);
    let at: HashMap<(&str, &str, &str), usize> = picked
        .iter()
        .enumerate()
        .map(|(at, (key, _))| ((&*key.scope.agent, &*key.scope.caller, &*key.scope.key), at))
        .collect();
    let mut outcomes: Vec<Result<u64, StoreError>> = picked.iter().map(|_| Ok(0)).collect();
    for row in keys {
        let scope = (
            row.get::<&str, _>(0),
            row.get::<&str, _>(1),
            row.get::<&str, _>(2),
        );
        if let Some(&at) = at.get(&scope) {
            outcomes[at] = Ok(1);
        }
    }
    let written = ids.iter().map(|row| row.get::<String, _>(0)).collect();
    outcomes.extend(upsert_outcomes(connection, batch, writes, &rows, Ok(written)).await);
    outcomes
}

/// `query` with the parameters of [`claim_sql`] for `claims` bound, in order.
fn bind_claims<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    claims: &[Claim<'q>],
) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    for (key, task) in claims {
        query = query
            .bind(&*key.scope.agent)
            .bind(&*key.scope.caller)
            .bind(&*key.scope.key)
            .bind(&key.fingerprint)
            .bind(&key.task_id)
            .bind(&key.item)
            .bind(key.expires_at.timestamp_micros())
            .bind(task.map(|row| &row.id));
    }
    query = unused_room(query, claims.len(), 8);
    query = query.bind(chrono::Utc::now().timestamp_micros());
    let mut creates = 0;
    for (key, task) in claims {
        let Some(row) = task else { continue };
        creates += 1;
        query = bind_row(query, row, 1)
            .bind(&*key.scope.agent)
            .bind(&*key.scope.caller)
            .bind(&*key.scope.key);
    }
    unused_room(query, creates, 12)
}

/// The transaction's start and the statements of a round of `claims`. The keys go first,
/// returned when written; a task goes in only if its key now names it (so a key held by
/// another request creates nothing), and a key is not taken for a task id already stored (so
/// such a claim fails whole). Each list has room for a power of two of rows, the ones left
/// over NULL (see `room_for`): a key without an agent, a task without a key.
fn claim_sql(claims: &[Claim<'_>]) -> String {
    let creates = claims.iter().filter(|(_, task)| task.is_some()).count();
    let keys = vec!["(?, ?, ?, ?, ?, ?, ?, ?)"; room_for(claims.len())].join(", ");
    let mut sql = format!(
        "BEGIN;
         INSERT INTO idempotency_keys
             (agent, caller, key, fingerprint, task_id, item, expires_us)
         SELECT column1, column2, column3, column4, column5, column6, column7
         FROM (VALUES {keys}) AS v
         WHERE v.column1 IS NOT NULL
           AND (v.column8 IS NULL OR NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = v.column8))
         ON CONFLICT (agent, caller, key) DO UPDATE SET
             fingerprint = excluded.fingerprint, task_id = excluded.task_id,
             item = excluded.item, expires_us = excluded.expires_us
         WHERE idempotency_keys.expires_us <= ?
         RETURNING agent, caller, key;"
    );
    if creates > 0 {
        let tasks = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"; room_for(creates)].join(", ");
        sql.push_str(&format!(
            "INSERT INTO tasks
                 (id, owner, context_id, state, status_us, finished_us, version, body, agent)
             SELECT column1, column2, column3, column4, column5, column6, column7, column8,
                    column9
             FROM (VALUES {tasks}) AS v
             WHERE EXISTS (SELECT 1 FROM idempotency_keys k
                           WHERE k.agent = v.column10 AND k.caller = v.column11
                             AND k.key = v.column12 AND k.task_id = v.column1)
             ON CONFLICT (id) DO NOTHING;"
        ));
    }
    sql
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
    .bind(&*scope.agent)
    .bind(&*scope.caller)
    .bind(&*scope.key)
    .bind(chrono::Utc::now().timestamp_micros())
    .fetch_optional(reads)
    .await
    .map_err(StoreError::backend)?;
    Ok(row.map(|row| crate::keys::record(scope, (row.get(0), row.get(1), row.get(2), row.get(3)))))
}
