//! Observing what a server does: every call (a skill run over either protocol, a resource
//! read, a prompt), every request's operation, every task state change, store writes and push
//! deliveries, as records handed to [`CallObserver`]s.
//!
//! Front-ends and the task engine report through their agent's [`Meter`]; a meter without
//! observers is off and costs a branch per report, nothing else. The server's exporters
//! (Prometheus, OpenTelemetry, usage records) are observers like any other.

mod meter;
mod queue;
mod record;

pub use a2a_runtime_types::outgoing::{ClientSpan, SpanSink};

pub use meter::{Hub, HubBuilder, Meter, Metered, RequestSpan};
pub use record::{
    CallKind, CallOutcome, CallRecord, OperationDetail, OperationRecord, PushDelivery, PushOutcome,
    StoreWrite, TaskChange,
};

/// Follows what a server does, as records. Every method has a default that ignores its
/// record: an observer implements the ones it wants.
///
/// An observer registered on a server builder is called on a thread of its own, fed by a
/// bounded queue: it never holds up a call (it may even block), and records it falls too far
/// behind on are dropped and counted ([`Hub::dropped`]).
pub trait CallObserver: std::any::Any + Send + Sync {
    /// A call ended: a skill's run over A2A or MCP (for a task, one turn of it: until it
    /// settles, or waits for an answer), a resource read or a prompt, or a call refused
    /// before it ran.
    fn call(&self, record: &CallRecord) {
        let _ = record;
    }

    /// A task moved to a new state.
    fn task(&self, change: &TaskChange<'_>) {
        let _ = change;
    }

    /// A request was answered: one A2A operation or MCP method, whatever it ran.
    fn operation(&self, operation: &OperationRecord) {
        let _ = operation;
    }

    /// The task store took (or refused) a task's update.
    fn store_write(&self, write: &StoreWrite) {
        let _ = write;
    }

    /// A push notification's delivery attempt ended.
    fn push(&self, delivery: &PushDelivery) {
        let _ = delivery;
    }

    /// A request a skill sent out ended: its `CLIENT` span. Only observers called inline
    /// (exporters) receive these.
    fn client_span(&self, span: &ClientSpan) {
        let _ = span;
    }
}
