//! Why a task store failed: the one error every store contract (tasks, outbox, replicas)
//! returns, a leaf the store's types depend on.

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store holds its maximum number of tasks and none can be evicted.
    #[error("the task store is full ({0} tasks held, none finished); retry later")]
    Full(usize),
    /// A page token this store did not issue.
    #[error("pageToken is not a token this server issued")]
    InvalidPageToken,
    /// A conditional write found another version than the writer read: someone else wrote the
    /// task in between, and nothing was written.
    #[error("task `{id}` changed meanwhile (version {actual}, the write expected {expected})")]
    Conflict {
        /// The task.
        id: String,
        /// The version the writer read.
        expected: u64,
        /// The version stored.
        actual: u64,
    },
    /// `create` of an id already stored.
    #[error("task `{0}` already exists")]
    Exists(String),
    /// `update` of an id not stored (deleted or expired meanwhile).
    #[error("task `{0}` is not stored")]
    Missing(String),
    /// The store does not offer this (a store of another crate that predates it): the request
    /// that needs it is refused rather than served without its guarantee.
    #[error("the task store does not keep {0}")]
    Unsupported(&'static str),
    /// A backend failure (I/O, the database).
    #[error("task store failure: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// A backend failure from any error.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Backend(error.into())
    }
}
