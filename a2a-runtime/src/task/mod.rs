//! Tasks: the [`TaskStore`] trait, the bounded in-memory store, and the manager that runs skills
//! as tasks.

mod checkpoint;
mod cluster;
mod conversation;
mod durability;
mod error;
mod hook;
mod live;
mod manager;
mod memory;
mod outbox;
mod postgres;
mod push_configs;
mod record;
mod remote;
mod replay;
mod resume;
mod runner;
mod sqlite;
mod store;
mod subscription;
mod waiting;

pub use checkpoint::Checkpoint;
pub use cluster::Coordination;
pub(crate) use error::TaskError;
pub(crate) use hook::Observers;
pub(crate) use manager::{DURABLE_WAIT, TaskConfig, TaskEvents, TaskHandle, TaskManager};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use outbox::Outbox;
pub(crate) use outbox::{OutboxBackend, OutboxEntry};
pub use postgres::{PostgresStoreOptions, PostgresTaskStore};
pub(crate) use push_configs::PushEdit;
pub use record::StoredTask;
pub use sqlite::{SqliteStoreOptions, SqliteTaskStore};
pub use store::{ListQuery, StoreError, TaskPage, TaskStore};
pub(crate) use subscription::{StreamItem, ends_stream};
