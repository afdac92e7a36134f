//! Records for an observer that runs on a thread of its own: a bounded queue in front of it, so
//! a slow (even blocking) observer costs the calls it watches nothing but the records it misses
//! (counted), and never holds a worker of the runtime serving them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::CallObserver;
use super::record::{CallRecord, OperationRecord, PushDelivery, StoreWrite, TaskChange};

/// A record, as queued (shared by every queued observer).
pub(super) enum Event {
    Call(CallRecord),
    Task(TaskChange<'static>),
    Operation(OperationRecord),
    Store(StoreWrite),
    Push(PushDelivery),
}

impl Event {
    fn deliver(&self, observer: &dyn CallObserver) {
        match self {
            Self::Call(record) => observer.call(record),
            Self::Task(change) => observer.task(change),
            Self::Operation(operation) => observer.operation(operation),
            Self::Store(write) => observer.store_write(write),
            Self::Push(delivery) => observer.push(delivery),
        }
    }
}

/// An observer and the receiving end of its queue, until the task draining it starts.
type Idle = (mpsc::Receiver<Arc<Event>>, Arc<dyn CallObserver>);

/// One observer's queue and the thread that drains it, started on the first record (a server
/// that nobody calls starts none).
pub(super) struct Queue {
    sender: mpsc::Sender<Arc<Event>>,
    idle: Mutex<Option<Idle>>,
    started: AtomicBool,
    dropped: AtomicU64,
}

impl Queue {
    pub(super) fn new(observer: Arc<dyn CallObserver>, capacity: usize) -> Self {
        let (sender, receiver) = mpsc::channel(capacity.max(1));
        Self {
            sender,
            idle: Mutex::new(Some((receiver, observer))),
            started: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
        }
    }

    /// Queues `event`; a full queue drops it and counts the drop.
    pub(super) fn send(&self, event: &Arc<Event>) {
        if !self.started.load(Ordering::Acquire) {
            self.start();
        }
        if self.sender.try_send(Arc::clone(event)).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records dropped so far.
    pub(super) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    fn start(&self) {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((mut receiver, observer)) = idle {
            let drain = move || {
                // Ends once every sender (the hub) is gone and the queue is drained.
                while let Some(event) = receiver.blocking_recv() {
                    // A panicking observer loses that record, not the ones after it.
                    let delivered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        event.deliver(observer.as_ref());
                    }));
                    if delivered.is_err() {
                        tracing::error!("an observer panicked on a record");
                    }
                }
            };
            let spawned = std::thread::Builder::new()
                .name("a2a-observer".into())
                .spawn(drain);
            if let Err(error) = spawned {
                tracing::error!(%error, "could not start an observer's thread; its records are dropped");
            }
        }
        self.started.store(true, Ordering::Release);
    }
}
