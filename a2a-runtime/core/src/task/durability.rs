//! What the store holds of a live task, for the answers that may be given only once the state
//! they report is stored: a blocking send's result, a final state on a stream, a task read
//! while its last write is pending. A write the store refused (after its retries) or did not
//! confirm in time turns into [`NotStored`], which the caller sees as an error, never as a
//! success.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::watched::Watched;

/// The revision of a task the store holds, and the newest write it refused.
#[derive(Debug, Clone, Default)]
pub struct Stored {
    /// The newest revision written.
    pub revision: u64,
    /// The newest write that failed after its retries: the revision it carried and why.
    failed: Option<(u64, Arc<str>)>,
}

/// Why a state could not be reported as stored.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NotStored {
    /// The store refused the write (after the writer's retries).
    #[error("the task store refused the write: {0}")]
    Refused(Arc<str>),
    /// The store did not confirm the write in time; it may still land.
    #[error("the task store did not confirm the write within {} ms", .0.as_millis())]
    TimedOut(Duration),
}

/// The store's progress on one task, watched by those waiting for a revision to be durable.
pub struct Durability(Watched<Stored>);

impl Durability {
    /// A task the store holds up to `revision`.
    pub fn new(revision: u64) -> Self {
        Self(Watched::new(Stored {
            revision,
            failed: None,
        }))
    }

    /// The store now holds `revision`.
    pub fn stored(&self, revision: u64) {
        self.0.modify(|stored| {
            stored.revision = stored.revision.max(revision);
            stored.failed = None;
            true
        });
    }

    /// A write of `revision` failed for good.
    pub fn refused(&self, revision: u64, reason: &str) {
        self.0.modify(|stored| {
            stored.failed = Some((revision, Arc::from(reason)));
            true
        });
    }

    /// The newest revision the store holds.
    pub fn revision(&self) -> u64 {
        self.0.borrow().revision
    }

    /// How many times the store's progress changed so far, for [`changed_since`](Self::changed_since).
    pub fn version(&self) -> u64 {
        self.0.version()
    }

    /// Waits until the store's progress changes after `version`; returns the version then.
    pub async fn changed_since(&self, version: u64) -> u64 {
        self.0.changed_since(version).await
    }

    /// Waits until the store holds `revision` or later.
    pub async fn holds(&self, revision: u64) {
        self.0.wait_for(|s| s.revision >= revision).await;
    }

    /// Waits until the store holds `revision`, at most `limit`. A refused write of that
    /// revision (or a later one) ends the wait at once.
    pub async fn reached(&self, revision: u64, limit: Duration) -> Result<(), NotStored> {
        if self.0.borrow().revision >= revision {
            // Stored already (a quick skill's result, written before its caller asks): no
            // waiter, no timer.
            return Ok(());
        }
        let decided = |s: &Stored| {
            s.revision >= revision || s.failed.as_ref().is_some_and(|(r, _)| *r >= revision)
        };
        match tokio::time::timeout(limit, self.0.wait_for(decided)).await {
            Ok(now) if now.revision >= revision => Ok(()),
            Ok(now) => Err(NotStored::Refused(
                now.failed
                    .as_ref()
                    .map_or_else(|| Arc::from("unknown"), |(_, why)| Arc::clone(why)),
            )),
            Err(_) => Err(NotStored::TimedOut(limit)),
        }
    }
}

/// Whether the task store takes writes: the newest refusal, until a write lands again. Read by
/// `/healthz`, so an operator learns of a full disk before callers' errors pile up.
#[derive(Debug, Default)]
pub struct StoreHealth {
    /// Set while writes fail; the only thing a successful write reads.
    failing: AtomicBool,
    last_refusal: Mutex<Option<String>>,
}

impl StoreHealth {
    /// A write landed.
    pub fn wrote(&self) {
        if self.failing.load(Ordering::Relaxed) {
            self.failing.store(false, Ordering::Relaxed);
            *self.refusal() = None;
        }
    }

    /// A write failed for good, for `reason`.
    pub fn refused(&self, reason: &str) {
        *self.refusal() = Some(reason.to_owned());
        self.failing.store(true, Ordering::Relaxed);
    }

    /// Why the newest write failed, while no write has landed since.
    pub fn failure(&self) -> Option<String> {
        if !self.failing.load(Ordering::Relaxed) {
            return None;
        }
        self.refusal().clone()
    }

    fn refusal(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.last_refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_millis(50);

    #[tokio::test]
    async fn a_stored_revision_is_reached_and_a_refused_one_is_an_error() {
        let durability = Durability::new(0);
        durability.stored(2);
        assert!(durability.reached(2, LIMIT).await.is_ok());
        durability.refused(3, "disk I/O error");
        let refused = durability.reached(3, LIMIT).await.unwrap_err();
        assert!(refused.to_string().contains("disk I/O error"), "{refused}");
        // An older revision is still stored; a later success clears the refusal.
        assert!(durability.reached(2, LIMIT).await.is_ok());
        durability.stored(3);
        assert!(durability.reached(3, LIMIT).await.is_ok());
    }

    #[tokio::test]
    async fn an_unconfirmed_write_times_out() {
        let durability = Durability::new(1);
        let error = durability.reached(2, LIMIT).await.unwrap_err();
        assert!(matches!(error, NotStored::TimedOut(_)), "{error}");
    }
}
