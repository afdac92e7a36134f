//! The task-event hook: the one place a task's events leave the task. Subscribers (SSE streams,
//! replicas following the task), push delivery and MCP progress notifications all observe the
//! same events, in the order they happened to the task.

use std::sync::Arc;

use a2a_runtime_types::model::TaskObserver;

/// The observers every task of one manager has (push delivery).
pub type Observers = Arc<[Arc<dyn TaskObserver>]>;
