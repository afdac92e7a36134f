//! What a server does, as records: register a [`CallObserver`] with
//! [`AgentServer::observe`](crate::AgentServer::observe) (or
//! [`Host::observe`](crate::server::Host::observe)) and it receives every call of every agent,
//! over both protocols, with its outcome; every task state change; every request's operation;
//! store writes and push deliveries.
//!
//! ```no_run
//! use a2a_runtime::observe::{CallObserver, CallRecord};
//!
//! /// Counts calls per principal, for billing.
//! struct Billing;
//!
//! impl CallObserver for Billing {
//!     fn call(&self, record: &CallRecord) {
//!         if record.outcome.ran() {
//!             tracing::info!(
//!                 principal = record.caller.principal(),
//!                 skill = %record.name,
//!                 millis = record.duration.as_millis() as u64,
//!                 "billable call"
//!             );
//!         }
//!     }
//! }
//! # use a2a_runtime::prelude::*;
//! # /// Says hello.
//! # #[agent]
//! # struct Greeter;
//! # async fn serve() -> Result<(), a2a_runtime::Error> {
//! a2a_runtime::AgentServer::new(Greeter).observe(Billing).serve().await
//! # }
//! ```
//!
//! An observer runs on a task of its own behind a bounded queue: a slow one never holds up a
//! call; the records it falls too far behind on are dropped and counted
//! (`a2a_observer_dropped_total` in the metrics). Prometheus metrics (the `metrics` feature,
//! `--metrics`) are an observer of the same records.

pub use a2a_runtime_core::observe::{
    CallKind, CallObserver, CallOutcome, CallRecord, OperationRecord, PushDelivery, PushOutcome,
    StoreWrite, TaskChange,
};
pub use a2a_runtime_core::quota::BusyKind;
pub use a2a_runtime_types::model::{Binding, Protocol};
