//! The SQLite store's one writer: queued writes committed in batches, every create and update
//! of a round in one statement, each conditional on its own version.

use super::*;

/// The most turns the writer gives the running tasks before a commit, while each brings more
/// writes. Most of a commit's cost is per commit, not per write (the pages of the indexes and
/// the tree above them, the round trip to SQLite's thread): at c=16 on two cores, up to four
/// turns raised the writes per commit from 5.3 to 5.8 keyed requests and from 8.3 to 10.0
/// stored-first ones, and the WAL frames per keyed request fell from 4.0 to 3.6; more turns
/// gathered no more.
const GATHER_TURNS: usize = 4;

/// Commits queued writes in batches until every sender is gone.
pub(super) async fn write_loop(
    mut connection: SqliteConnection,
    mut queue: mpsc::Receiver<Write>,
    commits: Arc<AtomicU64>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // The tasks already running get their turn before the commit: under load their
        // writes join this one's round (one commit for them all), and as long as a turn brings
        // more, another is given; a lone write goes on after one turn that brought nothing.
        for _ in 0..GATHER_TURNS {
            let gathered = batch.len();
            tokio::task::yield_now().await;
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
        let outcomes = commit(&mut connection, &mut batch).await;
        commits.fetch_add(1, Ordering::Release);
        for (write, outcome) in batch.drain(..).zip(outcomes) {
            let _ = write.done.send(outcome);
        }
    }
}

/// Applies `batch`: every create and update in one statement per round (ids are unique within a
/// round; the task manager never has two writes of one task in flight, so there is one round),
/// each conditional on its own version; the idempotency key claims of the round (keys unique
/// within it) in the same transaction; then deletes and sweeps. Each write gets its own
/// outcome; a database failure fails the writes it touched.
async fn commit(
    connection: &mut SqliteConnection,
    batch: &mut [Write],
) -> Vec<Result<u64, StoreError>> {
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
            upsert(connection, batch, &write_round).await
        } else {
            super::keys::claim_round(connection, batch, &claim_round, &write_round).await
        };
        for (i, outcome) in claim_round.into_iter().chain(write_round).zip(results) {
            outcomes[i] = Some(outcome);
        }
        (writes, claims) = (later_writes, later_claims);
    }
    for (i, write) in batch.iter().enumerate() {
        if outcomes[i].is_none() {
            outcomes[i] = Some(match apply(connection, &write.op).await {
                Ok(count) => Ok(count),
                Err(error) => Err(StoreError::backend(error)),
            });
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
/// none), the rest bound as NULL rows its conditions leave out. A round's statement text depends on its row
/// counts, and the connection keeps prepared statements by their text (sqlx caches 100): exact
/// counts, combined as a keyed round combines three of them, made hundreds of texts, each
/// parsed and planned again once evicted (7.7% of the process under a keyed load at c=16).
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
async fn upsert(
    connection: &mut SqliteConnection,
    batch: &[Write],
    indices: &[usize],
) -> Vec<Result<u64, StoreError>> {
    let rows = upsert_rows(batch, indices);
    let query = bind_upsert(sqlx::query(AssertSqlSafe(upsert_sql(rows.len()))), &rows);
    let written = match query.fetch_all(&mut *connection).await {
        Ok(returned) => Ok(returned.iter().map(|r| r.get::<String, _>(0)).collect()),
        Err(error) => Err(error),
    };
    upsert_outcomes(connection, batch, indices, &rows, written).await
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

/// `query` with the parameters of [`upsert_sql`] for `rows` bound, in order.
pub(super) fn bind_upsert<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    rows: &[(&'q TaskRow, u64)],
) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    for (row, version) in rows {
        query = bind_row(query, row, *version);
    }
    unused_room(query, rows.len(), 9)
}

/// `query` with NULL parameters for the rows of `columns` columns left unused by a list of
/// `rows` in its statement's room (see [`room_for`]).
pub(super) fn unused_room<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    rows: usize,
    columns: usize,
) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    for _ in 0..(room_for(rows) - rows) * columns {
        query = query.bind(None::<&str>);
    }
    query
}

/// `query` with `row`'s nine columns bound, at `version`, in the tasks table's order.
pub(super) fn bind_row<'q>(
    query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    row: &'q TaskRow,
    version: u64,
) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    query
        .bind(&row.id)
        .bind(&row.owner)
        .bind(&row.context_id)
        .bind(row.state)
        .bind(row.status_us)
        .bind(row.finished_us)
        .bind(i64::try_from(version).unwrap_or(i64::MAX))
        .bind(&row.body)
        .bind(&row.agent)
}

/// The outcome of each of the writes at `indices`, whose `rows` the statement ran with: the
/// ids it `written`, or why it failed.
pub(super) async fn upsert_outcomes(
    connection: &mut SqliteConnection,
    batch: &[Write],
    indices: &[usize],
    rows: &[(&TaskRow, u64)],
    written: Result<std::collections::HashSet<String>, sqlx::Error>,
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
    let stored = stored_versions(connection, &refused).await;
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
/// missing task (rare, so one query for them all).
async fn stored_versions(
    connection: &mut SqliteConnection,
    refused: &[&TaskRow],
) -> std::collections::HashMap<String, i64> {
    let mut stored = std::collections::HashMap::new();
    if refused.is_empty() {
        return stored;
    }
    let marks = vec!["?"; refused.len()].join(", ");
    let sql = format!("SELECT id, version FROM tasks WHERE id IN ({marks})");
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for row in refused {
        query = query.bind(&row.id);
    }
    if let Ok(found) = query.fetch_all(&mut *connection).await {
        for row in found {
            stored.insert(row.get::<String, _>(0), row.get::<i64, _>(1));
        }
    }
    stored
}

/// A delete or a sweep (creates and updates go through [`upsert`]).
async fn apply(connection: &mut SqliteConnection, op: &Op) -> Result<u64, sqlx::Error> {
    match op {
        Op::Delete(id) => {
            sqlx::query("DELETE FROM push_outbox WHERE task_id = ?")
                .bind(id)
                .execute(&mut *connection)
                .await?;
            Ok(sqlx::query("DELETE FROM tasks WHERE id = ?")
                .bind(id)
                .execute(&mut *connection)
                .await?
                .rows_affected())
        }
        Op::Outbox(save, remove) => {
            for rows in save.chunks(OUTBOX_ROWS_PER_STATEMENT) {
                let values = vec!["(?, ?, ?)"; rows.len()].join(", ");
                let sql = format!(
                    "INSERT OR REPLACE INTO push_outbox (id, task_id, body) VALUES {values}"
                );
                let mut query = sqlx::query(AssertSqlSafe(sql));
                for entry in rows {
                    query = query.bind(&entry.id).bind(&entry.task_id).bind(&entry.body);
                }
                query.execute(&mut *connection).await?;
            }
            for ids in remove.chunks(OUTBOX_ROWS_PER_STATEMENT) {
                let marks = vec!["?"; ids.len()].join(", ");
                let sql = format!("DELETE FROM push_outbox WHERE id IN ({marks})");
                let mut query = sqlx::query(AssertSqlSafe(sql));
                for id in ids {
                    query = query.bind(id);
                }
                query.execute(&mut *connection).await?;
            }
            Ok(0)
        }
        Op::Sweep(finished_before, max_finished) => {
            // Expired idempotency keys go too (they are not tasks: not counted).
            sqlx::query("DELETE FROM idempotency_keys WHERE expires_us <= ?")
                .bind(chrono::Utc::now().timestamp_micros())
                .execute(&mut *connection)
                .await?;
            let mut count = 0;
            if let Some(before) = finished_before {
                count += sqlx::query("DELETE FROM tasks WHERE finished_us < ?")
                    .bind(*before)
                    .execute(&mut *connection)
                    .await?
                    .rows_affected();
            }
            if let Some(max) = max_finished {
                count += sqlx::query(
                    "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE finished_us IS NOT NULL
                     ORDER BY finished_us DESC LIMIT -1 OFFSET ?)",
                )
                .bind(i64::try_from(*max).unwrap_or(i64::MAX))
                .execute(&mut *connection)
                .await?
                .rows_affected();
            }
            Ok(count)
        }
        Op::Create(_) | Op::Update(..) | Op::Claim(..) => Ok(0),
    }
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
