//! Idempotency keys in SQLite: claimed by the one writer, the claims of a round in one
//! transaction with the tasks they create and the round's other writes; read back through
//! the read pool.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;
use sqlx::{Row, SqlitePool};

use super::writer::{Params, room_for, run_upsert, upsert_outcomes, upsert_rows};
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

/// One round of the writer's batch holding claims, as one transaction: the claims at `claims`
/// (of distinct keys) — their keys inserted together (an expired record replaced, a held one
/// left, none whose task id is already stored), then the tasks of the keys this round holds —
/// and the creates and updates at `writes`, written as the writer's upsert writes them. The
/// outcomes of the claims (1 for a key claimed, 0 for one not: held, or refused for its task's
/// id, which the caller reads back), then of the writes.
pub(super) fn claim_round(
    connection: &mut Connection,
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
    // A failed transaction was rolled back as it was dropped: nothing of it stays.
    let (mut outcomes, written): (Vec<Result<u64, StoreError>>, _) =
        match claim_in_transaction(connection, &picked, &rows) {
            Ok((claimed, written)) => (
                claimed
                    .into_iter()
                    .map(|claimed| Ok(u64::from(claimed)))
                    .collect(),
                Ok(written),
            ),
            Err(error) => (
                picked
                    .iter()
                    .map(|_| Err(StoreError::backend(error.to_string())))
                    .collect(),
                Err(error),
            ),
        };
    outcomes.extend(upsert_outcomes(connection, batch, writes, &rows, written));
    outcomes
}

/// The claims `picked` and the task `rows` in one transaction: whether each claim took its key,
/// and the ids of the rows written.
fn claim_in_transaction(
    connection: &mut Connection,
    picked: &[Claim<'_>],
    rows: &[(&TaskRow, u64)],
) -> rusqlite::Result<(Vec<bool>, HashSet<String>)> {
    let transaction = connection.transaction()?;
    let claimed = insert_keys(&transaction, picked)?;
    insert_tasks(&transaction, picked)?;
    let written = match rows.is_empty() {
        true => HashSet::new(),
        false => run_upsert(&transaction, rows)?,
    };
    transaction.commit()?;
    Ok((claimed, written))
}

/// Inserts the keys of `claims` (see [`claim_round`]): whether each was taken.
fn insert_keys(connection: &Connection, claims: &[Claim<'_>]) -> rusqlite::Result<Vec<bool>> {
    let mut statement = connection.prepare_cached(&keys_sql(claims.len()))?;
    let mut params = Params::of(&mut statement);
    for (key, task) in claims {
        params
            .bind(&*key.scope.agent)?
            .bind(&*key.scope.caller)?
            .bind(&*key.scope.key)?
            .bind(&key.fingerprint)?
            .bind(&key.task_id)?
            .bind(&key.item)?
            .bind(key.expires_at.timestamp_micros())?
            .bind(task.map(|row| &row.id))?;
    }
    params.unused_room(claims.len(), 8)?;
    params.bind(chrono::Utc::now().timestamp_micros())?;
    let at: HashMap<(&str, &str, &str), usize> = claims
        .iter()
        .enumerate()
        .map(|(at, (key, _))| ((&*key.scope.agent, &*key.scope.caller, &*key.scope.key), at))
        .collect();
    let mut claimed = vec![false; claims.len()];
    let mut returned = statement.raw_query();
    while let Some(row) = returned.next()? {
        let (agent, caller, key) = (row.get_ref(0)?, row.get_ref(1)?, row.get_ref(2)?);
        let scope = (agent.as_str()?, caller.as_str()?, key.as_str()?);
        if let Some(&at) = at.get(&scope) {
            claimed[at] = true;
        }
    }
    Ok(claimed)
}

/// Inserts the tasks of the `claims` that create one, each only if its key now names it.
fn insert_tasks(connection: &Connection, claims: &[Claim<'_>]) -> rusqlite::Result<()> {
    let creates = claims.iter().filter(|(_, task)| task.is_some()).count();
    if creates == 0 {
        return Ok(());
    }
    let mut statement = connection.prepare_cached(&tasks_sql(creates))?;
    let mut params = Params::of(&mut statement);
    for (key, task) in claims {
        let Some(row) = task else { continue };
        params
            .row(row, 1)?
            .bind(&*key.scope.agent)?
            .bind(&*key.scope.caller)?
            .bind(&*key.scope.key)?;
    }
    params.unused_room(creates, 12)?;
    statement.raw_execute().map(drop)
}

/// The statement inserting the keys of `claims` claims, returned when written; a key is not
/// taken for a task id already stored (so such a claim fails whole). Room for a power of two of
/// rows, the ones left over NULL (see `room_for`): a key without an agent.
fn keys_sql(claims: usize) -> String {
    let keys = vec!["(?, ?, ?, ?, ?, ?, ?, ?)"; room_for(claims)].join(", ");
    format!(
        "INSERT INTO idempotency_keys
             (agent, caller, key, fingerprint, task_id, item, expires_us)
         SELECT column1, column2, column3, column4, column5, column6, column7
         FROM (VALUES {keys}) AS v
         WHERE v.column1 IS NOT NULL
           AND (v.column8 IS NULL OR NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = v.column8))
         ON CONFLICT (agent, caller, key) DO UPDATE SET
             fingerprint = excluded.fingerprint, task_id = excluded.task_id,
             item = excluded.item, expires_us = excluded.expires_us
         WHERE idempotency_keys.expires_us <= ?
         RETURNING agent, caller, key"
    )
}

/// The statement inserting `creates` tasks of claims, each only if its key now names it (so a
/// key held by another request creates nothing). Room for a power of two of rows, as
/// [`keys_sql`]: a task without a key.
fn tasks_sql(creates: usize) -> String {
    let tasks = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"; room_for(creates)].join(", ");
    format!(
        "INSERT INTO tasks
             (id, owner, context_id, state, status_us, finished_us, version, body, agent)
         SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9
         FROM (VALUES {tasks}) AS v
         WHERE EXISTS (SELECT 1 FROM idempotency_keys k
                       WHERE k.agent = v.column10 AND k.caller = v.column11
                         AND k.key = v.column12 AND k.task_id = v.column1)
         ON CONFLICT (id) DO NOTHING"
    )
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
