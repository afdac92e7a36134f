//! [`UsageStore`]: one row per call and hourly rollups per agent, skill and caller, kept beside
//! the tasks (the SQLite `records.sqlite3` file, or the Postgres database replicas share) or
//! in memory: what usage records are billed, capped and reported from.

use std::collections::HashMap;
use std::sync::Arc;

/// A SQL database's [`UsageBackend`]: its inherent `async fn`s of the same names.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
macro_rules! sql_usage_backend {
    ($ty:ty) => {
        impl super::UsageBackend for $ty {
            fn record<'a>(
                &'a self,
                rows: &'a [UsageRow],
                sums: HashMap<RollupKey, UsageTotal>,
            ) -> a2a_runtime_types::util::BoxFuture<'a, Result<(), UsageError>> {
                Box::pin(async move { Self::record(self, rows, &sums).await })
            }

            fn totals<'a>(
                &'a self,
                query: &'a UsageQuery,
                since: i64,
            ) -> a2a_runtime_types::util::BoxFuture<'a, Result<Vec<UsageTotal>, UsageError>> {
                Box::pin(Self::totals(self, query, since))
            }

            fn skill_calls_since(
                &self,
                since_us: i64,
            ) -> a2a_runtime_types::util::BoxFuture<'_, Result<HashMap<String, u64>, UsageError>>
            {
                Box::pin(Self::skill_calls_since(self, since_us))
            }

            fn sweep(
                &self,
                rows_before_us: i64,
                rollups_before_us: i64,
            ) -> a2a_runtime_types::util::BoxFuture<'_, Result<u64, UsageError>> {
                Box::pin(Self::sweep(self, rows_before_us, rollups_before_us))
            }
        }
    };
}

mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

/// Why usage could not be written or read.
#[derive(Debug, thiserror::Error)]
#[error("the usage store failed: {0}")]
pub struct UsageError(pub String);

fn backend(error: impl std::fmt::Display) -> UsageError {
    UsageError(error.to_string())
}

/// One call, as the usage store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRow {
    /// When it started, in microseconds since the epoch.
    pub at_us: i64,
    /// The agent.
    pub agent: String,
    /// `skill`, `resource` or `prompt`.
    pub kind: String,
    /// The skill, prompt or resource.
    pub name: String,
    /// `a2a` or `mcp`.
    pub protocol: String,
    /// The A2A version (empty for MCP).
    pub version: String,
    /// The binding or transport.
    pub binding: String,
    /// The caller's owner key (`scheme:principal`, or `anonymous`): what budgets count.
    pub caller: String,
    /// The caller's principal.
    pub principal: String,
    /// The claims of the caller's token kept with the row, as a JSON object, if any.
    pub claims: Option<String>,
    /// The task the call ran as.
    pub task_id: Option<String>,
    /// The task's conversation.
    pub context_id: Option<String>,
    /// The W3C trace id.
    pub trace_id: Option<String>,
    /// How long it ran, in microseconds.
    pub duration_us: i64,
    /// Bytes given.
    pub input_bytes: i64,
    /// Bytes produced.
    pub output_bytes: i64,
    /// How it ended (`completed`, `skill_error`, … `busy`).
    pub outcome: String,
    /// Why it failed or was refused.
    pub error: Option<String>,
}

impl UsageRow {
    /// Whether the call ran (it was not refused).
    pub fn ran(&self) -> bool {
        !REFUSED.contains(&self.outcome.as_str())
    }

    /// Whether it failed (the skill's error, bad input, or a failure of the runtime).
    pub fn failed(&self) -> bool {
        FAILED.contains(&self.outcome.as_str())
    }

    /// The start of its hour, in microseconds since the epoch.
    fn hour_us(&self) -> i64 {
        self.at_us - self.at_us.rem_euclid(HOUR_US)
    }
}

/// An hour, in microseconds.
pub const HOUR_US: i64 = 3_600_000_000;

/// What usage totals are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageBy {
    /// The caller's owner key.
    Caller,
    /// The skill, prompt or resource.
    Skill,
    /// The agent.
    Agent,
}

impl UsageBy {
    fn column(self) -> &'static str {
        match self {
            Self::Caller => "caller",
            Self::Skill => "name",
            Self::Agent => "agent",
        }
    }
}

/// A question to the rollups.
#[derive(Debug, Clone)]
pub struct UsageQuery {
    /// From this hour (microseconds since the epoch, rounded down to the hour).
    pub since_us: i64,
    /// Until this instant (exclusive).
    pub until_us: i64,
    /// Grouped by.
    pub by: UsageBy,
    /// Only this agent's calls.
    pub agent: Option<String>,
    /// Only this caller's calls (its owner key): what a caller may see of its own.
    pub caller: Option<String>,
    /// Grouped by this token claim kept with the rows (`--usage-claim`) instead of `by`: read
    /// from the rows, so over their retention only (`""` for calls without it).
    pub claim: Option<String>,
    /// At most this many groups, the busiest first.
    pub limit: usize,
}

/// The outcomes of a call refused (by scope, or as busy): it never ran.
const REFUSED: [&str; 2] = ["forbidden", "busy"];
/// The outcomes of a call that failed.
const FAILED: [&str; 3] = ["skill_error", "invalid_input", "failed"];

/// The SQL columns of a [`UsageTotal`] summed over `usage_calls` rows (after the key column),
/// each cast with `cast` (Postgres sums are NUMERIC).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn row_sums(cast: &str) -> String {
    let list = |outcomes: &[&str]| {
        let quoted: Vec<String> = outcomes.iter().map(|o| format!("'{o}'")).collect();
        quoted.join(", ")
    };
    let (refused, failed) = (list(&REFUSED), list(&FAILED));
    format!(
        "COUNT(*){cast},
         SUM(CASE WHEN outcome IN ({refused}) THEN 0 ELSE 1 END){cast},
         SUM(CASE WHEN outcome IN ({failed}) THEN 1 ELSE 0 END){cast},
         SUM(CASE WHEN outcome IN ({refused}) THEN 1 ELSE 0 END){cast},
         SUM(duration_us){cast}, SUM(input_bytes){cast}, SUM(output_bytes){cast}"
    )
}

/// One group's usage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageTotal {
    /// The caller, skill or agent.
    pub key: String,
    /// Calls, refused ones included.
    pub calls: i64,
    /// Calls that ran.
    pub ran: i64,
    /// Calls that failed.
    pub failed: i64,
    /// Calls refused (by scope or quota).
    pub refused: i64,
    /// Time the calls ran, in microseconds.
    pub duration_us: i64,
    /// Bytes given.
    pub input_bytes: i64,
    /// Bytes produced.
    pub output_bytes: i64,
}

impl UsageTotal {
    fn add(&mut self, row: &UsageRow) {
        self.calls += 1;
        self.ran += i64::from(row.ran());
        self.failed += i64::from(row.failed());
        self.refused += i64::from(!row.ran());
        self.duration_us += row.duration_us;
        self.input_bytes += row.input_bytes;
        self.output_bytes += row.output_bytes;
    }

    fn merge(&mut self, other: &Self) {
        self.calls += other.calls;
        self.ran += other.ran;
        self.failed += other.failed;
        self.refused += other.refused;
        self.duration_us += other.duration_us;
        self.input_bytes += other.input_bytes;
        self.output_bytes += other.output_bytes;
    }
}

/// The rollup a row adds to: its hour, agent, kind, name and caller.
type RollupKey = (i64, String, String, String, String);

/// `rows` summed into their hourly rollups.
fn rollups(rows: &[UsageRow]) -> HashMap<RollupKey, UsageTotal> {
    let mut sums: HashMap<RollupKey, UsageTotal> = HashMap::new();
    for row in rows {
        let key = (
            row.hour_us(),
            row.agent.clone(),
            row.kind.clone(),
            row.name.clone(),
            row.caller.clone(),
        );
        sums.entry(key).or_default().add(row);
    }
    sums
}

/// What a place usage is kept in does, one implementation per database (memory, SQLite,
/// Postgres): [`UsageStore`] holds one behind this trait.
trait UsageBackend: std::fmt::Debug + Send + Sync + 'static {
    /// Writes `rows` and adds `sums` to their rollups, all or nothing.
    fn record<'a>(
        &'a self,
        rows: &'a [UsageRow],
        sums: HashMap<RollupKey, UsageTotal>,
    ) -> a2a_runtime_types::util::BoxFuture<'a, Result<(), UsageError>>;

    /// Totals from the rollups of hours from `since`, as `query` asks.
    fn totals<'a>(
        &'a self,
        query: &'a UsageQuery,
        since: i64,
    ) -> a2a_runtime_types::util::BoxFuture<'a, Result<Vec<UsageTotal>, UsageError>>;

    /// Skill calls that ran since `since_us`, by caller.
    fn skill_calls_since(
        &self,
        since_us: i64,
    ) -> a2a_runtime_types::util::BoxFuture<'_, Result<HashMap<String, u64>, UsageError>>;

    /// Forgets older rows and rollups; how many rows went.
    fn sweep(
        &self,
        rows_before_us: i64,
        rollups_before_us: i64,
    ) -> a2a_runtime_types::util::BoxFuture<'_, Result<u64, UsageError>>;
}

/// Calls as usage rows and hourly rollups. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct UsageStore {
    backend: Arc<dyn UsageBackend>,
}

impl UsageStore {
    /// Usage kept in memory, lost when the process ends.
    pub fn memory() -> Self {
        Self::with(memory::MemoryUsage::default())
    }

    fn with(backend: impl UsageBackend) -> Self {
        Self {
            backend: Arc::new(backend),
        }
    }

    /// Usage in the SQLite file `writer` writes (through its one connection) and `reads`
    /// reads, beside the records kept there.
    #[cfg(feature = "sqlite")]
    pub(crate) async fn sqlite_on(
        writer: sqlx::SqlitePool,
        reads: sqlx::SqlitePool,
    ) -> Result<Self, UsageError> {
        Ok(Self::with(sqlite::SqliteUsage::on(writer, reads).await?))
    }

    /// Usage in the Postgres database `pool` connects to (tables `a2a_usage_calls` and
    /// `a2a_usage_hourly`), which every replica using it shares.
    #[cfg(feature = "postgres")]
    pub(crate) async fn postgres_on(pool: sqlx::PgPool) -> Result<Self, UsageError> {
        Ok(Self::with(postgres::PgUsage::on(pool).await?))
    }

    /// Writes `rows` and adds them to their rollups, all or nothing.
    pub async fn record(&self, rows: &[UsageRow]) -> Result<(), UsageError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.backend.record(rows, rollups(rows)).await
    }

    /// Usage totals from the rollups, grouped as `query` asks, the busiest first.
    pub async fn totals(&self, query: &UsageQuery) -> Result<Vec<UsageTotal>, UsageError> {
        let since = query.since_us - query.since_us.rem_euclid(HOUR_US);
        self.backend.totals(query, since).await
    }

    /// Skill calls that ran since `since_us` (an hour's start), by caller: what call budgets
    /// count.
    pub async fn skill_calls_since(
        &self,
        since_us: i64,
    ) -> Result<HashMap<String, u64>, UsageError> {
        self.backend.skill_calls_since(since_us).await
    }

    /// Forgets rows that started before `rows_before_us` and rollups of hours before
    /// `rollups_before_us`; how many rows went.
    pub async fn sweep(
        &self,
        rows_before_us: i64,
        rollups_before_us: i64,
    ) -> Result<u64, UsageError> {
        self.backend.sweep(rows_before_us, rollups_before_us).await
    }
}
