//! What the task managers of one server share: one per agent on a host, over the same store,
//! quotas and replica membership.

use std::sync::Arc;

use super::cluster::Cluster;
use super::store::TaskStore;
use crate::quota::Quotas;

/// What the task managers of one server share when it hosts several agents: the store, the
/// callers' quotas, and this process's place among the replicas on the store.
#[derive(Clone)]
pub struct SharedTasks {
    store: Arc<dyn TaskStore>,
    quotas: Arc<Quotas>,
    cluster: Option<Arc<Cluster>>,
}

impl SharedTasks {
    /// The machinery the agents' managers on `store` share; `stream_buffer` is the events a
    /// mirror of a task another replica runs keeps for its subscribers.
    pub fn new(store: Arc<dyn TaskStore>, quotas: Arc<Quotas>, stream_buffer: usize) -> Self {
        Self {
            cluster: store
                .coordination()
                .map(|coordination| Cluster::new(coordination, stream_buffer)),
            store,
            quotas,
        }
    }

    /// The store every agent's tasks are kept in.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The callers' quotas.
    pub fn quotas(&self) -> &Arc<Quotas> {
        &self.quotas
    }

    /// This process among the replicas on the store, when it is shared.
    pub(super) fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }
}
