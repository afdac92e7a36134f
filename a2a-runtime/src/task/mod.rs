//! Tasks: the [`TaskStore`] trait, the bounded in-memory store, and the manager that runs skills
//! as tasks.

mod manager;
mod memory;
mod store;

pub(crate) use manager::{TaskConfig, TaskError, TaskManager};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use store::{ListQuery, StoreError, TaskPage, TaskStore};
