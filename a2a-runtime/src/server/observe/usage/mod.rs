//! Durable usage records (the `usage` feature, `--usage`): every call as a row of the agent's
//! usage store (beside the tasks: the `records.sqlite3` file, or the Postgres database the
//! replicas share), hourly rollups per agent, skill and caller, a retention, the admin-only
//! `/usage` endpoint, and the monthly call budget per caller they feed.

mod endpoint;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, SystemTime};

use axum::Router;
use futures::future::BoxFuture;

use super::ObserveOptions;
use super::exporter::{Dropped, Exporter};
use crate::server::paths;
use crate::server::storage::Storage;
use a2a_runtime_core::auth::Security;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::{CallKind, CallObserver, CallRecord};
use a2a_runtime_core::quota::{CallBudget, Quotas};
use a2a_runtime_sql::{UsageRow, UsageStore};

/// Rows waiting to be written; beyond it new ones are dropped (counted), while the store is
/// down.
const MAX_BUFFERED: usize = 16_384;
/// Rows per write.
const BATCH: usize = 256;
/// How often what is buffered is written, at the latest.
const WRITE_PERIOD: Duration = Duration::from_secs(1);
/// How often a budget is read again from the store (the calls of other replicas).
const BUDGET_REFRESH: Duration = Duration::from_secs(10);
/// How often rows and rollups past their retention are forgotten.
const SWEEP_PERIOD: Duration = Duration::from_secs(3600);

/// How usage is recorded.
#[derive(Debug, Clone)]
pub(super) struct UsageSettings {
    /// How long rows are kept.
    pub(super) retention: Duration,
    /// How long hourly rollups are kept.
    pub(super) rollup_retention: Duration,
    /// The token claims kept with each row.
    pub(super) claims: Vec<String>,
    /// The scope `/usage` needs.
    pub(super) admin_scope: String,
}

/// The recorder (cheap to clone: a handle on what its task shares).
pub(super) struct Usage(Arc<Shared>);

struct Shared {
    settings: UsageSettings,
    /// Set once the server's store is open (`observe::open`).
    store: OnceLock<UsageStore>,
    buffer: Mutex<Vec<UsageRow>>,
    full: tokio::sync::Notify,
    started: AtomicBool,
    dropped: AtomicU64,
    budget: Option<Arc<CallBudget>>,
}

impl Usage {
    /// The recorder `options` describe (`--usage-*`, `--call-budget`), its budget set on
    /// `quotas`.
    pub(in crate::server::observe) fn of_options(
        options: &ObserveOptions,
        quotas: &Quotas,
    ) -> Self {
        let settings = UsageSettings {
            retention: options.usage_retention,
            rollup_retention: options.usage_rollup_retention,
            claims: options.usage_claims.clone(),
            admin_scope: options.usage_admin_scope.trim().to_owned(),
        };
        Self::new(settings, options.call_budget, quotas)
    }

    /// A recorder with `settings`, charging `budget` (set on `quotas`) when given.
    pub(super) fn new(settings: UsageSettings, budget: Option<u64>, quotas: &Quotas) -> Self {
        let budget = budget.map(|limit| Arc::new(CallBudget::new(limit)));
        if let Some(budget) = &budget {
            quotas.set_budget(Arc::clone(budget));
        }
        Self(Arc::new(Shared {
            settings,
            store: OnceLock::new(),
            buffer: Mutex::new(Vec::new()),
            full: tokio::sync::Notify::new(),
            started: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            budget,
        }))
    }

    /// Writes to `store` from now on (what was buffered first), and counts each caller's
    /// calls this month for the budget.
    pub(super) async fn open(&self, store: UsageStore) -> Result<(), String> {
        let _ = self.0.store.set(store);
        self.0.refresh_budget().await;
        self.start();
        Ok(())
    }

    /// The store, once open.
    pub(super) fn store(&self) -> Option<&UsageStore> {
        self.0.store.get()
    }

    /// The scope `/usage` needs.
    pub(super) fn admin_scope(&self) -> &str {
        &self.0.settings.admin_scope
    }

    /// The token claims kept with each row (`--usage-claim`), which `/usage` may group by.
    pub(super) fn claims(&self) -> &[String] {
        &self.0.settings.claims
    }

    /// Rows dropped so far (the store was down longer than the buffer lasts, or refused them).
    pub(super) fn dropped(&self) -> u64 {
        self.0.dropped.load(Ordering::Relaxed)
    }

    /// Writes every row buffered now (at shutdown).
    pub(super) async fn flush(&self) {
        while self.0.write().await {}
    }

    /// Starts the task that writes, sweeps and reads budgets again; it ends with the recorder.
    fn start(&self) {
        if self.0.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.0.started.store(false, Ordering::Release);
            return;
        };
        let shared: Weak<Shared> = Arc::downgrade(&self.0);
        runtime.spawn(async move {
            let mut swept = tokio::time::Instant::now();
            let mut refreshed = tokio::time::Instant::now();
            loop {
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                tokio::select! {
                    () = strong.full.notified() => {}
                    () = tokio::time::sleep(WRITE_PERIOD) => {}
                }
                while strong.write().await {}
                if refreshed.elapsed() >= BUDGET_REFRESH {
                    strong.refresh_budget().await;
                    refreshed = tokio::time::Instant::now();
                }
                if swept.elapsed() >= SWEEP_PERIOD {
                    strong.sweep().await;
                    swept = tokio::time::Instant::now();
                }
            }
        });
    }

    fn keep(&self, row: UsageRow) {
        let shared = &self.0;
        let mut buffer = shared.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        if buffer.len() >= MAX_BUFFERED {
            drop(buffer);
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        buffer.push(row);
        let full = buffer.len() >= BATCH;
        drop(buffer);
        if full {
            shared.full.notify_one();
        }
    }

    /// The row of `record`, with the claims the settings keep.
    fn row(&self, record: &CallRecord) -> UsageRow {
        let micros = |at: SystemTime| {
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |since| {
                    i64::try_from(since.as_micros()).unwrap_or(i64::MAX)
                })
        };
        let claims = &self.0.settings.claims;
        let kept: serde_json::Map<String, serde_json::Value> = claims
            .iter()
            .filter_map(|name| Some((name.clone(), record.caller.claims().get(name)?.clone())))
            .collect();
        UsageRow {
            at_us: micros(record.started_at),
            agent: record.agent.to_string(),
            kind: record.kind.as_str().to_owned(),
            name: record.name.to_string(),
            protocol: record.protocol.name().to_owned(),
            version: record.protocol.version().to_owned(),
            binding: record.binding.as_str().to_owned(),
            caller: record.caller.owner().to_owned(),
            principal: record.caller.principal().to_owned(),
            claims: (!kept.is_empty()).then(|| serde_json::Value::Object(kept).to_string()),
            task_id: record.task_id.clone(),
            context_id: record.context_id.clone(),
            trace_id: record
                .trace
                .as_ref()
                .map(|trace| trace.trace_id().to_owned()),
            duration_us: i64::try_from(record.duration.as_micros()).unwrap_or(i64::MAX),
            input_bytes: i64::try_from(record.input_bytes).unwrap_or(i64::MAX),
            output_bytes: i64::try_from(record.output_bytes).unwrap_or(i64::MAX),
            outcome: record.outcome.as_str().to_owned(),
            error: record.error.clone(),
        }
    }
}

impl Shared {
    /// Writes one batch of what is buffered; whether there may be more.
    async fn write(&self) -> bool {
        let Some(store) = self.store.get() else {
            return false;
        };
        let rows: Vec<UsageRow> = {
            let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
            let take = buffer.len().min(BATCH);
            buffer.drain(..take).collect()
        };
        if rows.is_empty() {
            return false;
        }
        // One retry: a busy SQLite file or a Postgres failover passes.
        for attempt in 0..2 {
            match store.record(&rows).await {
                Ok(()) => return rows.len() == BATCH,
                Err(error) if attempt == 0 => {
                    tracing::debug!(%error, "usage rows not written; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Err(error) => {
                    self.dropped.fetch_add(rows.len() as u64, Ordering::Relaxed);
                    tracing::warn!(%error, rows = rows.len(), "usage rows not written; dropped");
                }
            }
        }
        false
    }

    /// Reads each caller's skill calls this month from the store, for the budget.
    async fn refresh_budget(&self) {
        let (Some(budget), Some(store)) = (&self.budget, self.store.get()) else {
            return;
        };
        let now = chrono::Utc::now();
        let month = a2a_runtime_core::quota::budget::month_start(now);
        match store.skill_calls_since(month.timestamp_micros()).await {
            Ok(spent) => budget.reset(now, spent),
            Err(error) => tracing::warn!(%error, "the call budget could not be read"),
        }
    }

    async fn sweep(&self) {
        let Some(store) = self.store.get() else {
            return;
        };
        let before = |retention: Duration| {
            let now = chrono::Utc::now().timestamp_micros();
            now.saturating_sub(i64::try_from(retention.as_micros()).unwrap_or(i64::MAX))
        };
        let settings = &self.settings;
        let swept = store
            .sweep(
                before(settings.retention),
                before(settings.rollup_retention),
            )
            .await;
        match swept {
            Ok(0) => {}
            Ok(rows) => tracing::debug!(rows, "usage rows past retention forgotten"),
            Err(error) => tracing::warn!(%error, "sweeping usage rows failed"),
        }
    }
}

impl CallObserver for Usage {
    fn call(&self, record: &CallRecord) {
        if record.kind == CallKind::Skill
            && record.outcome.ran()
            && let Some(budget) = &self.0.budget
        {
            budget.spend(record.caller.owner(), record.started_at.into());
        }
        self.keep(self.row(record));
    }
}

/// The recorder as the server runs it: its store opened beside the tasks, its rows written
/// out at exit, `/usage` served, its drops counted.
impl Exporter for Usage {
    fn open<'a>(&'a self, storage: Option<&'a Storage>) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let failed = |e: &dyn std::fmt::Display| Error::Config(format!("the usage store: {e}"));
            let store = match storage {
                None => a2a_runtime_sql::UsageStore::memory(),
                Some(storage) => {
                    let records = storage.records().await?;
                    records.usage_beside().await.map_err(|e| failed(&e))?
                }
            };
            Usage::open(self, store).await.map_err(|e| failed(&e))
        })
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(Usage::flush(self))
    }

    fn routes(self: Arc<Self>, security: &Arc<Security>) -> Option<(Router, Vec<&'static str>)> {
        let routes = endpoint::routes(self, Arc::clone(security));
        Some((routes, vec![paths::USAGE, paths::USAGE_OWN]))
    }

    fn dropped(&self) -> Option<Dropped> {
        Some(Dropped::UsageRows(Usage::dropped(self)))
    }
}
