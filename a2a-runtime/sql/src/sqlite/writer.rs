//! The SQLite store's one writer: a thread of its own holding the write connection, committing
//! queued writes in batches, every create and update of a round in one statement, each
//! conditional on its own version.
//!
//! The writer runs its statements itself: a commit is a call on this thread, not a command sent
//! to sqlx's connection thread with its rows sent back one by one to a task woken for each. At
//! c=16 on two cores, when the writer was a task, that round trip and the turns it gave the
//! runtime to gather a batch were two thirds of its cycle, while the next batch's requests
//! waited; a thread's turn only gives up its core.

use std::collections::{HashMap, HashSet};

use rusqlite::types::{Null, ToSql};
use rusqlite::{CachedStatement, Connection};

use super::*;

/// Prepared statements the writer keeps, by text: each kind of statement has a text per room
/// (a power of two of rows, see [`room_for`]), a keyed round three kinds.
const CACHED_STATEMENTS: usize = 64;

/// The most times the writer gives up its core before a commit, while each time brings more
/// writes: under load the requests running on the runtime's threads add theirs to this
/// commit (one commit for them all; most of a commit's cost is per commit, not per write); a
/// lone write goes on after one turn that brought nothing.
const GATHER_TURNS: usize = 4;

/// Starts the writer's thread on the connection `connection`, committing what `queue` brings
/// until every sender is gone; `commits` counts its commits.
pub(super) fn start(
    mut connection: Connection,
    queue: mpsc::Receiver<Write>,
    commits: Arc<AtomicU64>,
) -> Result<(), StoreError> {
    connection.set_prepared_statement_cache_capacity(CACHED_STATEMENTS);
    // Unbounded, yet bounded by the writes: one delivery per commit, and each write's request
    // waits for its outcome, so no more deliveries are pending than writes were queued.
    let (delivered, deliveries) = mpsc::unbounded_channel();
    tokio::spawn(deliver(deliveries));
    std::thread::Builder::new()
        .name("a2a-sqlite-writer".to_owned())
        .spawn(move || write_loop(&mut connection, queue, &commits, &delivered))
        .map(drop)
        .map_err(|error| StoreError::backend(format!("cannot start the SQLite writer: {error}")))
}

/// Commits queued writes in batches until every sender is gone: whatever queued while the last
/// batch was committed, and over up to [`GATHER_TURNS`] turns after, is the next one.
fn write_loop(
    connection: &mut Connection,
    mut queue: mpsc::Receiver<Write>,
    commits: &AtomicU64,
    delivered: &mpsc::UnboundedSender<Delivery>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(write) = queue.blocking_recv() {
        batch.push(write);
        for _ in 0..GATHER_TURNS {
            let gathered = batch.len();
            std::thread::yield_now();
            while batch.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(write) => batch.push(write),
                    Err(_) => break,
                }
            }
            if batch.len() == gathered || batch.len() == MAX_BATCH {
                break;
            }
        }
        let outcomes = commit(connection, &batch);
        commits.fetch_add(1, Ordering::Release);
        let delivery = batch
            .drain(..)
            .map(|write| write.done)
            .zip(outcomes)
            .collect();
        if let Err(undelivered) = delivered.send(delivery) {
            // The runtime is gone: told from here, the waiting requests learn what they can.
            for (done, outcome) in undelivered.0 {
                let _ = done.send(outcome);
            }
        }
    }
}

/// A commit's outcomes and where each goes.
type Delivery = Vec<(
    oneshot::Sender<Result<u64, StoreError>>,
    Result<u64, StoreError>,
)>;

/// Hands each commit's outcomes to the requests waiting on them, from a task of the runtime:
/// the writer wakes it once per commit, and it wakes the requests as a task wakes tasks (a
/// request woken by the writer's thread itself goes through the runtime's shared queue and
/// may wake a parked worker thread, for each write).
async fn deliver(mut deliveries: mpsc::UnboundedReceiver<Delivery>) {
    while let Some(delivery) = deliveries.recv().await {
        for (done, outcome) in delivery {
            let _ = done.send(outcome);
        }
    }
}

/// Applies `batch`: every create and update in one statement per round (ids are unique within a
/// round; the task manager never has two writes of one task in flight, so there is one round),
/// each conditional on its own version; the idempotency key claims of the round (keys unique
/// within it) in the same transaction; then deletes and sweeps. Each write gets its own
/// outcome; a database failure fails the writes it touched.
fn commit(connection: &mut Connection, batch: &[Write]) -> Vec<Result<u64, StoreError>> {
    let mut outcomes: Vec<Option<Result<u64, StoreError>>> =
        (0..batch.len()).map(|_| None).collect();
    let mut writes: Vec<usize> = (0..batch.len())
        .filter(|&i| matches!(batch[i].op, Op::Create(_) | Op::Update(..)))
        .collect();
    let mut claims: Vec<usize> = (0..batch.len())
        .filter(|&i| matches!(batch[i].op, Op::Claim(..)))
        .collect();
    while !writes.is_empty() || !claims.is_empty() {
        let (write_round, later_writes) = distinct(&writes, |i| match &batch[i].op {
            Op::Create(row) | Op::Update(row, _) => Some(row.id.as_str()),
            _ => None,
        });
        let (claim_round, later_claims) = distinct(&claims, |i| match &batch[i].op {
            Op::Claim(key, _) => Some(&key.scope),
            _ => None,
        });
        let results = if claim_round.is_empty() {
            upsert(connection, batch, &write_round)
        } else {
            super::keys::claim_round(connection, batch, &claim_round, &write_round)
        };
        for (i, outcome) in claim_round.into_iter().chain(write_round).zip(results) {
            outcomes[i] = Some(outcome);
        }
        (writes, claims) = (later_writes, later_claims);
    }
    for (i, write) in batch.iter().enumerate() {
        if outcomes[i].is_none() {
            outcomes[i] = Some(apply(connection, &write.op).map_err(StoreError::backend));
        }
    }
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(StoreError::backend("write not applied"))))
        .collect()
}

/// `pending` split into a round whose items are distinct by `key` (the first of each) and the
/// rest, for later rounds. (Only writes of the kind `key` reads are pending: it never says
/// `None` for one.)
fn distinct<'b, K: Eq + std::hash::Hash + ?Sized + 'b>(
    pending: &[usize],
    key: impl Fn(usize) -> Option<&'b K>,
) -> (Vec<usize>, Vec<usize>) {
    let mut seen = std::collections::HashSet::new();
    pending.iter().partition(|&&i| seen.insert(key(i)))
}

/// How many rows a statement writing `rows` has room for: the next power of two (none for
/// none), the rest bound as NULL rows its conditions leave out. A round's statement text depends
/// on its row counts, and the writer keeps prepared statements by their text
/// ([`CACHED_STATEMENTS`]): exact counts, combined as a keyed round combines three of them,
/// made hundreds of texts, each parsed and planned again once evicted (7.7% of the process
/// under a keyed load at c=16).
pub(super) fn room_for(rows: usize) -> usize {
    match rows {
        0 => 0,
        _ => rows.checked_next_power_of_two().unwrap_or(rows),
    }
}

/// The statement writing up to `rows` task rows at once (nine parameters each; a row whose
/// version is NULL writes nothing).
pub(super) fn upsert_sql(rows: usize) -> String {
    let values = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?)"; room_for(rows)].join(", ");
    // A create carries version 1 and may only insert; an update carries the version it makes
    // and may only replace the row at the version before it (so a missing task is not
    // recreated). Rows neither inserted nor updated are not returned.
    format!(
        "INSERT INTO tasks
             (id, owner, context_id, state, status_us, finished_us, version, body, agent)
         SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9
         FROM (VALUES {values}) AS v
         WHERE v.column7 = 1 OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = v.column1)
         ON CONFLICT (id) DO UPDATE SET
             owner = excluded.owner, agent = excluded.agent, context_id = excluded.context_id,
             state = excluded.state,
             status_us = excluded.status_us,
             finished_us = CASE WHEN excluded.finished_us IS NULL THEN NULL
                                ELSE COALESCE(tasks.finished_us, excluded.finished_us) END,
             version = excluded.version, body = excluded.body
         WHERE tasks.version = excluded.version - 1
         RETURNING id"
    )
}

/// The creates and updates at `indices` of `batch`, as one statement.
fn upsert(
    connection: &Connection,
    batch: &[Write],
    indices: &[usize],
) -> Vec<Result<u64, StoreError>> {
    let rows = upsert_rows(batch, indices);
    let written = run_upsert(connection, &rows);
    upsert_outcomes(connection, batch, indices, &rows, written)
}

/// Runs [`upsert_sql`] for `rows`: the ids of the rows it wrote.
pub(super) fn run_upsert(
    connection: &Connection,
    rows: &[(&TaskRow, u64)],
) -> rusqlite::Result<HashSet<String>> {
    let mut statement = connection.prepare_cached(&upsert_sql(rows.len()))?;
    let mut params = Params::of(&mut statement);
    for (row, version) in rows {
        params.row(row, *version)?;
    }
    params.unused_room(rows.len(), 9)?;
    let mut returned = statement.raw_query();
    let mut written = HashSet::with_capacity(rows.len());
    while let Some(row) = returned.next()? {
        written.insert(row.get::<_, String>(0)?);
    }
    Ok(written)
}

/// The rows the creates and updates at `indices` of `batch` write, each with the version it
/// makes.
pub(super) fn upsert_rows<'b>(batch: &'b [Write], indices: &[usize]) -> Vec<(&'b TaskRow, u64)> {
    indices
        .iter()
        .filter_map(|&i| match &batch[i].op {
            Op::Create(row) => Some((row, 1)),
            Op::Update(row, version) => Some((row, version + 1)),
            _ => None,
        })
        .collect()
}

/// A prepared statement's parameters, bound in order.
pub(super) struct Params<'s, 'c> {
    statement: &'s mut CachedStatement<'c>,
    next: usize,
}

impl<'s, 'c> Params<'s, 'c> {
    /// Binds `statement`'s parameters from the first.
    pub(super) fn of(statement: &'s mut CachedStatement<'c>) -> Self {
        Self { statement, next: 1 }
    }

    /// Binds the next parameter to `value`.
    pub(super) fn bind(&mut self, value: impl ToSql) -> rusqlite::Result<&mut Self> {
        self.statement.raw_bind_parameter(self.next, value)?;
        self.next += 1;
        Ok(self)
    }

    /// Binds `row`'s nine columns, at `version`, in the tasks table's order.
    pub(super) fn row(&mut self, row: &TaskRow, version: u64) -> rusqlite::Result<&mut Self> {
        self.bind(&row.id)?
            .bind(&row.owner)?
            .bind(&row.context_id)?
            .bind(row.state)?
            .bind(row.status_us)?
            .bind(row.finished_us)?
            .bind(i64::try_from(version).unwrap_or(i64::MAX))?
            .bind(&row.body)?
            .bind(&row.agent)
    }

    /// Binds NULL to the rows of `columns` columns left unused by a list of `rows` in its
    /// statement's room (see [`room_for`]).
    pub(super) fn unused_room(&mut self, rows: usize, columns: usize) -> rusqlite::Result<()> {
        for _ in 0..(room_for(rows) - rows) * columns {
            self.bind(Null)?;
        }
        Ok(())
    }
}

/// The outcome of each of the writes at `indices`, whose `rows` the statement ran with: the
/// ids it `written`, or why it failed.
pub(super) fn upsert_outcomes(
    connection: &Connection,
    batch: &[Write],
    indices: &[usize],
    rows: &[(&TaskRow, u64)],
    written: rusqlite::Result<HashSet<String>>,
) -> Vec<Result<u64, StoreError>> {
    let written = match written {
        Ok(written) => written,
        Err(error) => {
            return rows
                .iter()
                .map(|_| Err(StoreError::backend(error.to_string())))
                .collect();
        }
    };
    let refused: Vec<&TaskRow> = rows
        .iter()
        .filter(|(row, _)| !written.contains(&row.id))
        .map(|(row, _)| *row)
        .collect();
    let stored = stored_versions(connection, &refused);
    indices
        .iter()
        .zip(rows)
        .map(|(&i, (row, _))| {
            if written.contains(&row.id) {
                return Ok(1);
            }
            let actual = stored.get(&row.id).copied();
            Err(match (&batch[i].op, actual) {
                (Op::Create(_), _) => StoreError::Exists(row.id.clone()),
                (Op::Update(_, expected), Some(actual)) => StoreError::Conflict {
                    id: row.id.clone(),
                    expected: *expected,
                    actual: u64::try_from(actual).unwrap_or(0),
                },
                _ => StoreError::Missing(row.id.clone()),
            })
        })
        .collect()
}

/// The stored versions of the tasks whose writes were `refused`, to tell a conflict from a
/// missing task (rare, so one query for them all; none read, none found).
fn stored_versions(connection: &Connection, refused: &[&TaskRow]) -> HashMap<String, i64> {
    let read = || -> rusqlite::Result<HashMap<String, i64>> {
        let mut stored = HashMap::new();
        if refused.is_empty() {
            return Ok(stored);
        }
        let marks = vec!["?"; refused.len()].join(", ");
        let sql = format!("SELECT id, version FROM tasks WHERE id IN ({marks})");
        let mut statement = connection.prepare(&sql)?;
        let ids = refused.iter().map(|row| &row.id);
        let mut found = statement.query(rusqlite::params_from_iter(ids))?;
        while let Some(row) = found.next()? {
            stored.insert(row.get(0)?, row.get(1)?);
        }
        Ok(stored)
    };
    read().unwrap_or_default()
}

/// A delete, a sweep or outbox entries (creates and updates go through [`upsert`], claims
/// through their round).
fn apply(connection: &Connection, op: &Op) -> rusqlite::Result<u64> {
    match op {
        Op::Delete(id) => {
            connection
                .prepare_cached("DELETE FROM push_outbox WHERE task_id = ?")?
                .execute([id])?;
            let deleted = connection
                .prepare_cached("DELETE FROM tasks WHERE id = ?")?
                .execute([id])?;
            Ok(count(deleted))
        }
        Op::Outbox(save, remove) => {
            for rows in save.chunks(OUTBOX_ROWS_PER_STATEMENT) {
                let values = vec!["(?, ?, ?)"; rows.len()].join(", ");
                let sql = format!(
                    "INSERT OR REPLACE INTO push_outbox (id, task_id, body) VALUES {values}"
                );
                let columns = rows
                    .iter()
                    .flat_map(|entry| [&entry.id, &entry.task_id, &entry.body]);
                connection
                    .prepare(&sql)?
                    .execute(rusqlite::params_from_iter(columns))?;
            }
            for ids in remove.chunks(OUTBOX_ROWS_PER_STATEMENT) {
                let marks = vec!["?"; ids.len()].join(", ");
                let sql = format!("DELETE FROM push_outbox WHERE id IN ({marks})");
                connection
                    .prepare(&sql)?
                    .execute(rusqlite::params_from_iter(ids))?;
            }
            Ok(0)
        }
        Op::Sweep(finished_before, max_finished) => {
            sweep(connection, *finished_before, *max_finished)
        }
        Op::Create(_) | Op::Update(..) | Op::Claim(..) => Ok(0),
    }
}

/// Deletes the tasks finished before `finished_before` (µs) and beyond `max_finished` finished
/// ones, oldest first, and the expired idempotency keys (not tasks: not counted).
fn sweep(
    connection: &Connection,
    finished_before: Option<i64>,
    max_finished: Option<usize>,
) -> rusqlite::Result<u64> {
    connection
        .prepare_cached("DELETE FROM idempotency_keys WHERE expires_us <= ?")?
        .execute([chrono::Utc::now().timestamp_micros()])?;
    let mut deleted = 0;
    if let Some(before) = finished_before {
        deleted += connection
            .prepare_cached("DELETE FROM tasks WHERE finished_us < ?")?
            .execute([before])?;
    }
    if let Some(max) = max_finished {
        deleted += connection
            .prepare_cached(
                "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE finished_us IS NOT NULL
                 ORDER BY finished_us DESC LIMIT -1 OFFSET ?)",
            )?
            .execute([i64::try_from(max).unwrap_or(i64::MAX)])?;
    }
    Ok(count(deleted))
}

/// A row count as the store reports it.
fn count(rows: usize) -> u64 {
    u64::try_from(rows).unwrap_or(u64::MAX)
}

/// Hands `op` to the writer task and waits for it to be committed; the row count it touched.
pub(super) async fn submit(writes: &mpsc::Sender<Write>, op: Op) -> Result<u64, StoreError> {
    let stopped = || StoreError::backend("the SQLite writer stopped");
    let (done, outcome) = oneshot::channel();
    writes
        .send(Write { op, done })
        .await
        .map_err(|_| stopped())?;
    outcome.await.map_err(|_| stopped())?
}

#[cfg(test)]
mod tests {
    use super::room_for;

    #[test]
    fn a_list_has_room_for_the_next_power_of_two_of_rows_and_none_for_none() {
        let rooms: Vec<usize> = [0, 1, 2, 3, 5, 8, 9].into_iter().map(room_for).collect();
        assert_eq!(rooms, [0, 1, 2, 4, 8, 8, 16]);
    }
}
