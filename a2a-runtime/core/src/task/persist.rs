//! Storing a live task's updates: the newest snapshot over the version last written, retried
//! with backoff, reported to the agent's meter; and a finished task retired once it is stored.

use std::sync::Arc;
use std::time::Duration;

use super::live::{LiveTask, Persisted};
use super::manager::TaskManager;
use super::store::StoreError;
use crate::observe;
use a2a_runtime_types::util::BoxFuture;

/// A store write under way.
type StoreWrite<'a> = BoxFuture<'a, Result<(), StoreError>>;

/// Attempts at storing one task update before giving up on it (the next update carries it).
const PERSIST_ATTEMPTS: u32 = 4;
/// The first pause before a store write is retried; each later one is four times longer.
const PERSIST_FIRST_RETRY: Duration = Duration::from_millis(50);
/// How often a finished task whose final state is not stored yet is written again.
const PERSIST_BACKGROUND_RETRY: Duration = Duration::from_secs(5);

impl TaskManager {
    /// Writes the task's newest snapshot over the version last written. Writers queue on the
    /// task's persist lock and read the snapshot only once they hold it, so an older state never
    /// overwrites a newer one. A backend failure is retried with backoff; whether the snapshot
    /// is stored (if not, the next write carries it, and a finished task stays live until one
    /// succeeds: see [`settle`](Self::settle)).
    pub(super) async fn persist(&self, live: &LiveTask) -> bool {
        let mut stored = live.persist.lock().await;
        let mut delay = PERSIST_FIRST_RETRY;
        let meter = self.dispatcher.meter();
        let started = meter.clock();
        let written = |attempts, stored| {
            if let Some(started) = started {
                meter.store_write(observe::StoreWrite::new(
                    started.elapsed(),
                    attempts,
                    stored,
                ));
            }
        };
        for attempt in 1..=PERSIST_ATTEMPTS {
            let Some((write, revision, edits)) = self.snapshot_write(live, &stored) else {
                return true;
            };
            match write.await {
                Ok(()) => {
                    written(attempt, true);
                    stored.version += 1;
                    stored.revision = revision;
                    stored.edits = edits;
                    live.durability.stored(revision);
                    self.health.wrote();
                    return true;
                }
                Err(error @ (StoreError::Backend(_) | StoreError::Full(_)))
                    if attempt < PERSIST_ATTEMPTS =>
                {
                    tracing::warn!(task = %live.id, %error, attempt, "task update not stored; retrying");
                    tokio::time::sleep(delay).await;
                    delay *= 4;
                }
                Err(error) => {
                    // A conflict means another writer changed the task: overwriting it would
                    // lose that change, so this copy is not written.
                    written(attempt, false);
                    tracing::error!(task = %live.id, %error, "could not persist task update");
                    let reason = error.to_string();
                    live.durability.refused(revision, &reason);
                    self.health.refused(&reason);
                    return false;
                }
            }
        }
        false
    }

    /// The write of `live`'s newest snapshot over what `stored` says the store holds, with the
    /// revision and edits it carries; `None` if an earlier writer already stored this revision
    /// (it read the snapshot later than it was asked to). A task never stored (version 0, its
    /// creation deferred) is written whatever its revision. (Not part of `persist`'s future:
    /// only the write's box waits in it, not the snapshot it was made from.)
    fn snapshot_write(
        &self,
        live: &LiveTask,
        stored: &Persisted,
    ) -> Option<(StoreWrite<'_>, u64, u64)> {
        let (snapshot, revision, edits) = match stored.version {
            0 => Some(live.current()),
            _ => live.changed_since(stored),
        }?;
        let write = match stored.version {
            0 => self.store.create_owned(snapshot),
            _ => self.store.update_owned(snapshot),
        };
        Some((write, revision, edits))
    }

    /// Writes a task whose skill ended and retires it from the live tasks once it is stored;
    /// until then it stays live (readable, its final state intact) and the write is retried.
    pub(super) async fn settle(self: &Arc<Self>, live: Arc<LiveTask>) {
        if self.persist(&live).await {
            self.live_map().remove(&live.id);
            return;
        }
        let manager = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(PERSIST_BACKGROUND_RETRY).await;
                if manager.persist(&live).await {
                    manager.live_map().remove(&live.id);
                    return;
                }
            }
        });
    }
}
