//! One exporter of a server, as the rest of the server sees it: a call observer that may serve
//! routes, keep a store, hold what it has not sent yet, and watch what the server serves.

use std::sync::Arc;

use a2a_runtime_mcp::sessions::McpSessions;
use axum::Router;
use futures::future::BoxFuture;

use crate::server::storage::Storage;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::Security;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::CallObserver;

/// What an exporter drops when its destination is slow, down or refuses (metrics count it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Made by traces and usage, read by metrics: a build may have one side without the other.
#[cfg_attr(
    not(all(feature = "metrics", feature = "otlp", feature = "usage")),
    allow(dead_code)
)]
pub(super) enum Dropped {
    /// Spans, by the trace exporter.
    Spans(u64),
    /// Usage rows, by the usage recorder.
    UsageRows(u64),
}

/// One exporter: it observes every call as the hub reports it, and may serve routes, keep a
/// store, hold what it has not sent yet, and watch what the server serves.
pub(super) trait Exporter: CallObserver {
    /// The share of traces started here that are sampled, for an exporter of traces.
    fn sampling(&self) -> Option<f64> {
        None
    }

    /// Opens what it keeps, beside the tasks of `storage` (in memory without it).
    fn open<'a>(&'a self, _storage: Option<&'a Storage>) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async { Ok(()) })
    }

    /// Sends what it still holds, once the server stopped serving.
    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// `app` is served (its gauges are read at each scrape).
    fn watch_app(&self, _app: &Arc<App>) {}

    /// `sessions` hold MCP sessions of the server.
    fn watch_sessions(&self, _sessions: &Arc<McpSessions>) {}

    /// Its routes on the server's own address, which callers of `security` reach, and the
    /// paths they serve (for the console to list).
    fn routes(self: Arc<Self>, _security: &Arc<Security>) -> Option<(Router, Vec<&'static str>)> {
        None
    }

    /// Its routes on an address of its own (`--metrics-bind`).
    fn apart(self: Arc<Self>) -> Option<Router> {
        None
    }

    /// `all` are the server's exporters, itself among them (the metrics count what the
    /// others drop).
    fn watch_exporters(&self, _all: &[Arc<dyn Exporter>]) {}

    /// What it dropped so far.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))] // Only metrics read it.
    fn dropped(&self) -> Option<Dropped> {
        None
    }
}
