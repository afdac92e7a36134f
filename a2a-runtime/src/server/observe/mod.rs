//! What a server reports about itself: the observers the application registers, and the
//! exporters the server runs (one value, `exporters.rs`: Prometheus metrics, OTLP traces,
//! usage records), assembled into the one [`Hub`] every agent's meter reports to.

mod exporter;
mod exporters;
#[cfg(feature = "metrics")]
mod metrics;
pub(in crate::server) mod options;
#[cfg(feature = "otlp")]
mod otlp;
#[cfg(feature = "metrics")]
mod scrape;
#[cfg(feature = "usage")]
mod usage;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use super::config::ServeConfig;
use super::storage::Storage;
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::{CallObserver, Hub};
use a2a_runtime_core::quota::Quotas;
use a2a_runtime_mcp::sessions::McpSessions;
use exporters::Exporters;
pub use options::ObserveOptions;

/// What a server's observers report it as: its name and version (in traces, the service).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "otlp"), allow(dead_code))] // Only traces name the service.
pub(crate) struct Service<'a> {
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
}

/// The hub of a server configured by `config`: its exporters (called inline, in order), then
/// the application's `observers` (each behind a queue of its own); `None` when nothing
/// observes it. `service` names the server (and its version) in the traces it exports.
pub(crate) fn hub(
    config: &ServeConfig,
    observers: &[Arc<dyn CallObserver>],
    quotas: &Quotas,
    service: Service<'_>,
) -> Result<Option<Arc<Hub>>, Error> {
    let mut builder = Hub::builder().capacity(config.observe.observer_queue);
    if let Some(exporters) = Exporters::new(&config.observe, quotas, service)? {
        if let Some(ratio) = exporters.sampling() {
            builder = builder.tracing(ratio);
        }
        builder = builder.inline(exporters);
    }
    for observer in observers {
        builder = builder.queued(Arc::clone(observer));
    }
    Ok(builder.build())
}

/// Opens what the exporters of a server keep (the usage store): beside the tasks of `storage`
/// (through the records database it shares), in memory without one.
pub(crate) async fn open(apps: &[Arc<App>], storage: Option<&Storage>) -> Result<(), Error> {
    for exporter in Exporters::of(apps).iter().flat_map(|all| all.iter()) {
        exporter.open(storage).await?;
    }
    Ok(())
}

/// Sends what exporters still hold, once the server stopped serving (within a few seconds
/// each).
pub(crate) async fn flush(apps: &[Arc<App>]) {
    for exporter in Exporters::of(apps).iter().flat_map(|all| all.iter()) {
        let flushed = tokio::time::timeout(Duration::from_secs(5), exporter.flush());
        if flushed.await.is_err() {
            tracing::warn!("what an exporter still held at exit was not all sent");
        }
    }
}

/// `app` is served: its gauges (tasks, questions, streams) are read at each scrape.
pub(crate) fn watch_app(app: &Arc<App>) {
    let exporters = Exporters::of(std::slice::from_ref(app));
    for exporter in exporters.iter().flat_map(|all| all.iter()) {
        exporter.watch_app(app);
    }
}

/// `sessions` hold `app`'s MCP sessions (or a host's shared endpoint's).
pub(crate) fn watch_sessions(app: &Arc<App>, sessions: &Arc<McpSessions>) {
    let exporters = Exporters::of(std::slice::from_ref(app));
    for exporter in exporters.iter().flat_map(|all| all.iter()) {
        exporter.watch_sessions(sessions);
    }
}

/// The exporters' routes on the server's own address (`/metrics` behind the token, or on a
/// loopback server; `/usage` with usage records); `apps` are the server's agents. Also the
/// paths served, for the console to show.
pub(crate) fn routes(apps: &[Arc<App>]) -> (Router, Vec<&'static str>) {
    let mut router = Router::new();
    let mut served = Vec::new();
    let Some(exporters) = Exporters::of(apps) else {
        return (router, served);
    };
    // A host's admins are those any of its agents authenticates.
    let security = match apps {
        [app] => Arc::clone(&app.security),
        apps => Arc::new(a2a_runtime_core::auth::Security::union(
            apps.iter().map(|app| &*app.security),
        )),
    };
    for exporter in exporters.iter() {
        if let Some((routes, paths)) = Arc::clone(exporter).routes(&security) {
            router = router.merge(routes);
            served.extend(paths);
        }
    }
    (router, served)
}

/// The routes `--metrics-bind`'s address serves, when an exporter is served apart.
pub(crate) fn apart(apps: &[Arc<App>]) -> Option<Router> {
    let exporters = Exporters::of(apps)?;
    exporters
        .iter()
        .find_map(|exporter| Arc::clone(exporter).apart())
}
