//! Tasks: the [`TaskStore`] trait, the bounded in-memory store, and the manager that runs skills
//! as tasks.

mod answers;
pub mod checkpoint;
pub mod cluster;
pub mod conversation;
pub mod coordination;
pub mod durability;
pub mod error;
pub mod handle;
pub mod hook;
pub mod idempotency;
mod keyed;
pub mod live;
pub mod manager;
pub mod memory;
pub mod outbox;
mod persist;
mod prepare;
pub mod push_configs;
pub mod push_edit;
pub mod record;
pub mod remote;
pub mod replay;
pub mod resume;
pub mod runner;
mod shared;
pub mod store;
pub mod store_error;
pub mod subscription;
pub mod waiting;
pub mod watched;

pub use checkpoint::Checkpoint;
pub use coordination::Coordination;
pub use error::TaskError;
pub use handle::{TaskEvents, TaskHandle};
pub use hook::Observers;
pub use idempotency::{
    Fingerprint, IdempotencyKey, KeyClaim, KeyError, KeyRecord, KeyScope, KeyedRequest,
};
pub use keyed::Keyed;
pub use manager::{DURABLE_WAIT, Load, SharedTasks, TaskConfig, TaskManager};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use outbox::Outbox;
pub use outbox::{OutboxBackend, OutboxEntry};
pub use push_configs::PushEdit;
pub use record::StoredTask;
pub use runner::Driven;
pub use store::{ListQuery, StoreError, TaskPage, TaskStore};
pub use subscription::{StreamItem, ends_stream};
