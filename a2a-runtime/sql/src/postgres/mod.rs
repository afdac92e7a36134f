//! [`PostgresTaskStore`]: tasks in a PostgreSQL database, which several replicas of one agent
//! share. Every write is conditional on the task's version, so replicas writing the same task
//! never lose each other's updates (queued writes go out batched, `writer.rs`); the schema is
//! migrated at startup under an advisory lock, so replicas starting together migrate once. Each
//! unfinished task records the replica running it, and replicas hold leases and pass each other
//! messages (`replicas.rs`), so any replica can serve any task.

mod keys;
mod outbox;
mod replicas;
mod writer;

pub(crate) use replicas::Replicas;
use writer::{Row as TaskRow, Writer};

use std::time::Duration;

use sqlx::postgres::PgPool;
use sqlx::{AssertSqlSafe, Row};

use std::sync::Arc;

use crate::list::{ListSql, PageBuilder, SqlValue, Statement, list_sql, state_name};
use a2a_runtime_core::task::StoredTask;
use a2a_runtime_core::task::cluster::Coordination;
use a2a_runtime_core::task::outbox::Outbox;
use a2a_runtime_core::task::{
    KeyClaim, KeyRecord, KeyScope, ListQuery, StoreError, TaskPage, TaskStore,
};
use a2a_runtime_types::util::BoxFuture;

/// The schema, one migration per entry; `a2a_schema` records how many ran.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE a2a_tasks (
        id          TEXT PRIMARY KEY,
        owner       TEXT NOT NULL,
        context_id  TEXT NOT NULL,
        state       TEXT NOT NULL,
        status_us   BIGINT NOT NULL,
        finished_us BIGINT,
        version     BIGINT NOT NULL,
        body        TEXT NOT NULL
    );
    -- Lists (always by owner from the protocols), newest status first.
    CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, status_us DESC, id DESC);
    -- Retention, oldest finished first.
    CREATE INDEX a2a_tasks_by_finish ON a2a_tasks (finished_us) WHERE finished_us IS NOT NULL;
    -- Unfinished tasks, read at startup.
    CREATE INDEX a2a_tasks_unfinished ON a2a_tasks (id) WHERE finished_us IS NULL;
",
    "
    -- The replica running an unfinished task (NULL once it finished).
    ALTER TABLE a2a_tasks ADD COLUMN runner TEXT;
    -- Replicas alive until their lease runs out (database time).
    CREATE TABLE a2a_replicas (
        id          TEXT PRIMARY KEY,
        lease_until TIMESTAMPTZ NOT NULL
    );
    -- Messages for a replica, read in id order (a NOTIFY on its channel rings the bell).
    CREATE TABLE a2a_messages (
        id      BIGSERIAL PRIMARY KEY,
        replica TEXT NOT NULL,
        body    TEXT NOT NULL
    );
    CREATE INDEX a2a_messages_by_replica ON a2a_messages (replica, id);
",
    "
    -- Push deliveries not made yet (see `push/`), each delivered by the replica that holds it.
    CREATE TABLE a2a_push_outbox (
        id      TEXT PRIMARY KEY,
        task_id TEXT NOT NULL,
        replica TEXT NOT NULL,
        body    TEXT NOT NULL
    );
    CREATE INDEX a2a_push_outbox_by_replica ON a2a_push_outbox (replica);
",
    "
    -- The agent a task belongs to, on a server hosting several ('' on a server of one).
    ALTER TABLE a2a_tasks ADD COLUMN agent TEXT NOT NULL DEFAULT '';
    -- Lists are by agent and owner from the protocols, newest status first.
    DROP INDEX a2a_tasks_by_owner;
    CREATE INDEX a2a_tasks_by_agent_owner ON a2a_tasks (agent, owner, status_us DESC, id DESC);
",
    "
    -- Idempotency keys, unique per agent and caller (the constraint decides between replicas
    -- claiming one key at once), each naming the task its request made or changed; a key past
    -- expires_us may be claimed again.
    CREATE TABLE a2a_idempotency_keys (
        agent       TEXT NOT NULL,
        caller      TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        task_id     TEXT NOT NULL,
        item        TEXT,
        expires_us  BIGINT NOT NULL,
        PRIMARY KEY (agent, caller, key)
    );
    CREATE INDEX a2a_idempotency_keys_by_expiry ON a2a_idempotency_keys (expires_us);
",
];

/// The advisory lock migrations run under (an arbitrary constant: "a2a" in ASCII, then 1).
const MIGRATION_LOCK: i64 = 0x0061_3261_0001;

/// Settings of a [`PostgresTaskStore`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostgresStoreOptions {
    /// How long a finished task stays readable (default 7 days; `None`: kept until deleted).
    pub ttl: Option<Duration>,
    /// The most finished tasks kept; the oldest go first (default 1 000 000).
    pub max_finished: Option<usize>,
    /// The most connections this process opens (default 16).
    pub max_connections: u32,
    /// How long a replica that stops renewing its lease (it crashed, or lost the database) is
    /// taken for alive; after that a survivor settles its unfinished tasks (default 10 s; the
    /// lease is renewed every third of it).
    pub lease: Duration,
}

impl Default for PostgresStoreOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(7 * 24 * 3600)),
            max_finished: Some(1_000_000),
            max_connections: 16,
            lease: Duration::from_secs(10),
        }
    }
}

/// Tasks in PostgreSQL; they survive restarts and are shared by every replica on the database
/// (see the module docs).
#[derive(Debug, Clone)]
pub struct PostgresTaskStore {
    pool: PgPool,
    options: PostgresStoreOptions,
    /// This process among the replicas on the database.
    replicas: Replicas,
    /// Creates and updates, batched.
    writer: Writer,
    /// Pending push deliveries.
    outbox: Arc<outbox::PgOutbox>,
}

impl PostgresTaskStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and
    /// runs the schema's migrations.
    pub async fn connect(url: &str, options: PostgresStoreOptions) -> Result<Self, StoreError> {
        let connections = options.max_connections.max(1);
        let pool = crate::connect::postgres_pool(url, connections, "a2a-runtime").await;
        Self::on_pool(pool.map_err(StoreError::backend)?, options).await
    }

    /// The store in the database `pool` connects to, through that pool (the server's records
    /// share theirs: [`Records::task_store_beside`](crate::Records::task_store_beside)); runs
    /// the schema's migrations.
    pub async fn on_pool(pool: PgPool, options: PostgresStoreOptions) -> Result<Self, StoreError> {
        migrate(&pool).await?;
        let replicas = Replicas::join(pool.clone(), options.lease).await?;
        let writer = Writer::start(pool.clone());
        let outbox = Arc::new(outbox::PgOutbox::new(
            pool.clone(),
            replicas.id().to_owned(),
        ));
        Ok(Self {
            pool,
            options,
            replicas,
            writer,
            outbox,
        })
    }

    /// This replica's id (random per process).
    pub fn replica(&self) -> &str {
        self.replicas.id()
    }

    /// `task` as a row: its indexed columns, its serde form, and its runner (this replica
    /// while it is unfinished, nobody after).
    fn row(&self, stored: &StoredTask) -> Result<TaskRow, StoreError> {
        let task = &stored.task;
        let finished = task.status.state.is_terminal();
        Ok(TaskRow {
            id: task.id.clone(),
            owner: stored.owner.clone(),
            agent: stored.agent.clone(),
            context_id: task.context_id.clone(),
            state: state_name(task.status.state),
            status_us: task.status.timestamp.timestamp_micros(),
            finished_us: finished.then(|| chrono::Utc::now().timestamp_micros()),
            body: stored.to_json()?,
            runner: (!finished).then(|| self.replicas.id().to_owned()),
        })
    }

    async fn list_now(&self, query: &ListQuery) -> Result<TaskPage, StoreError> {
        let ListSql { count, page } = list_sql(query, "a2a_tasks", true)?;
        let total: i64 = bound(count)
            .fetch_one(&self.pool)
            .await
            .map_err(StoreError::backend)?
            .get(0);
        let rows = bound(page).fetch(&self.pool);
        PageBuilder::new(query)
            .read(rows, |row| (row.get(1), row.get(0), row.get(2)), total)
            .await
    }

    async fn sweep_now(&self) -> Result<usize, StoreError> {
        let mut swept = 0;
        if let Some(ttl) = self.options.ttl {
            let ttl = i64::try_from(ttl.as_micros()).unwrap_or(i64::MAX);
            let before = chrono::Utc::now().timestamp_micros().saturating_sub(ttl);
            swept += sqlx::query("DELETE FROM a2a_tasks WHERE finished_us < $1")
                .bind(before)
                .execute(&self.pool)
                .await
                .map_err(StoreError::backend)?
                .rows_affected();
        }
        if let Some(max) = self.options.max_finished {
            swept += sqlx::query(
                "DELETE FROM a2a_tasks WHERE id IN (SELECT id FROM a2a_tasks
                 WHERE finished_us IS NOT NULL ORDER BY finished_us DESC OFFSET $1)",
            )
            .bind(i64::try_from(max).unwrap_or(i64::MAX))
            .execute(&self.pool)
            .await
            .map_err(StoreError::backend)?
            .rows_affected();
        }
        // Expired idempotency keys go too (they are not tasks: not counted).
        sqlx::query("DELETE FROM a2a_idempotency_keys WHERE expires_us <= $1")
            .bind(chrono::Utc::now().timestamp_micros())
            .execute(&self.pool)
            .await
            .map_err(StoreError::backend)?;
        Ok(usize::try_from(swept).unwrap_or(usize::MAX))
    }
}

fn stored(
    row: &sqlx::postgres::PgRow,
    history_length: Option<usize>,
) -> Result<StoredTask, StoreError> {
    let version = u64::try_from(row.get::<i64, _>(0)).unwrap_or(0);
    Ok(StoredTask::from_json(row.get::<&str, _>(1), version)?.with_history(history_length))
}

/// The query of `statement`, its values bound in order.
fn bound(
    statement: Statement,
) -> sqlx::query::Query<'static, sqlx::Postgres, sqlx::postgres::PgArguments> {
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

/// Runs the migrations not yet run, under an advisory lock so concurrent starts run each once.
async fn migrate(pool: &PgPool) -> Result<(), StoreError> {
    let mut tx = pool.begin().await.map_err(StoreError::backend)?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::backend)?;
    sqlx::raw_sql("CREATE TABLE IF NOT EXISTS a2a_schema (version INTEGER NOT NULL)")
        .execute(&mut *tx)
        .await
        .map_err(StoreError::backend)?;
    let ran: Option<i32> = sqlx::query_scalar("SELECT MAX(version) FROM a2a_schema")
        .fetch_one(&mut *tx)
        .await
        .map_err(StoreError::backend)?;
    let ran = usize::try_from(ran.unwrap_or(0)).unwrap_or(0);
    if ran > MIGRATIONS.len() {
        return Err(StoreError::backend(format!(
            "the task store was written by a newer version (schema {ran}, this one knows {})",
            MIGRATIONS.len()
        )));
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(ran) {
        sqlx::raw_sql(*migration)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::backend)?;
        sqlx::query("INSERT INTO a2a_schema (version) VALUES ($1)")
            .bind(i32::try_from(index + 1).unwrap_or(i32::MAX))
            .execute(&mut *tx)
            .await
            .map_err(StoreError::backend)?;
    }
    tx.commit().await.map_err(StoreError::backend)
}

impl TaskStore for PostgresTaskStore {
    fn create<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.writer.write(self.row(task)?, None).await })
    }

    fn update<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.writer.write(self.row(task)?, Some(task.version)).await })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        history_length: Option<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        Box::pin(async move {
            sqlx::query("SELECT version, body FROM a2a_tasks WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(StoreError::backend)?
                .map(|row| stored(&row, history_length))
                .transpose()
        })
    }

    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        Box::pin(self.list_now(query))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            sqlx::query("DELETE FROM a2a_push_outbox WHERE task_id = $1")
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(StoreError::backend)?;
            let deleted = sqlx::query("DELETE FROM a2a_tasks WHERE id = $1")
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(StoreError::backend)?
                .rows_affected();
            Ok(deleted == 1)
        })
    }

    /// The unfinished tasks no live replica runs: this one's (a live task is skipped by the
    /// caller), nobody's, or those of a replica whose lease ran out.
    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<StoredTask>, StoreError>> {
        Box::pin(async move {
            sqlx::query(
                "SELECT version, body FROM a2a_tasks t WHERE finished_us IS NULL
                 AND (runner IS NULL OR runner = $1 OR NOT EXISTS (
                     SELECT 1 FROM a2a_replicas r WHERE r.id = t.runner AND r.lease_until > now()))",
            )
            .bind(self.replicas.id())
            .fetch_all(&self.pool)
                .await
                .map_err(StoreError::backend)?
                .iter()
                .map(|row| stored(row, None))
                .collect()
        })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(self.sweep_now())
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
        Box::pin(keys::find(&self.pool, scope))
    }

    fn coordination(&self) -> Option<Coordination> {
        Some(Coordination::new(Arc::new(self.replicas.clone())))
    }

    fn outbox(&self) -> Option<Outbox> {
        Some(Outbox(Arc::clone(&self.outbox) as _))
    }
}
