//! Prometheus metrics: an inline observer that counts every record into a registry of its own,
//! and reads the server's gauges (tasks, questions, streams, sessions) when scraped.
//!
//! Names follow the OpenTelemetry semantic conventions where they have one
//! (`mcp.server.operation.duration` with `mcp.method.name`, `gen_ai.tool.name`, `error.type`;
//! dots become underscores, and the unit a suffix, as Prometheus names them). The rest are the
//! runtime's own, under `a2a_`. Every label takes bounded values: agents and skills are the
//! server's, methods its protocols', and callers only when asked for, up to a cap.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use a2a_runtime_mcp::sessions::McpSessions;
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

use axum::Router;

use super::ObserveOptions;
use super::exporter::{Dropped, Exporter};
use crate::server::paths;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::Security;
use a2a_runtime_core::observe::{
    CallKind, CallObserver, CallRecord, OperationRecord, PushDelivery, StoreWrite, TaskChange,
};
use a2a_runtime_core::quota::BusyKind;
use a2a_runtime_types::model::Protocol;

/// Request durations, in seconds: exactly OpenTelemetry's advice for
/// `mcp.server.operation.duration`, which `a2a.server.operation.duration` (this project's
/// proposal: the A2A conventions define no metric) follows too, so the two compare.
const OPERATION_BUCKETS: &[f64] = &[
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Skill call and content call durations, in seconds: the requests' boundaries, and 5 ms below
/// them for the calls that answer at once.
const DURATION_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Store writes, in seconds.
const STORE_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0,
];

/// The metrics of one server.
pub(super) struct Metrics {
    registry: Registry,
    mcp_operations: HistogramVec,
    a2a_operations: HistogramVec,
    skill_calls: HistogramVec,
    content_calls: HistogramVec,
    transitions: IntCounterVec,
    store_writes: HistogramVec,
    store_retries: IntCounter,
    push_deliveries: IntCounterVec,
    refusals: IntCounterVec,
    dropped: IntCounter,
    spans_dropped: IntCounter,
    usage_dropped: IntCounter,
    tasks_working: IntGaugeVec,
    questions_waiting: IntGaugeVec,
    subscribers: IntGaugeVec,
    streams_open: IntGauge,
    mcp_sessions: IntGauge,
    callers: CallerLabels,
    /// What the gauges are read from, and the counters last read.
    sources: Mutex<Sources>,
    /// The bearer token a scrape presents (`--metrics-token`).
    token: Option<String>,
    /// Whether `/metrics` is served on an address of its own (`--metrics-bind`).
    apart: bool,
}

#[derive(Default)]
struct Sources {
    apps: Vec<Weak<App>>,
    sessions: Vec<Weak<McpSessions>>,
    /// The server's exporters, whose drops are counted.
    exporters: Vec<Weak<dyn Exporter>>,
    /// Refusals and drops as last read, to count on from.
    refusals: [u64; BusyKind::ALL.len()],
    dropped: u64,
    spans_dropped: u64,
    usage_dropped: u64,
}

/// The caller label: principals as they come, up to a cap, then `other`.
struct CallerLabels {
    cap: usize,
    seen: Mutex<HashSet<String>>,
}

impl CallerLabels {
    fn label(&self, principal: &str) -> String {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.contains(principal) {
            return principal.to_owned();
        }
        if seen.len() < self.cap {
            seen.insert(principal.to_owned());
            return principal.to_owned();
        }
        "other".to_owned()
    }
}

fn histogram(name: &str, help: &str, buckets: &[f64], labels: &[&str]) -> HistogramVec {
    let options = HistogramOpts::new(name, help).buckets(buckets.to_vec());
    // The names and labels are this module's constants: they are valid.
    HistogramVec::new(options, labels).unwrap_or_else(|e| panic!("metric {name}: {e}"))
}

fn counter(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(Opts::new(name, help), labels)
        .unwrap_or_else(|e| panic!("metric {name}: {e}"))
}

fn gauge(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    IntGaugeVec::new(Opts::new(name, help), labels).unwrap_or_else(|e| panic!("metric {name}: {e}"))
}

impl Metrics {
    /// The metrics `options` describe, registered; skill calls carry a caller label for up to
    /// `--metrics-callers` principals (none for 0).
    pub(super) fn new(options: &ObserveOptions) -> Self {
        let callers = options.metrics_callers;
        let mut call_labels = vec!["agent", "skill", "protocol", "binding", "outcome"];
        if callers > 0 {
            call_labels.push("caller");
        }
        let metrics = Self {
            registry: Registry::new(),
            mcp_operations: histogram(
                "mcp_server_operation_duration_seconds",
                "MCP request duration as observed on the receiver, until the result was sent.",
                OPERATION_BUCKETS,
                &[
                    "agent",
                    "mcp_method_name",
                    "gen_ai_tool_name",
                    "gen_ai_prompt_name",
                    "error_type",
                    "network_transport",
                ],
            ),
            a2a_operations: histogram(
                "a2a_server_operation_duration_seconds",
                "A2A request duration as observed on the receiver (a stream: until it started).",
                OPERATION_BUCKETS,
                &[
                    "agent",
                    "a2a_method_name",
                    "a2a_protocol_version",
                    "a2a_binding",
                    "error_type",
                ],
            ),
            skill_calls: histogram(
                "a2a_skill_call_duration_seconds",
                "Skill calls over A2A and MCP: a task's until it settled or stopped to wait.",
                DURATION_BUCKETS,
                &call_labels,
            ),
            content_calls: histogram(
                "a2a_content_call_duration_seconds",
                "MCP resource reads and prompts.",
                DURATION_BUCKETS,
                &["agent", "kind", "outcome"],
            ),
            transitions: counter(
                "a2a_task_transitions_total",
                "Tasks entering each state.",
                &["agent", "state"],
            ),
            store_writes: histogram(
                "a2a_store_write_duration_seconds",
                "Task updates written to the store, retries included.",
                STORE_BUCKETS,
                &["outcome"],
            ),
            store_retries: IntCounter::new(
                "a2a_store_write_retries_total",
                "Task update writes tried again after the store failed them.",
            )
            .unwrap_or_else(|e| panic!("metric: {e}")),
            push_deliveries: counter(
                "a2a_push_deliveries_total",
                "Push notification delivery attempts, by how they ended.",
                &["outcome"],
            ),
            refusals: counter(
                "a2a_quota_refusals_total",
                "Requests refused as busy, by what ran out.",
                &["kind"],
            ),
            dropped: IntCounter::new(
                "a2a_observer_dropped_total",
                "Records an application's observer fell too far behind to receive.",
            )
            .unwrap_or_else(|e| panic!("metric: {e}")),
            spans_dropped: IntCounter::new(
                "a2a_spans_dropped_total",
                "Spans not exported: beyond the buffer while the collector was down, or refused.",
            )
            .unwrap_or_else(|e| panic!("metric: {e}")),
            usage_dropped: IntCounter::new(
                "a2a_usage_dropped_total",
                "Usage rows not written: beyond the buffer while the store was down, or refused.",
            )
            .unwrap_or_else(|e| panic!("metric: {e}")),
            tasks_working: gauge("a2a_tasks_working", "Tasks working now.", &["agent"]),
            questions_waiting: gauge(
                "a2a_questions_waiting",
                "Calls waiting for answers now, over both protocols.",
                &["agent"],
            ),
            subscribers: gauge(
                "a2a_task_subscribers",
                "Streams following tasks now.",
                &["agent"],
            ),
            streams_open: IntGauge::new(
                "a2a_streams_open",
                "Streams open now (A2A task streams, MCP listen streams).",
            )
            .unwrap_or_else(|e| panic!("metric: {e}")),
            mcp_sessions: IntGauge::new("mcp_server_sessions_active", "MCP sessions open now.")
                .unwrap_or_else(|e| panic!("metric: {e}")),
            callers: CallerLabels {
                cap: callers,
                seen: Mutex::default(),
            },
            sources: Mutex::default(),
            token: options.metrics_token.clone(),
            apart: options.metrics_bind.is_some(),
        };
        metrics.register();
        metrics
    }

    fn register(&self) {
        let collectors: Vec<Box<dyn prometheus::core::Collector>> = vec![
            Box::new(self.mcp_operations.clone()),
            Box::new(self.a2a_operations.clone()),
            Box::new(self.skill_calls.clone()),
            Box::new(self.content_calls.clone()),
            Box::new(self.transitions.clone()),
            Box::new(self.store_writes.clone()),
            Box::new(self.store_retries.clone()),
            Box::new(self.push_deliveries.clone()),
            Box::new(self.refusals.clone()),
            Box::new(self.dropped.clone()),
            Box::new(self.spans_dropped.clone()),
            Box::new(self.usage_dropped.clone()),
            Box::new(self.tasks_working.clone()),
            Box::new(self.questions_waiting.clone()),
            Box::new(self.subscribers.clone()),
            Box::new(self.streams_open.clone()),
            Box::new(self.mcp_sessions.clone()),
        ];
        for collector in collectors {
            // Each name is registered once, here.
            let _ = self.registry.register(collector);
        }
    }

    fn sources(&self) -> std::sync::MutexGuard<'_, Sources> {
        self.sources.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `/metrics` route over these metrics.
    fn scrape(self: Arc<Self>) -> Router {
        let token = self.token.clone();
        super::scrape::routes(Arc::new(move || self.render()), token)
    }

    /// The exposition, in the Prometheus text format (version 0.0.4), as of now.
    pub(super) fn render(&self) -> String {
        self.read_gauges();
        let mut text = Vec::new();
        // Encoding into memory fails only on a metric the registry would not have taken.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut text);
        String::from_utf8(text).unwrap_or_default()
    }

    /// Sets the gauges, and counts on the refusals and drops, from the watched sources.
    fn read_gauges(&self) {
        let mut sources = self.sources();
        sources.apps.retain(|app| app.strong_count() > 0);
        sources
            .sessions
            .retain(|sessions| sessions.strong_count() > 0);
        let apps: Vec<Arc<App>> = sources.apps.iter().filter_map(Weak::upgrade).collect();
        for app in &apps {
            let load = app.manager.load();
            let agent = [&**app.dispatcher.meter().agent()];
            self.tasks_working
                .with_label_values(&agent)
                .set(gauge_value(load.working));
            self.questions_waiting
                .with_label_values(&agent)
                .set(gauge_value(load.waiting));
            self.subscribers
                .with_label_values(&agent)
                .set(gauge_value(load.subscribers));
        }
        // Quotas, the store and the hub belong to the server: any agent's are its.
        if let Some(app) = apps.first() {
            let (_, _, streams) = app.quotas.totals();
            self.streams_open.set(gauge_value(streams));
            for ((kind, total), last) in app.quotas.refusals().zip(&mut sources.refusals) {
                self.refusals
                    .with_label_values(&[kind.as_str()])
                    .inc_by(total.saturating_sub(*last));
                *last = total;
            }
            if let Some(hub) = app.dispatcher.meter().hub() {
                let dropped = hub.dropped();
                self.dropped.inc_by(dropped.saturating_sub(sources.dropped));
                sources.dropped = dropped;
            }
            let exporters: Vec<_> = sources.exporters.iter().filter_map(Weak::upgrade).collect();
            for exporter in exporters {
                let (counter, last, now) = match exporter.dropped() {
                    Some(Dropped::Spans(now)) => {
                        (&self.spans_dropped, &mut sources.spans_dropped, now)
                    }
                    Some(Dropped::UsageRows(now)) => {
                        (&self.usage_dropped, &mut sources.usage_dropped, now)
                    }
                    None => continue,
                };
                counter.inc_by(now.saturating_sub(*last));
                *last = now;
            }
        }
        let sessions: usize = sources
            .sessions
            .iter()
            .filter_map(Weak::upgrade)
            .map(|sessions| sessions.try_count().unwrap_or(0))
            .sum();
        self.mcp_sessions.set(gauge_value(sessions));
    }
}

fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The metrics as the server runs them: the gauges of what it serves read at each scrape, and
/// `/metrics` served on its address or on one of its own.
impl Exporter for Metrics {
    fn watch_app(&self, app: &Arc<App>) {
        self.sources().apps.push(Arc::downgrade(app));
    }

    fn watch_sessions(&self, sessions: &Arc<McpSessions>) {
        self.sources().sessions.push(Arc::downgrade(sessions));
    }

    fn watch_exporters(&self, all: &[Arc<dyn Exporter>]) {
        self.sources().exporters = all.iter().map(Arc::downgrade).collect();
    }

    fn routes(self: Arc<Self>, _security: &Arc<Security>) -> Option<(Router, Vec<&'static str>)> {
        (!self.apart).then(|| (self.scrape(), vec![paths::METRICS]))
    }

    fn apart(self: Arc<Self>) -> Option<Router> {
        self.apart.then(|| self.scrape())
    }
}

impl CallObserver for Metrics {
    fn call(&self, record: &CallRecord) {
        let seconds = record.duration.as_secs_f64();
        let outcome = record.outcome.as_str();
        if record.kind != CallKind::Skill {
            self.content_calls
                .with_label_values(&[&*record.agent, record.kind.as_str(), outcome])
                .observe(seconds);
            return;
        }
        let protocol = record.protocol.name();
        let binding = record.binding.as_str();
        let labels = [&*record.agent, &*record.name, protocol, binding, outcome];
        if self.callers.cap == 0 {
            self.skill_calls.with_label_values(&labels).observe(seconds);
        } else {
            let caller = self.callers.label(record.caller.principal());
            let [agent, skill, protocol, binding, outcome] = labels;
            self.skill_calls
                .with_label_values(&[agent, skill, protocol, binding, outcome, &caller])
                .observe(seconds);
        }
    }

    fn task(&self, change: &TaskChange<'_>) {
        self.transitions
            .with_label_values(&[&*change.agent, change.state.name()])
            .inc();
    }

    fn operation(&self, operation: &OperationRecord) {
        let seconds = operation.duration.as_secs_f64();
        let error = operation.error_type.as_deref().unwrap_or("");
        let target = operation.target.as_deref().unwrap_or("");
        match operation.protocol {
            Protocol::Mcp => {
                let (tool, prompt) = match &*operation.method {
                    "prompts/get" => ("", target),
                    _ => (target, ""),
                };
                let transport = match operation.binding.as_str() {
                    "stdio" => "pipe",
                    _ => "tcp",
                };
                self.mcp_operations
                    .with_label_values(&[
                        &*operation.agent,
                        &*operation.method,
                        tool,
                        prompt,
                        error,
                        transport,
                    ])
                    .observe(seconds);
            }
            protocol => {
                self.a2a_operations
                    .with_label_values(&[
                        &*operation.agent,
                        &*operation.method,
                        protocol.version(),
                        operation.binding.as_str(),
                        error,
                    ])
                    .observe(seconds);
            }
        }
    }

    fn store_write(&self, write: &StoreWrite) {
        let outcome = if write.stored { "stored" } else { "failed" };
        self.store_writes
            .with_label_values(&[outcome])
            .observe(write.duration.as_secs_f64());
        self.store_retries
            .inc_by(u64::from(write.attempts.saturating_sub(1)));
    }

    fn push(&self, delivery: &PushDelivery) {
        self.push_deliveries
            .with_label_values(&[delivery.outcome.as_str()])
            .inc();
    }
}
