//! Tasks: the [`TaskStore`] trait, the bounded in-memory store, and the manager that runs skills
//! as tasks.

mod cluster;
mod conversation;
mod error;
mod live;
mod manager;
mod memory;
mod postgres;
mod remote;
mod replay;
mod resume;
mod runner;
mod sqlite;
mod store;
mod subscription;
mod waiting;

pub use cluster::Coordination;
pub(crate) use error::TaskError;
pub(crate) use manager::{DURABLE_WAIT, TaskConfig, TaskEvents, TaskHandle, TaskManager};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use postgres::{PostgresStoreOptions, PostgresTaskStore};
pub(crate) use runner::request_message;
pub use sqlite::{SqliteStoreOptions, SqliteTaskStore};
pub use store::{ListQuery, StoreError, StoredTask, TaskPage, TaskStore};
pub(crate) use subscription::{StreamItem, ends_stream};
