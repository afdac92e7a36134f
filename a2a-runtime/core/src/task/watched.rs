//! A value of a live task that changes (its state, its answer's shape, the revision the store
//! holds) and can be waited on. tokio's `watch` allocates a channel per value and wakes its
//! eight `Notify` on every send and when the sender drops, waiters or not; a task has three
//! such values, most never waited on, so they live in the task itself and a change with
//! nobody waiting costs a lock and a check.

use std::ops::Deref;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// A value, its version (one more for each change), and its waiters.
#[derive(Debug)]
pub struct Watched<T> {
    current: Mutex<Versioned<T>>,
    changed: Notify,
}

#[derive(Debug)]
struct Versioned<T> {
    value: T,
    version: u64,
}

/// The value as it is now; changes wait until this is dropped, so keep it briefly.
pub struct Ref<'a, T>(MutexGuard<'a, Versioned<T>>);

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T> Watched<T> {
    /// Starts at `value`, version 0.
    pub fn new(value: T) -> Self {
        Self {
            current: Mutex::new(Versioned { value, version: 0 }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Versioned<T>> {
        // Every change completes before it could panic, so a poisoned value is consistent.
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value now.
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref(self.lock())
    }

    /// How many changes were made so far.
    pub fn version(&self) -> u64 {
        self.lock().version
    }

    /// Changes the value with `modify`, which says whether it changed it; waiters learn of a
    /// change. Returns what `modify` returned.
    pub fn modify(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        let mut current = self.lock();
        let changed = modify(&mut current.value);
        if changed {
            current.version += 1;
            drop(current);
            self.changed.notify_waiters();
        }
        changed
    }

    /// Sets the value (a change even if equal), returning the one it replaces.
    pub fn replace(&self, value: T) -> T {
        let mut current = self.lock();
        let old = std::mem::replace(&mut current.value, value);
        current.version += 1;
        drop(current);
        self.changed.notify_waiters();
        old
    }

    /// Waits until `ready` holds for the value, and returns the value then (at once if it
    /// holds now).
    pub async fn wait_for(&self, mut ready: impl FnMut(&T) -> bool) -> T
    where
        T: Clone,
    {
        loop {
            // Registered before the check, so a change between the check and the wait is not
            // missed.
            let mut notified = std::pin::pin!(self.changed.notified());
            notified.as_mut().enable();
            {
                let current = self.lock();
                if ready(&current.value) {
                    return current.value.clone();
                }
            }
            notified.await;
        }
    }

    /// Waits until the value changes after version `seen`, and returns the version then (at
    /// once if it already has).
    pub async fn changed_since(&self, seen: u64) -> u64 {
        loop {
            let mut notified = std::pin::pin!(self.changed.notified());
            notified.as_mut().enable();
            let version = self.version();
            if version != seen {
                return version;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_waiter_sees_a_change_made_after_it_checked() {
        let value = Arc::new(Watched::new(0_u32));
        let waiter = tokio::spawn({
            let value = Arc::clone(&value);
            async move { value.wait_for(|v| *v >= 2).await }
        });
        tokio::task::yield_now().await;
        value.replace(1);
        value.modify(|v| {
            *v = 2;
            true
        });
        let seen = tokio::time::timeout(Duration::from_secs(5), waiter).await;
        assert_eq!(seen.expect("the waiter was woken").expect("no panic"), 2);
    }

    #[tokio::test]
    async fn an_unchanged_modify_is_no_change() {
        let value = Watched::new(5_u32);
        assert!(!value.modify(|_| false));
        assert_eq!(value.version(), 0);
        assert_eq!(value.replace(6), 5);
        assert_eq!(value.version(), 1);
        assert_eq!(value.changed_since(0).await, 1);
        let pending = tokio::time::timeout(Duration::from_millis(20), value.changed_since(1));
        assert!(pending.await.is_err(), "no change after version 1");
    }
}
