//! Tasks: the [`TaskStore`] trait, the bounded in-memory store, and the manager that runs skills
//! as tasks.

mod conversation;
mod live;
mod manager;
mod memory;
mod store;
mod subscription;
mod waiting;

pub(crate) use manager::{
    TaskConfig, TaskError, TaskEvents, TaskHandle, TaskManager, request_message,
};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use store::{ListQuery, StoreError, TaskPage, TaskStore};
pub(crate) use subscription::{StreamItem, ends_stream};
