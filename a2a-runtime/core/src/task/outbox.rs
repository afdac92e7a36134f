//! The push outbox a durable store keeps: deliveries not yet made, so they survive a restart.
//! The store keeps opaque entries; what they hold is the push layer's business.

use std::sync::Arc;

use super::store_error::StoreError;
use a2a_runtime_types::util::BoxFuture;

/// One pending delivery as a store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEntry {
    /// Unique and time-ordered: entries of one receiver are delivered in id order.
    pub id: String,
    /// The task the delivery is about (deleting the task forgets its deliveries).
    pub task_id: String,
    /// The delivery, serialized by the push layer.
    pub body: String,
}

/// A store's outbox. With replicas, the entries a replica saves are its own to deliver;
/// `pending` also hands it the entries of replicas that are gone.
pub trait OutboxBackend: Send + Sync {
    /// Saves `save` and forgets `remove`, in one write.
    fn apply<'a>(
        &'a self,
        save: &'a [OutboxEntry],
        remove: &'a [String],
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The entries this process is to deliver, oldest first.
    fn pending(&self) -> BoxFuture<'_, Result<Vec<OutboxEntry>, StoreError>>;
}

/// What [`TaskStore::outbox`](super::TaskStore::outbox) returns for a store that keeps pending
/// push deliveries across restarts (SQLite, Postgres). Opaque.
#[derive(Clone)]
pub struct Outbox(pub Arc<dyn OutboxBackend>);

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Outbox")
    }
}
