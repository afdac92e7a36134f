//! A rate per key by the generic cell rate algorithm (GCRA): `rate` cells per period, at most
//! `burst` at once. Each key's whole state is one instant, the theoretical arrival time (TAT)
//! of its next cell: a request of `cost` cells moves it `cost` intervals on, and is refused
//! when that would put it further than `burst` intervals ahead of now. A key whose TAT has
//! passed is indistinguishable from a new one, so it can be forgotten.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroU32;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateRefusal {
    /// Over the rate now; the request would be allowed after this wait.
    Later(Duration),
    /// The request costs more than the burst: it can never be allowed at once.
    Never,
}

/// A GCRA limit per key.
#[derive(Debug)]
pub struct KeyedRate<K> {
    /// The time one cell takes to come back.
    interval: Duration,
    /// How far ahead of now a key's TAT may be: `burst` intervals.
    tolerance: Duration,
    burst: u32,
    keys: Mutex<HashMap<K, Instant>>,
}

impl<K: Hash + Eq + Clone> KeyedRate<K> {
    /// `rate` requests per `period` for each key, `burst` of them at once.
    pub fn new(rate: NonZeroU32, period: Duration, burst: NonZeroU32) -> Self {
        // A rate finer than the clock (over 10^9 a second) is a nanosecond apart: unlimited in
        // practice, and never an interval of zero that would leave no tolerance.
        let interval = (period / rate.get()).max(Duration::from_nanos(1));
        Self {
            interval,
            tolerance: interval.saturating_mul(burst.get()),
            burst: burst.get(),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request of `cost` cells by `key` (0 is always allowed and counts nothing).
    ///
    /// # Errors
    ///
    /// Over the rate ([`RateRefusal::Later`], counting nothing), or `cost` over the burst.
    pub fn check(&self, key: &K, cost: u32) -> Result<(), RateRefusal> {
        if cost == 0 {
            return Ok(());
        }
        if cost > self.burst {
            return Err(RateRefusal::Never);
        }
        // One lookup for a known key (every request after a caller's first). The clock is read
        // under the lock: read before it, a request that waited for the lock could find a TAT
        // set by a later reading and be refused by the difference.
        let mut keys = self.keys();
        let now = Instant::now();
        let limit = now + self.tolerance;
        let after = |tat: Instant| {
            let next = tat.max(now) + self.interval.saturating_mul(cost);
            if next > limit {
                Err(RateRefusal::Later(next - limit))
            } else {
                Ok(next)
            }
        };
        match keys.get_mut(key) {
            Some(stored) => *stored = after(*stored)?,
            None => {
                let next = after(now)?;
                keys.insert(key.clone(), next);
            }
        }
        Ok(())
    }

    /// What one request costs here when `live` replicas share this limit (each admits its share,
    /// so together they admit the rate about once): their number, never past the burst, which
    /// would refuse every request. 1 without sharing.
    pub fn shared_cost(&self, live: Option<&super::LiveReplicas>) -> u32 {
        let Some(live) = live else {
            return 1;
        };
        u32::try_from(live())
            .unwrap_or(u32::MAX)
            .clamp(1, self.burst.max(1))
    }

    /// How many keys are remembered.
    pub fn len(&self) -> usize {
        self.keys().len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the keys whose every cell has come back: they start afresh, as they would.
    pub fn retain_recent(&self) {
        let now = Instant::now();
        self.keys().retain(|_, tat| *tat > now);
    }

    fn keys(&self) -> std::sync::MutexGuard<'_, HashMap<K, Instant>> {
        // Each update is one assignment, so a poisoned map is still consistent.
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(per_second: u32, burst: u32) -> KeyedRate<&'static str> {
        let nonzero = |n| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        KeyedRate::new(nonzero(per_second), Duration::from_secs(1), nonzero(burst))
    }

    #[test]
    fn a_burst_passes_at_once_then_one_interval_is_the_wait() {
        let limit = rate(10, 3);
        for _ in 0..3 {
            assert_eq!(limit.check(&"ann", 1), Ok(()));
        }
        let Err(RateRefusal::Later(wait)) = limit.check(&"ann", 1) else {
            panic!("the fourth request of a burst of three must wait");
        };
        assert!(wait <= Duration::from_millis(100) && wait > Duration::from_millis(90));
        // Another key has a rate of its own.
        assert_eq!(limit.check(&"bob", 3), Ok(()));
    }

    #[test]
    fn a_refused_request_counts_nothing_and_cells_come_back() {
        let limit = rate(1000, 2);
        assert_eq!(limit.check(&"ann", 2), Ok(()));
        assert!(matches!(limit.check(&"ann", 1), Err(RateRefusal::Later(_))));
        std::thread::sleep(Duration::from_millis(3));
        assert_eq!(limit.check(&"ann", 2), Ok(()));
    }

    #[test]
    fn callers_racing_under_a_rate_finer_than_the_clock_are_never_refused() {
        let limit = std::sync::Arc::new(rate(u32::MAX, u32::MAX));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let limit = limit.clone();
                std::thread::spawn(move || (0..20_000).all(|_| limit.check(&"ann", 1).is_ok()))
            })
            .collect();
        for thread in threads {
            assert!(thread.join().unwrap(), "a request was refused");
        }
    }

    #[test]
    fn a_cost_over_the_burst_is_never_allowed_and_zero_is_free() {
        let limit = rate(10, 3);
        assert_eq!(limit.check(&"ann", 4), Err(RateRefusal::Never));
        assert_eq!(limit.check(&"ann", 0), Ok(()));
        assert!(limit.is_empty());
    }

    #[test]
    fn keys_fully_replenished_are_forgotten() {
        let limit = rate(1000, 1);
        assert_eq!(limit.check(&"ann", 1), Ok(()));
        assert_eq!(limit.len(), 1);
        std::thread::sleep(Duration::from_millis(2));
        limit.retain_recent();
        assert!(limit.is_empty());
    }
}
