//! [`SqliteTaskStore`]: tasks in an embedded SQLite file, the default store of `serve()`.
//!
//! One process owns a file (a lock file says so; a second server on the same file is refused
//! at startup). Reads use a small pool (WAL mode lets them run beside writes); writes go to one
//! writer thread that applies whatever has queued up as one statement, so a busy server pays one
//! commit for many task updates. Each write is still conditional on its own version.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::sqlite::{SqlitePool, SqlitePoolOptions};
use sqlx::{AssertSqlSafe, Connection, Row, SqliteConnection};
use tokio::sync::{mpsc, oneshot};

use crate::list::{ListSql, PageBuilder, SqlValue, Statement, list_sql, state_name};
use a2a_runtime_core::task::StoredTask;
use a2a_runtime_core::task::outbox::{Outbox, OutboxBackend, OutboxEntry};
use a2a_runtime_core::task::{
    KeyClaim, KeyRecord, KeyScope, ListQuery, StoreError, TaskPage, TaskStore,
};
use a2a_runtime_types::util::BoxFuture;

mod keys;
#[cfg(test)]
mod tests;
mod writer;
use writer::submit;

/// The schema, one migration per entry; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE tasks (
        id          TEXT PRIMARY KEY NOT NULL,
        owner       TEXT NOT NULL,
        context_id  TEXT NOT NULL,
        state       TEXT NOT NULL,
        status_us   INTEGER NOT NULL,
        finished_us INTEGER,
        version     INTEGER NOT NULL,
        body        TEXT NOT NULL
    );
    -- Lists (always by owner from the protocols), newest status first.
    CREATE INDEX tasks_by_owner ON tasks (owner, status_us DESC, id DESC);
    -- Unfinished tasks at startup (NULL) and retention (oldest finished first).
    CREATE INDEX tasks_by_finish ON tasks (finished_us);
",
    "
    -- Push deliveries not made yet (see `push/`), delivered in id order after a restart.
    CREATE TABLE push_outbox (
        id      TEXT PRIMARY KEY NOT NULL,
        task_id TEXT NOT NULL,
        body    TEXT NOT NULL
    );
",
    "
    -- The agent a task belongs to, on a server hosting several ('' on a server of one).
    ALTER TABLE tasks ADD COLUMN agent TEXT NOT NULL DEFAULT '';
    -- Lists are by agent and owner from the protocols, newest status first.
    DROP INDEX tasks_by_owner;
    CREATE INDEX tasks_by_agent_owner ON tasks (agent, owner, status_us DESC, id DESC);
",
    "
    -- Idempotency keys, unique per agent and caller, each naming the task its request made
    -- or changed; a key past expires_us may be claimed again.
    CREATE TABLE idempotency_keys (
        agent       TEXT NOT NULL,
        caller      TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        task_id     TEXT NOT NULL,
        item        TEXT,
        expires_us  INTEGER NOT NULL,
        PRIMARY KEY (agent, caller, key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_us);
",
    "
    -- Lists read this index backwards, newest status first. Ascending, a task written as it
    -- finishes goes after its owner's earlier ones: at the end of the index for the owner
    -- last in it, where SQLite adds a page without splitting one. Descending, each went first,
    -- and every full page was split with its neighbours rewritten (one more WAL frame per
    -- commit on a server with one caller).
    DROP INDEX tasks_by_agent_owner;
    CREATE INDEX tasks_by_agent_owner ON tasks (agent, owner, status_us, id);
",
];

/// Rows a read connection hands over ahead of the reader.
const READ_ROWS_AHEAD: usize = 4;

/// How often committed pages are copied into the database file, in the background.
const CHECKPOINT_PERIOD: Duration = Duration::from_millis(50);
/// The WAL size (pages) at which the writer checkpoints itself, restarting the WAL.
const WAL_PAGES: u32 = 8000;

/// The most writes committed in one transaction.
const MAX_BATCH: usize = 512;

/// Settings of a [`SqliteTaskStore`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SqliteStoreOptions {
    /// How long a finished task stays readable (default 7 days; `None`: kept until deleted).
    pub ttl: Option<Duration>,
    /// The most finished tasks kept; the oldest go first (default 1 000 000).
    pub max_finished: Option<usize>,
    /// Connections for reads (default 4).
    pub read_connections: u32,
}

impl Default for SqliteStoreOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(7 * 24 * 3600)),
            max_finished: Some(1_000_000),
            read_connections: 4,
        }
    }
}

/// Tasks in a SQLite file; they survive restarts (see the module docs).
#[derive(Debug)]
pub struct SqliteTaskStore {
    reads: SqlitePool,
    writes: mpsc::Sender<Write>,
    options: SqliteStoreOptions,
    path: PathBuf,
    /// Held while the store is open: the file belongs to this process.
    _lock: File,
}

/// One queued write and where its outcome goes: the rows it changed, or why it was refused.
struct Write {
    op: Op,
    done: oneshot::Sender<Result<u64, StoreError>>,
}

enum Op {
    Create(TaskRow),
    Update(TaskRow, u64),
    Delete(String),
    /// Finished before this time (µs), and beyond this many finished tasks.
    Sweep(Option<i64>, Option<usize>),
    /// Push outbox entries to save and to forget.
    Outbox(Vec<OutboxEntry>, Vec<String>),
    /// An idempotency key to claim, with the task it creates (one transaction): 1 when
    /// claimed, 0 when another record holds it.
    Claim(KeyRecord, Option<TaskRow>),
}

/// Rows per statement when writing outbox entries (three parameters each; SQLite allows 32766).
const OUTBOX_ROWS_PER_STATEMENT: usize = 1000;

/// A task as written: its indexed columns and its serde form.
struct TaskRow {
    id: String,
    owner: String,
    agent: String,
    context_id: String,
    state: &'static str,
    status_us: i64,
    finished_us: Option<i64>,
    body: String,
}

impl TaskRow {
    fn of(stored: &StoredTask) -> Result<Self, StoreError> {
        let task = &stored.task;
        let now = chrono::Utc::now().timestamp_micros();
        Ok(Self {
            id: task.id.clone(),
            owner: stored.owner.clone(),
            agent: stored.agent.clone(),
            context_id: task.context_id.clone(),
            state: state_name(task.status.state),
            status_us: task.status.timestamp.timestamp_micros(),
            finished_us: task.status.state.is_terminal().then_some(now),
            body: stored.to_json()?,
        })
    }
}

impl SqliteTaskStore {
    /// Opens (creating if needed) the store in the file at `path`, running its migrations. The
    /// file's directory is created too. Fails if another process has the file open as a store.
    pub async fn open(
        path: impl AsRef<Path>,
        options: SqliteStoreOptions,
    ) -> Result<Self, StoreError> {
        let path = path.as_ref().to_owned();
        let connect = crate::connect::sqlite_file(&path)
            .map_err(StoreError::backend)?
            .foreign_keys(false);
        let lock_path = path.with_extension("lock");
        let lock = File::create(&lock_path).map_err(|e| {
            StoreError::backend(format!("cannot open {}: {e}", lock_path.display()))
        })?;
        lock.try_lock().map_err(|_| {
            StoreError::backend(format!(
                "{} is in use by another server process (SQLite stores belong to one process; \
                 use Postgres for several replicas)",
                path.display()
            ))
        })?;
        // The schema is brought up to date before the writer takes the file.
        let mut migrator = SqliteConnection::connect_with(&connect)
            .await
            .map_err(StoreError::backend)?;
        migrate(&mut migrator).await?;
        migrator.close().await.map_err(StoreError::backend)?;
        let file = path.clone();
        let writer = tokio::task::spawn_blocking(move || {
            crate::connect::sqlite_writer(&file, WAL_PAGES).map_err(StoreError::backend)
        })
        .await
        .map_err(StoreError::backend)??;
        let reads = SqlitePoolOptions::new()
            .max_connections(options.read_connections.max(1))
            // A list reads rows as the page takes them: a few buffered ahead, not the 50
            // SQLite's worker would otherwise hold (50 large tasks are tens of megabytes).
            .connect_with(
                connect
                    .clone()
                    .read_only(true)
                    .row_buffer_size(READ_ROWS_AHEAD),
            )
            .await
            .map_err(StoreError::backend)?;
        let checkpointer = SqliteConnection::connect_with(&connect)
            .await
            .map_err(StoreError::backend)?;
        let (writes, queue) = mpsc::channel(4 * MAX_BATCH);
        let commits = Arc::new(AtomicU64::new(0));
        tokio::spawn(checkpoint_loop(
            checkpointer,
            writes.downgrade(),
            Arc::clone(&commits),
        ));
        writer::start(writer, queue, commits)?;
        Ok(Self {
            reads,
            writes,
            options,
            path,
            _lock: lock,
        })
    }

    /// The file the tasks are in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn write(&self, op: Op) -> Result<u64, StoreError> {
        submit(&self.writes, op).await
    }

    async fn list_now(&self, query: &ListQuery) -> Result<TaskPage, StoreError> {
        let ListSql { count, page } = list_sql(query, "tasks", false)?;
        let total: i64 = bound(count)
            .fetch_one(&self.reads)
            .await
            .map_err(StoreError::backend)?
            .get(0);
        let rows = bound(page).fetch(&self.reads);
        PageBuilder::new(query)
            .read(rows, |row| (row.get(1), row.get(0), row.get(2)), total)
            .await
    }
}

/// The query of `statement`, its values bound in order.
fn bound(
    statement: Statement,
) -> sqlx::query::Query<'static, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    let Statement { sql, values } = statement;
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for value in values {
        query = match value {
            SqlValue::Text(text) => query.bind(text),
            SqlValue::Int(int) => query.bind(int),
        };
    }
    query
}

async fn migrate(connection: &mut SqliteConnection) -> Result<(), StoreError> {
    let ran: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *connection)
        .await
        .map_err(StoreError::backend)?;
    let ran = usize::try_from(ran).unwrap_or(0);
    if ran > MIGRATIONS.len() {
        return Err(StoreError::backend(format!(
            "the task store was written by a newer version (schema {ran}, this one knows {})",
            MIGRATIONS.len()
        )));
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(ran) {
        let mut tx = connection.begin().await.map_err(StoreError::backend)?;
        sqlx::raw_sql(*migration)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::backend)?;
        sqlx::raw_sql(AssertSqlSafe(format!(
            "PRAGMA user_version = {}",
            index + 1
        )))
        .execute(&mut *tx)
        .await
        .map_err(StoreError::backend)?;
        tx.commit().await.map_err(StoreError::backend)?;
    }
    Ok(())
}

/// Copies committed pages from the WAL into the database file in the background, every
/// [`CHECKPOINT_PERIOD`], so the writer's own checkpoint (at [`WAL_PAGES`] pages, when the WAL
/// restarts) finds little left to copy and seldom stalls writes. Idle while nothing is
/// committed (`commits` counts the writer's batches). Stops with the store.
async fn checkpoint_loop(
    mut connection: SqliteConnection,
    store: mpsc::WeakSender<Write>,
    commits: Arc<AtomicU64>,
) {
    let mut ticks = tokio::time::interval(CHECKPOINT_PERIOD);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut copied = 0;
    loop {
        ticks.tick().await;
        if store.upgrade().is_none() {
            return;
        }
        let committed = commits.load(Ordering::Acquire);
        if committed == copied {
            continue;
        }
        copied = committed;
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&mut connection)
            .await
        {
            tracing::debug!(%error, "background WAL checkpoint failed");
        }
    }
}

impl TaskStore for SqliteTaskStore {
    fn create<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.write(Op::Create(TaskRow::of(task)?)).await.map(drop) })
    }

    fn update<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.write(Op::Update(TaskRow::of(task)?, task.version))
                .await
                .map(drop)
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        history_length: Option<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT version, body FROM tasks WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.reads)
                .await
                .map_err(StoreError::backend)?;
            row.map(|row| {
                let version = u64::try_from(row.get::<i64, _>(0)).unwrap_or(0);
                Ok(StoredTask::from_json(row.get::<&str, _>(1), version)?
                    .with_history(history_length))
            })
            .transpose()
        })
    }

    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        Box::pin(self.list_now(query))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.write(Op::Delete(id.to_owned())).await? == 1) })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<StoredTask>, StoreError>> {
        Box::pin(async move {
            let rows = sqlx::query("SELECT version, body FROM tasks WHERE finished_us IS NULL")
                .fetch_all(&self.reads)
                .await
                .map_err(StoreError::backend)?;
            rows.iter()
                .map(|row| {
                    let version = u64::try_from(row.get::<i64, _>(0)).unwrap_or(0);
                    StoredTask::from_json(row.get::<&str, _>(1), version)
                })
                .collect()
        })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(async move {
            let before = self.options.ttl.map(|ttl| {
                let ttl = i64::try_from(ttl.as_micros()).unwrap_or(i64::MAX);
                chrono::Utc::now().timestamp_micros().saturating_sub(ttl)
            });
            let swept = self
                .write(Op::Sweep(before, self.options.max_finished))
                .await?;
            Ok(usize::try_from(swept).unwrap_or(usize::MAX))
        })
    }

    fn retention(&self) -> Option<Duration> {
        self.options.ttl
    }

    fn claim_key<'a>(
        &'a self,
        key: &'a KeyRecord,
        task: Option<&'a StoredTask>,
    ) -> BoxFuture<'a, Result<KeyClaim, StoreError>> {
        Box::pin(self.claim(key, task))
    }

    fn find_key<'a>(
        &'a self,
        scope: &'a KeyScope,
    ) -> BoxFuture<'a, Result<Option<KeyRecord>, StoreError>> {
        Box::pin(keys::find(&self.reads, scope))
    }

    fn outbox(&self) -> Option<Outbox> {
        Some(Outbox(Arc::new(SqliteOutbox {
            writes: self.writes.clone(),
            reads: self.reads.clone(),
        })))
    }
}

/// The outbox of a SQLite store: written by the store's writer (in its batches), read at
/// startup.
struct SqliteOutbox {
    writes: mpsc::Sender<Write>,
    reads: SqlitePool,
}

impl OutboxBackend for SqliteOutbox {
    fn apply<'a>(
        &'a self,
        save: &'a [OutboxEntry],
        remove: &'a [String],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let op = Op::Outbox(save.to_vec(), remove.to_vec());
            submit(&self.writes, op).await.map(drop)
        })
    }

    fn pending(&self) -> BoxFuture<'_, Result<Vec<OutboxEntry>, StoreError>> {
        Box::pin(async move {
            let rows = sqlx::query("SELECT id, task_id, body FROM push_outbox ORDER BY id")
                .fetch_all(&self.reads)
                .await
                .map_err(StoreError::backend)?;
            Ok(rows
                .iter()
                .map(|row| OutboxEntry {
                    id: row.get(0),
                    task_id: row.get(1),
                    body: row.get(2),
                })
                .collect())
        })
    }
}
