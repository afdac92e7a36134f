//! The replica contract: what a store shared by replicas provides so they can coordinate (a
//! lease per replica, who runs which task, mailboxes). A leaf beside the store contract; the
//! protocol over it is `cluster/`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::store_error::StoreError;
use a2a_runtime_types::util::BoxFuture;

/// What a store shared by replicas provides so they can coordinate.
pub trait Coordinator: Send + Sync + 'static {
    /// This replica's id.
    fn replica(&self) -> &str;
    /// How long a replica that stopped renewing its lease counts as alive.
    fn lease(&self) -> Duration;
    /// How many replicas hold a lease now, this one included (as of a recent renewal, never
    /// read on a request's path): what per-caller limits are shared among.
    fn live_replicas(&self) -> usize {
        1
    }
    /// The live replica, other than this one, running unfinished task `task`, if any.
    fn runner<'a>(&'a self, task: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// Puts `message` in replica `to`'s mailbox.
    fn send<'a>(&'a self, to: &'a str, message: String) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Holds this replica's lease and hands its messages to `inbox`, in the order sent by each
    /// sender, until `stop`; then gives the lease up.
    fn run(
        &self,
        inbox: mpsc::UnboundedSender<String>,
        stop: CancellationToken,
    ) -> BoxFuture<'static, ()>;
}

/// How the replicas sharing a store coordinate; returned by
/// [`TaskStore::coordination`](super::TaskStore::coordination) of the stores that support
/// several replicas (the Postgres store). Built over the store's [`Coordinator`].
#[derive(Clone)]
pub struct Coordination(Arc<dyn Coordinator>);

impl Coordination {
    pub fn new(coordinator: Arc<dyn Coordinator>) -> Self {
        Self(coordinator)
    }

    /// How many replicas hold a lease now, this one included (at least 1).
    pub fn live_replicas(&self) -> usize {
        self.0.live_replicas().max(1)
    }

    /// The store's coordinator.
    pub(crate) fn into_inner(self) -> Arc<dyn Coordinator> {
        self.0
    }
}

impl std::fmt::Debug for Coordination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Coordination")
            .field(&self.0.replica())
            .finish()
    }
}
