//! What a server reports about itself: the observers the application registers, and the
//! exporters the server runs (Prometheus metrics with the `metrics` feature), assembled into
//! the one [`Hub`] every agent's meter reports to.

#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "otlp")]
mod otlp;
#[cfg(feature = "metrics")]
mod scrape;
#[cfg(feature = "usage")]
mod usage;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use super::config::ServeConfig;
use super::paths;
use super::storage::Storage;
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::{CallObserver, Hub};
use a2a_runtime_core::quota::Quotas;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// What a server reports, and where (the `observe` part of [`ServeConfig`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ObserveOptions {
    /// Serve Prometheus metrics at `/metrics` (`--metrics`, `A2A_METRICS`; the `metrics`
    /// feature). On the server's own address a scrape needs
    /// [`metrics_token`](Self::metrics_token) unless the server listens on loopback only.
    pub metrics: bool,
    /// The bearer token a scrape of `/metrics` must present (`--metrics-token`,
    /// `A2A_METRICS_TOKEN`).
    pub metrics_token: Option<String>,
    /// Serve `/metrics` on this address instead, apart from the agents' (`--metrics-bind`,
    /// `A2A_METRICS_BIND`), where firewalls keep scrapers apart from callers.
    pub metrics_bind: Option<SocketAddr>,
    /// Label skill calls with their caller's principal, for at most this many principals
    /// (the rest are `other`): `--metrics-callers`, `A2A_METRICS_CALLERS`; 0 (the default)
    /// labels none, so the label set stays bounded.
    pub metrics_callers: usize,
    /// Records an application's observer may fall behind by before they are dropped and
    /// counted (`--observer-queue`, `A2A_OBSERVER_QUEUE`; default 4096).
    pub observer_queue: usize,
    /// Export traces over OTLP (HTTP/protobuf) to this collector, as
    /// `{endpoint}/v1/traces` (`--otlp-endpoint`, `A2A_OTLP_ENDPOINT`; the `otlp` feature):
    /// a span per request and per skill call.
    pub otlp_endpoint: Option<String>,
    /// Headers every export carries, such as a backend's API key (`--otlp-header NAME=VALUE`,
    /// `A2A_OTLP_HEADERS`).
    pub otlp_headers: Vec<(String, String)>,
    /// The share of traces started here (requests without a `traceparent`) that are
    /// sampled, 0 to 1 (`--otlp-sample-ratio`; default 1). A caller's `traceparent` decides
    /// for its own trace.
    pub otlp_sample_ratio: f64,
    /// Record every call as a row of the usage store beside the tasks, with hourly rollups
    /// and the admin-only `/usage` endpoint (`--usage`, `A2A_USAGE`; the `usage` feature).
    pub usage: bool,
    /// How long usage rows are kept (`--usage-retention`; default 90 days).
    pub usage_retention: Duration,
    /// How long hourly rollups are kept (`--usage-rollup-retention`; default 400 days).
    pub usage_rollup_retention: Duration,
    /// Claims of the caller's token kept with each row, such as a tenant (`--usage-claim`).
    pub usage_claims: Vec<String>,
    /// The scope `/usage` needs (`--usage-admin-scope`; default `a2a:admin`).
    pub usage_admin_scope: String,
    /// Skill calls each authenticated caller may make per calendar month (UTC); past it, calls
    /// are refused as busy until the month ends (`--call-budget`; needs `--usage`).
    pub call_budget: Option<u64>,
}

impl Default for ObserveOptions {
    fn default() -> Self {
        Self {
            metrics: false,
            metrics_token: None,
            metrics_bind: None,
            metrics_callers: 0,
            observer_queue: 4096,
            otlp_endpoint: None,
            otlp_headers: Vec::new(),
            otlp_sample_ratio: 1.0,
            usage: false,
            usage_retention: Duration::from_secs(90 * 86_400),
            usage_rollup_retention: Duration::from_secs(400 * 86_400),
            usage_claims: Vec::new(),
            usage_admin_scope: "a2a:admin".into(),
            call_budget: None,
        }
    }
}

impl ObserveOptions {
    /// Checks the options against the server's `bind` address.
    pub(crate) fn validate(&self, bind: SocketAddr) -> Result<(), Error> {
        if let Some(endpoint) = &self.otlp_endpoint {
            if cfg!(not(feature = "otlp")) {
                return Err(Error::Config(
                    "--otlp-endpoint needs the `otlp` feature of a2a-runtime".into(),
                ));
            }
            if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
                return Err(Error::Config(format!(
                    "--otlp-endpoint `{endpoint}` must be an http:// or https:// URL"
                )));
            }
        }
        if self.usage && cfg!(not(feature = "usage")) {
            return Err(Error::Config(
                "--usage needs the `usage` feature of a2a-runtime".into(),
            ));
        }
        match self.call_budget {
            Some(_) if !self.usage => {
                return Err(Error::Config(
                    "--call-budget counts calls from the usage records: add --usage".into(),
                ));
            }
            Some(0) => {
                return Err(Error::Config(
                    "--call-budget must be at least 1 (leave it out for no budget)".into(),
                ));
            }
            _ => {}
        }
        if self.usage && self.usage_admin_scope.trim().is_empty() {
            return Err(Error::Config(
                "--usage-admin-scope must not be empty".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.otlp_sample_ratio) {
            return Err(Error::Config(format!(
                "--otlp-sample-ratio must be between 0 and 1, got {}",
                self.otlp_sample_ratio
            )));
        }
        if !self.metrics {
            return Ok(());
        }
        if cfg!(not(feature = "metrics")) {
            return Err(Error::Config(
                "--metrics needs the `metrics` feature of a2a-runtime".into(),
            ));
        }
        if self.metrics_token.as_deref().is_some_and(str::is_empty) {
            return Err(Error::Config("--metrics-token must not be empty".into()));
        }
        let apart = self.metrics_bind.is_some();
        if !apart && self.metrics_token.is_none() && !bind.ip().is_loopback() {
            return Err(Error::Config(format!(
                "--metrics on {bind}, which is not loopback, needs --metrics-token (scrapers \
                 then send it as a bearer token) or --metrics-bind (an address of their own)"
            )));
        }
        Ok(())
    }
}

/// What a server's observers report it as: its name and version (in traces, the service).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "otlp"), allow(dead_code))] // Only traces name the service.
pub(crate) struct Service<'a> {
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
}

/// The hub of a server configured by `config`, with the application's `observers` (each behind
/// a queue of its own); `None` when nothing observes it. `service` names the server (and its
/// version) in the traces it exports.
pub(crate) fn hub(
    config: &ServeConfig,
    observers: &[Arc<dyn CallObserver>],
    quotas: &Quotas,
    service: Service<'_>,
) -> Result<Option<Arc<Hub>>, Error> {
    let mut builder = Hub::builder().capacity(config.observe.observer_queue);
    #[cfg(feature = "usage")]
    if config.observe.usage {
        let options = &config.observe;
        let settings = usage::UsageSettings {
            retention: options.usage_retention,
            rollup_retention: options.usage_rollup_retention,
            claims: options.usage_claims.clone(),
            admin_scope: options.usage_admin_scope.trim().to_owned(),
        };
        let recorder = usage::Usage::new(settings, options.call_budget, quotas);
        builder = builder.inline(Arc::new(recorder));
    }
    #[cfg(not(feature = "usage"))]
    let _ = quotas;
    #[cfg(feature = "otlp")]
    if let Some(endpoint) = &config.observe.otlp_endpoint {
        let exporter = otlp::Otlp::new(endpoint, &config.observe.otlp_headers, service)?;
        builder = builder
            .tracing(config.observe.otlp_sample_ratio)
            .inline(Arc::new(exporter));
    }
    #[cfg(not(feature = "otlp"))]
    let _ = service;
    #[cfg(feature = "metrics")]
    if config.observe.metrics {
        builder = builder.inline(Arc::new(metrics::Metrics::new(
            config.observe.metrics_callers,
        )));
    }
    for observer in observers {
        builder = builder.queued(Arc::clone(observer));
    }
    Ok(builder.build())
}

/// Opens the usage store of a server, when it records usage: beside the tasks of `storage`
/// (through the records database it shares), in memory without one.
pub(crate) async fn open(apps: &[Arc<App>], storage: Option<&Storage>) -> Result<(), Error> {
    #[cfg(feature = "usage")]
    if let Some(recorder) = apps
        .first()
        .and_then(|app| usage::of(app.dispatcher.meter()))
    {
        let failed = |e: &dyn std::fmt::Display| Error::Config(format!("the usage store: {e}"));
        let store = match storage {
            None => a2a_runtime_sql::UsageStore::memory(),
            Some(storage) => {
                let records = storage.records().await?;
                let beside = a2a_runtime_sql::UsageStore::beside(&records);
                beside.await.map_err(|e| failed(&e))?
            }
        };
        recorder.open(store).await.map_err(|e| failed(&e))?;
    }
    #[cfg(not(feature = "usage"))]
    let _ = (apps, storage);
    Ok(())
}

/// Sends what exporters still hold, once the server stopped serving (within a few seconds).
pub(crate) async fn flush(apps: &[Arc<App>]) {
    #[cfg(feature = "usage")]
    if let Some(recorder) = apps
        .first()
        .and_then(|app| usage::of(app.dispatcher.meter()))
    {
        let flushed = tokio::time::timeout(std::time::Duration::from_secs(5), recorder.flush());
        if flushed.await.is_err() {
            tracing::warn!("usage rows still buffered at exit were not all written");
        }
    }
    #[cfg(feature = "otlp")]
    if let Some(exporter) = apps
        .first()
        .and_then(|app| otlp::of(app.dispatcher.meter()))
    {
        let flushed = tokio::time::timeout(std::time::Duration::from_secs(5), exporter.flush());
        if flushed.await.is_err() {
            tracing::warn!("spans still buffered at exit were not all exported");
        }
    }
    #[cfg(not(feature = "otlp"))]
    let _ = apps;
}

/// `app` is served: its gauges (tasks, questions, streams) are read at each scrape.
pub(crate) fn watch_app(app: &Arc<App>) {
    #[cfg(feature = "metrics")]
    if let Some(metrics) = metrics::of(app.dispatcher.meter()) {
        metrics.watch_app(app);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = app;
}

/// `sessions` hold `app`'s MCP sessions (or a host's shared endpoint's).
pub(crate) fn watch_sessions(app: &App, sessions: &Arc<LocalSessionManager>) {
    #[cfg(feature = "metrics")]
    if let Some(metrics) = metrics::of(app.dispatcher.meter()) {
        metrics.watch_sessions(sessions);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (app, sessions);
}

/// The `/metrics` route on the server's own address, when metrics are served there (behind
/// the token, or on a loopback server), and `/usage` with usage records; `apps` are the
/// server's agents. Also the paths served, for the console to show.
pub(crate) fn routes(apps: &[Arc<App>], config: &ServeConfig) -> (Router, Vec<&'static str>) {
    let served = [
        (paths::METRICS, metrics_route(apps, config)),
        (paths::USAGE, usage_route(apps)),
    ];
    let mut router = Router::new();
    let mut served_paths = Vec::new();
    for (path, route) in served {
        if let Some(route) = route {
            router = router.merge(route);
            served_paths.push(path);
            // Beside `/usage` (for administrators), every caller's own.
            if path == paths::USAGE {
                served_paths.push(paths::USAGE_OWN);
            }
        }
    }
    (router, served_paths)
}

/// The `/usage` route, when the server keeps usage records.
fn usage_route(apps: &[Arc<App>]) -> Option<Router> {
    #[cfg(feature = "usage")]
    if let Some(recorder) = apps
        .first()
        .and_then(|app| usage::of(app.dispatcher.meter()))
    {
        // A host's admins are those any of its agents authenticates.
        let security = match apps {
            [app] => Arc::clone(&app.security),
            apps => Arc::new(a2a_runtime_core::auth::Security::union(
                apps.iter().map(|app| &*app.security),
            )),
        };
        return Some(usage::routes(recorder, security));
    }
    let _ = apps;
    None
}

/// The `/metrics` route, when metrics are served on the server's own address.
fn metrics_route(apps: &[Arc<App>], config: &ServeConfig) -> Option<Router> {
    #[cfg(feature = "metrics")]
    if config.observe.metrics
        && config.observe.metrics_bind.is_none()
        && let Some(metrics) = apps
            .first()
            .and_then(|app| metrics::of(app.dispatcher.meter()))
    {
        return Some(scrape::routes(
            metrics,
            config.observe.metrics_token.clone(),
        ));
    }
    let _ = (apps, config);
    None
}

/// Serves `/metrics` on `--metrics-bind`, when given, until `stop`.
pub(crate) async fn serve_apart(
    apps: &[Arc<App>],
    config: &ServeConfig,
    stop: tokio_util::sync::CancellationToken,
) -> Result<(), Error> {
    #[cfg(feature = "metrics")]
    if let (true, Some(bind)) = (config.observe.metrics, config.observe.metrics_bind) {
        let Some(metrics) = apps
            .first()
            .and_then(|app| metrics::of(app.dispatcher.meter()))
        else {
            return Ok(());
        };
        let token = config.observe.metrics_token.clone();
        return scrape::serve_apart(metrics, token, bind, &config.limits, stop).await;
    }
    let _ = (apps, config, stop);
    Ok(())
}
