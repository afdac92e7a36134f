//! What a server reports about itself: Prometheus metrics that count a known mix of calls over
//! every A2A binding and MCP exactly, checked by `promtool` and scraped by a real Prometheus
//! server on loopback; OpenTelemetry traces across two processes, decoded with the official
//! protobuf definitions; durable usage records and call budgets; and the application's own
//! observers, which never hold up a call.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

#[path = "observability/exposition.rs"]
mod exposition;
#[path = "observability/metrics.rs"]
mod metrics;
#[path = "observability/observers.rs"]
mod observers;
#[path = "observability/prometheus.rs"]
mod prometheus;
#[path = "observability/trace_conventions.rs"]
mod trace_conventions;
#[path = "observability/traces.rs"]
mod traces;
#[path = "observability/usage.rs"]
mod usage;
