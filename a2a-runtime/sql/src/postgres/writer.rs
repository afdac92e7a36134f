//! Writes to `a2a_tasks`, batched: whatever creates and updates have queued up while the last
//! batch was written go to the database as one statement (rows bound as arrays and unnested),
//! each still conditional on its own version. A busy replica pays one round trip and one commit
//! for many task writes.

use std::collections::{HashMap, HashSet};

use sqlx::PgPool;
use tokio::sync::{mpsc, oneshot};

use a2a_runtime_core::task::store::StoreError;

/// The most writes in one statement.
const MAX_BATCH: usize = 256;

/// A task row as written.
pub(super) struct Row {
    pub(super) id: String,
    pub(super) owner: String,
    pub(super) agent: String,
    pub(super) context_id: String,
    pub(super) state: &'static str,
    pub(super) status_us: i64,
    pub(super) finished_us: Option<i64>,
    pub(super) body: String,
    pub(super) runner: Option<String>,
}

/// One queued write: a create (`replaces` is `None`) or an update of version `replaces`.
struct Write {
    row: Row,
    replaces: Option<u64>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The queue of the writer task.
#[derive(Debug, Clone)]
pub(super) struct Writer {
    queue: mpsc::Sender<Write>,
}

impl Writer {
    /// Starts the writer task on `pool`; it stops when every `Writer` is dropped.
    pub(super) fn start(pool: PgPool) -> Self {
        let (queue, writes) = mpsc::channel(4 * MAX_BATCH);
        tokio::spawn(write_loop(pool, writes));
        Self { queue }
    }

    /// Writes `row`: a create when `replaces` is `None`, else an update of that version.
    pub(super) async fn write(&self, row: Row, replaces: Option<u64>) -> Result<(), StoreError> {
        let (done, outcome) = oneshot::channel();
        let write = Write {
            row,
            replaces,
            done,
        };
        let stopped = || StoreError::backend("the Postgres writer stopped");
        self.queue.send(write).await.map_err(|_| stopped())?;
        outcome.await.map_err(|_| stopped())?
    }
}

async fn write_loop(pool: PgPool, mut writes: mpsc::Receiver<Write>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while writes.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // One statement cannot write a row twice: a later write of the same task waits for
        // the next round (the task manager never has two in flight, so this is rare).
        while !batch.is_empty() {
            let mut ids = HashSet::new();
            let (round, later): (Vec<Write>, Vec<Write>) =
                batch.drain(..).partition(|w| ids.insert(w.row.id.clone()));
            let outcomes = upsert(&pool, &round).await;
            for (write, outcome) in round.into_iter().zip(outcomes) {
                let _ = write.done.send(outcome);
            }
            batch = later;
        }
    }
}

/// The writes of `round` (distinct tasks) as one statement; each write's outcome.
async fn upsert(pool: &PgPool, round: &[Write]) -> Vec<Result<(), StoreError>> {
    let version = |w: &Write| i64::try_from(w.replaces.map_or(1, |v| v + 1)).unwrap_or(i64::MAX);
    // A create (version 1) only inserts; an update only replaces the version before it, and
    // never recreates a task deleted meanwhile. Rows neither inserted nor updated are not
    // returned.
    let written = sqlx::query_scalar::<_, String>(
        "WITH v AS (
             SELECT * FROM UNNEST($1::TEXT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::INT8[],
                                  $6::INT8[], $7::INT8[], $8::TEXT[], $9::TEXT[], $10::TEXT[])
                 AS v(id, owner, context_id, state, status_us, finished_us, version, body, runner,
                      agent))
         INSERT INTO a2a_tasks AS t
             (id, owner, context_id, state, status_us, finished_us, version, body, runner, agent)
         SELECT id, owner, context_id, state, status_us, finished_us, version, body, runner, agent
         FROM v WHERE v.version = 1 OR EXISTS (SELECT 1 FROM a2a_tasks x WHERE x.id = v.id)
         ON CONFLICT (id) DO UPDATE SET
             owner = excluded.owner, agent = excluded.agent, context_id = excluded.context_id,
             state = excluded.state,
             status_us = excluded.status_us,
             finished_us = CASE WHEN excluded.finished_us IS NULL THEN NULL
                                ELSE COALESCE(t.finished_us, excluded.finished_us) END,
             version = excluded.version, body = excluded.body, runner = excluded.runner
         WHERE t.version = excluded.version - 1
         RETURNING t.id",
    )
    .bind(round.iter().map(|w| w.row.id.clone()).collect::<Vec<_>>())
    .bind(
        round
            .iter()
            .map(|w| w.row.owner.clone())
            .collect::<Vec<_>>(),
    )
    .bind(
        round
            .iter()
            .map(|w| w.row.context_id.clone())
            .collect::<Vec<_>>(),
    )
    .bind(round.iter().map(|w| w.row.state).collect::<Vec<_>>())
    .bind(round.iter().map(|w| w.row.status_us).collect::<Vec<_>>())
    .bind(round.iter().map(|w| w.row.finished_us).collect::<Vec<_>>())
    .bind(round.iter().map(version).collect::<Vec<_>>())
    .bind(round.iter().map(|w| w.row.body.clone()).collect::<Vec<_>>())
    .bind(
        round
            .iter()
            .map(|w| w.row.runner.clone())
            .collect::<Vec<_>>(),
    )
    .bind(
        round
            .iter()
            .map(|w| w.row.agent.clone())
            .collect::<Vec<_>>(),
    )
    .fetch_all(pool)
    .await;
    let written: HashSet<String> = match written {
        Ok(ids) => ids.into_iter().collect(),
        Err(error) => {
            let message = error.to_string();
            return round
                .iter()
                .map(|_| Err(StoreError::backend(message.clone())))
                .collect();
        }
    };
    let stored = stored_versions(pool, round, &written).await;
    round
        .iter()
        .map(|w| outcome(w, &written, &stored))
        .collect()
}

/// The stored versions of the tasks of `round` that were not `written`, to tell a conflict from
/// a missing task (rare, so one query for them all).
async fn stored_versions(
    pool: &PgPool,
    round: &[Write],
    written: &HashSet<String>,
) -> HashMap<String, i64> {
    let refused: Vec<String> = round
        .iter()
        .filter(|w| !written.contains(&w.row.id))
        .map(|w| w.row.id.clone())
        .collect();
    let mut stored = HashMap::new();
    if !refused.is_empty()
        && let Ok(found) = sqlx::query_as::<_, (String, i64)>(
            "SELECT id, version FROM a2a_tasks WHERE id = ANY($1)",
        )
        .bind(&refused)
        .fetch_all(pool)
        .await
    {
        stored.extend(found);
    }
    stored
}

/// The outcome of write `w`: written, or why not (`stored` holds the versions of refused ones).
fn outcome(
    w: &Write,
    written: &HashSet<String>,
    stored: &HashMap<String, i64>,
) -> Result<(), StoreError> {
    if written.contains(&w.row.id) {
        return Ok(());
    }
    let id = w.row.id.clone();
    Err(match (w.replaces, stored.get(&w.row.id)) {
        (None, _) => StoreError::Exists(id),
        (Some(expected), Some(actual)) => StoreError::Conflict {
            id,
            expected,
            actual: u64::try_from(*actual).unwrap_or(0),
        },
        (Some(_), None) => StoreError::Missing(id),
    })
}
