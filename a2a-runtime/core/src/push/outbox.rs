//! Keeps the store's outbox in step with the delivery queues, off the delivery path: saves and
//! removals are queued and written in batches, and a delivery made before its entry was
//! written costs no write at all (the save and the removal cancel out in one batch).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::task::{OutboxBackend, OutboxEntry};

/// The most changes written at once.
const MAX_BATCH: usize = 1024;
/// Attempts at writing one batch before its changes are given up (logged).
const WRITE_ATTEMPTS: u32 = 5;
/// The pause between two attempts at writing a batch.
const WRITE_RETRY: Duration = Duration::from_secs(1);

enum Change {
    Save(OutboxEntry),
    Remove(String),
}

/// The queue of outbox changes of one pusher.
pub(super) struct OutboxWriter {
    changes: mpsc::UnboundedSender<Change>,
}

impl OutboxWriter {
    /// A writer applying changes to `backend` in the background; `None` outside a Tokio
    /// runtime (durable stores are opened inside one).
    pub(super) fn start(backend: Arc<dyn OutboxBackend>) -> Option<Self> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (changes, queue) = mpsc::unbounded_channel();
        runtime.spawn(write_loop(backend, queue));
        Some(Self { changes })
    }

    /// Keeps `entry` until it is removed.
    pub(super) fn save(&self, entry: OutboxEntry) {
        let _ = self.changes.send(Change::Save(entry));
    }

    /// Forgets entry `id` (delivered, or given up).
    pub(super) fn remove(&self, id: String) {
        let _ = self.changes.send(Change::Remove(id));
    }
}

async fn write_loop(backend: Arc<dyn OutboxBackend>, mut queue: mpsc::UnboundedReceiver<Change>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let mut saves: HashMap<String, OutboxEntry> = HashMap::new();
        let mut removes = Vec::new();
        for change in batch.drain(..) {
            match change {
                Change::Save(entry) => {
                    saves.insert(entry.id.clone(), entry);
                }
                // Saved in this batch: never written, nothing to remove.
                Change::Remove(id) => {
                    if saves.remove(&id).is_none() {
                        removes.push(id);
                    }
                }
            }
        }
        let mut saves: Vec<OutboxEntry> = saves.into_values().collect();
        saves.sort_by(|a, b| a.id.cmp(&b.id));
        if saves.is_empty() && removes.is_empty() {
            continue;
        }
        for attempt in 1..=WRITE_ATTEMPTS {
            match backend.apply(&saves, &removes).await {
                Ok(()) => break,
                Err(error) if attempt < WRITE_ATTEMPTS => {
                    tracing::warn!(%error, attempt, "push outbox not written; retrying");
                    tokio::time::sleep(WRITE_RETRY).await;
                }
                Err(error) => tracing::error!(
                    %error,
                    saved = saves.len(),
                    removed = removes.len(),
                    "push outbox not written; these deliveries will not survive a restart"
                ),
            }
        }
    }
}
