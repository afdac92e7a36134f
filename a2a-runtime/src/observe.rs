#![doc = include_str!("../docs/observability.md")]

pub use a2a_runtime_core::observe::{
    CallKind, CallObserver, CallOutcome, CallRecord, OperationRecord, PushDelivery, PushOutcome,
    StoreWrite, TaskChange,
};
pub use a2a_runtime_core::quota::BusyKind;
pub use a2a_runtime_types::model::{Binding, Protocol};
