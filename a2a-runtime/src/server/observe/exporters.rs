//! The exporters a server runs, as one value built once from its options: Prometheus metrics,
//! OTLP traces and usage records are each a row of [`Exporters::new`], behind its feature (as
//! sqlx lists its drivers). The rest of the server asks the value what it serves, keeps, sends
//! and drops, and never names a feature.

use std::sync::Arc;

use super::exporter::Exporter;
use super::{ObserveOptions, Service};
use a2a_runtime_core::app::App;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::{
    CallObserver, CallRecord, ClientSpan, OperationRecord, PushDelivery, StoreWrite, TaskChange,
};
use a2a_runtime_core::quota::Quotas;

/// The exporters of one server, in the order they see each record (and their routes are
/// listed): metrics, traces, usage.
pub(crate) struct Exporters(Vec<Arc<dyn Exporter>>);

impl Exporters {
    /// The exporters `options` turn on (`None`: none), reporting the server as `service`;
    /// the usage recorder's budget is charged through `quotas`. An exporter this build leaves
    /// out is an error naming its flag and feature.
    pub(super) fn new(
        options: &ObserveOptions,
        quotas: &Quotas,
        service: Service<'_>,
    ) -> Result<Option<Arc<Self>>, Error> {
        let mut rows: Vec<Arc<dyn Exporter>> = Vec::new();
        if options.metrics {
            #[cfg(feature = "metrics")]
            rows.push(Arc::new(super::metrics::Metrics::new(options)));
            #[cfg(not(feature = "metrics"))]
            return Err(left_out("--metrics", "metrics"));
        }
        if let Some(endpoint) = &options.otlp_endpoint {
            #[cfg(feature = "otlp")]
            rows.push(Arc::new(super::otlp::Otlp::new(
                endpoint, options, service,
            )?));
            #[cfg(not(feature = "otlp"))]
            return Err(left_out(&format!("--otlp-endpoint {endpoint}"), "otlp"));
        }
        if options.usage {
            #[cfg(feature = "usage")]
            rows.push(Arc::new(super::usage::Usage::of_options(options, quotas)));
            #[cfg(not(feature = "usage"))]
            return Err(left_out("--usage", "usage"));
        }
        // Each is used by some row; in a build with none of them, by none.
        let _ = (quotas, service, &mut rows);
        for exporter in &rows {
            exporter.watch_exporters(&rows);
        }
        Ok((!rows.is_empty()).then(|| Arc::new(Self(rows))))
    }

    /// The exporters of the server `apps` serve (every agent's meter reports to its hub).
    pub(crate) fn of(apps: &[Arc<App>]) -> Option<Arc<Self>> {
        apps.first()?.dispatcher.meter().hub()?.find::<Self>()
    }

    /// The share of traces sampled, when one exporter exports traces.
    pub(super) fn sampling(&self) -> Option<f64> {
        self.0.iter().find_map(|exporter| exporter.sampling())
    }

    /// Every exporter.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Arc<dyn Exporter>> {
        self.0.iter()
    }
}

/// Every record reaches each exporter, in order.
impl CallObserver for Exporters {
    fn call(&self, record: &CallRecord) {
        self.0.iter().for_each(|exporter| exporter.call(record));
    }

    fn task(&self, change: &TaskChange<'_>) {
        self.0.iter().for_each(|exporter| exporter.task(change));
    }

    fn operation(&self, operation: &OperationRecord) {
        self.0
            .iter()
            .for_each(|exporter| exporter.operation(operation));
    }

    fn store_write(&self, write: &StoreWrite) {
        self.0
            .iter()
            .for_each(|exporter| exporter.store_write(write));
    }

    fn push(&self, delivery: &PushDelivery) {
        self.0.iter().for_each(|exporter| exporter.push(delivery));
    }

    fn client_span(&self, span: &ClientSpan) {
        self.0
            .iter()
            .for_each(|exporter| exporter.client_span(span));
    }
}

/// The error for `flag`, whose exporter this build leaves out.
#[cfg_attr(
    all(feature = "usage", feature = "otlp", feature = "metrics"),
    allow(dead_code)
)]
fn left_out(flag: &str, feature: &str) -> Error {
    Error::Config(format!(
        "{flag} needs the `{feature}` feature of a2a-runtime, which this build leaves out"
    ))
}
