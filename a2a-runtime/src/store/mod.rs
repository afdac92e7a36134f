#![doc = include_str!("../../docs/durability.md")]

pub use a2a_runtime_core::task::cluster::{Coordination, Coordinator};
pub use a2a_runtime_core::task::outbox::{Outbox, OutboxBackend, OutboxEntry};
pub use a2a_runtime_core::task::{
    Checkpoint, InMemoryTaskStore, KeyClaim, KeyRecord, KeyScope, ListQuery, MemoryStoreLimits,
    StoreError, StoredTask, TaskPage, TaskStore,
};
#[cfg(feature = "postgres")]
pub use a2a_runtime_sql::{PostgresStoreOptions, PostgresTaskStore};
#[cfg(feature = "sqlite")]
pub use a2a_runtime_sql::{SqliteStoreOptions, SqliteTaskStore};
/// The future every [`TaskStore`] method returns: boxed and `Send`.
pub use a2a_runtime_types::BoxFuture;

#[cfg(feature = "testing")]
pub mod testing;

#[doc = include_str!("../../docs/deployment.md")]
pub mod deployment {}
