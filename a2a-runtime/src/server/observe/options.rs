//! What a server reports, and where: the options of its exporters and observers, checked
//! against the server's address (a build without an exporter they ask for is refused where
//! the exporters are made, naming the feature).

use std::net::SocketAddr;
use std::time::Duration;

use a2a_runtime_core::error::Error;

/// What a server reports, and where (the `observe` part of [`ServeConfig`](crate::server::ServeConfig)).
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
        if let Some(endpoint) = &self.otlp_endpoint
            && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
        {
            return Err(Error::Config(format!(
                "--otlp-endpoint `{endpoint}` must be an http:// or https:// URL"
            )));
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
