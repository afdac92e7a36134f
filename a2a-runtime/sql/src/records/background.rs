//! What records do on their own: sweep expired records, and read the changes other processes
//! sharing a SQLite file logged. One task per [`Records`](super::Records) and its clones, on
//! whatever runtime made them (a stdio server's as much as an HTTP one's); it ends when the
//! last clone is dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Inner;

/// How often the background task wakes: the latency of another process's change.
const TICK: Duration = Duration::from_millis(100);

/// The background task's settings and its stop signal.
#[derive(Debug)]
pub(crate) struct Background {
    sweep_every_ms: AtomicU64,
    started: OnceLock<()>,
    /// Cancelled when the records are dropped: ends what waits on the database.
    stop: CancellationToken,
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Background {
    pub(crate) fn new(sweep_every: Duration) -> Self {
        let background = Self {
            sweep_every_ms: AtomicU64::new(0),
            started: OnceLock::new(),
            stop: CancellationToken::new(),
        };
        background.set_sweep_every(sweep_every);
        background
    }

    pub(crate) fn set_sweep_every(&self, every: Duration) {
        let ms = u64::try_from(every.as_millis()).unwrap_or(u64::MAX).max(1);
        self.sweep_every_ms.store(ms, Ordering::Relaxed);
    }

    fn sweep_every(&self) -> Duration {
        Duration::from_millis(self.sweep_every_ms.load(Ordering::Relaxed))
    }

    /// A token cancelled when the records are dropped.
    #[cfg(feature = "postgres")]
    pub(crate) fn stopped(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Starts the task, once, if there is a runtime to start it on.
    pub(crate) fn start(&self, inner: &Arc<Inner>) {
        if self.started.get().is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.started.set(()).is_ok() {
            runtime.spawn(run(Arc::downgrade(inner), self.stop.clone()));
        }
    }
}

async fn run(inner: Weak<Inner>, stop: CancellationToken) {
    let mut since_sweep = Duration::MAX;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(TICK) => {}
        }
        let Some(inner) = inner.upgrade() else { return };
        since_sweep = since_sweep.saturating_add(TICK);
        if since_sweep >= inner.background.sweep_every() {
            since_sweep = Duration::ZERO;
            let records = super::Records {
                inner: Arc::clone(&inner),
            };
            if let Err(error) = records.sweep().await {
                tracing::warn!(%error, "expired records were not swept");
            }
        }
        let sweeping = since_sweep.is_zero();
        inner.backend.tick(&inner.feed, sweeping).await;
    }
}
