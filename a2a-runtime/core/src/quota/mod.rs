//! Fair sharing: per-caller caps on working tasks, waiting tasks and open streams, and a
//! per-caller rate of new tasks. A caller over a cap gets a retryable [`Busy`] answer; other
//! callers are unaffected. Slots are RAII: dropping one gives its place back.

pub mod budget;
pub mod caller;
mod gcra;

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use budget::CallBudget;
pub use caller::{CallerId, PeerKey, RequestTenant};
pub use gcra::{KeyedRate, RateRefusal};

/// How many callers the rate limiter remembers before it forgets the idle ones.
const RATE_KEYS_BEFORE_CLEANUP: usize = 10_000;

/// A refusal the caller should retry later: over a quota, or the server at capacity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}; retry in {}s", retry_after.as_secs().max(1))]
pub struct Busy {
    /// What is exhausted.
    pub kind: BusyKind,
    /// What is exhausted, for the caller.
    pub reason: String,
    /// When a retry may succeed.
    pub retry_after: Duration,
}

impl Busy {
    pub fn new(kind: BusyKind, reason: impl Into<String>, retry_after: Duration) -> Self {
        Self {
            kind,
            reason: reason.into(),
            retry_after,
        }
    }
}

/// What a [`Busy`] refusal ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BusyKind {
    /// The caller starts tasks faster than its rate.
    Rate,
    /// The caller has as many tasks working as it may.
    Running,
    /// The caller has as many tasks waiting for answers as it may.
    Waiting,
    /// The caller has as many streams open as it may.
    Streams,
    /// The caller spent its call budget for the period.
    Budget,
    /// The task store is full.
    Store,
    /// Something else holds what the request needs (a task another replica is resuming).
    #[default]
    Contended,
}

impl BusyKind {
    /// Every kind, in label order.
    pub const ALL: [Self; 7] = [
        Self::Rate,
        Self::Running,
        Self::Waiting,
        Self::Streams,
        Self::Budget,
        Self::Store,
        Self::Contended,
    ];

    /// The kind as labels name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rate => "rate",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Streams => "streams",
            Self::Budget => "budget",
            Self::Store => "store",
            Self::Contended => "contended",
        }
    }
}

/// The per-caller limits.
#[derive(Debug, Clone, Copy)]
pub struct QuotaLimits {
    pub running: usize,
    pub waiting: usize,
    pub streams: usize,
    pub tasks_per_second: u32,
    pub burst: u32,
}

#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    running: usize,
    waiting: usize,
    streams: usize,
}

impl Usage {
    fn is_idle(self) -> bool {
        self.running == 0 && self.waiting == 0 && self.streams == 0
    }
}

/// Every caller's usage, by the caller's key ([`CallerId::key`]: a slot holds only that).
pub struct Quotas {
    limits: QuotaLimits,
    usage: Mutex<HashMap<Arc<str>, Usage>>,
    rate: KeyedRate<Arc<str>>,
    /// Refusals so far, by [`BusyKind`] (in `BusyKind::ALL` order).
    refused: [AtomicU64; BusyKind::ALL.len()],
    /// Skill calls per caller per month, when budgeted.
    budget: OnceLock<Arc<CallBudget>>,
    /// How many replicas share each caller, when several serve one store.
    replicas: OnceLock<LiveReplicas>,
}

/// How many replicas serve now, this one included: read from a value the replicas' leases keep
/// current, never from the database on a request's path.
pub type LiveReplicas = Arc<dyn Fn() -> usize + Send + Sync>;

impl std::fmt::Debug for Quotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quotas")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Quotas {
    pub fn new(limits: QuotaLimits) -> Arc<Self> {
        let per_second = NonZeroU32::new(limits.tasks_per_second).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(limits.burst).unwrap_or(NonZeroU32::MIN);
        Arc::new(Self {
            limits,
            usage: Mutex::new(HashMap::new()),
            rate: KeyedRate::new(per_second, Duration::from_secs(1), burst),
            refused: Default::default(),
            budget: OnceLock::new(),
            replicas: OnceLock::new(),
        })
    }

    /// Shares each caller's rate of new tasks among the replicas `live` counts (once): behind
    /// a balancer that spreads a caller's requests over N replicas, each admits 1/N of the rate,
    /// so together they admit the rate, not N times it. Approximate by design: a caller whose
    /// requests all reach one replica gets 1/N there, and a change in N takes effect at the
    /// next lease renewal. Exact sharing would cost a database round trip per task.
    pub fn share_among(&self, live: LiveReplicas) {
        let _ = self.replicas.set(live);
    }

    /// What one new task costs of its caller's rate on this replica.
    fn share(&self) -> u32 {
        self.rate.shared_cost(self.replicas.get())
    }

    /// Budgets every caller's skill calls per month from now on (once; later budgets are
    /// ignored).
    pub fn set_budget(&self, budget: Arc<CallBudget>) {
        let _ = self.budget.set(budget);
    }

    /// The callers' monthly call budget, if any.
    pub fn budget(&self) -> Option<&Arc<CallBudget>> {
        self.budget.get()
    }

    /// Counts `busy` among the refusals, and hands it back.
    pub fn refuse(&self, busy: Busy) -> Busy {
        if let Some(index) = BusyKind::ALL.iter().position(|kind| *kind == busy.kind) {
            self.refused[index].fetch_add(1, Ordering::Relaxed);
        }
        busy
    }

    /// Refusals so far, by kind.
    pub fn refusals(&self) -> impl Iterator<Item = (BusyKind, u64)> + '_ {
        BusyKind::ALL
            .into_iter()
            .zip(&self.refused)
            .map(|(kind, count)| (kind, count.load(Ordering::Relaxed)))
    }

    /// Tasks working, tasks waiting for answers and streams open, over every caller.
    pub fn totals(&self) -> (usize, usize, usize) {
        self.usage()
            .values()
            .fold((0, 0, 0), |(running, waiting, streams), usage| {
                (
                    running + usage.running,
                    waiting + usage.waiting,
                    streams + usage.streams,
                )
            })
    }

    fn usage(&self) -> MutexGuard<'_, HashMap<Arc<str>, Usage>> {
        // Every update completes before it could panic, so a poisoned map is consistent.
        self.usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A slot for a new task of `caller`, counted as working: refused over the caller's rate of
    /// new tasks or its cap on working tasks.
    pub fn start_task(self: &Arc<Self>, caller: &CallerId) -> Result<TaskSlot, Busy> {
        let key = caller.key();
        if let Err(refusal) = self.rate.check(key, self.share()) {
            let wait = match refusal {
                RateRefusal::Later(wait) => wait,
                RateRefusal::Never => Duration::from_secs(1),
            };
            return Err(self.refuse(Busy::new(
                BusyKind::Rate,
                format!(
                    "caller {caller} starts tasks faster than {} per second",
                    self.limits.tasks_per_second
                ),
                wait,
            )));
        }
        if self.rate.len() > RATE_KEYS_BEFORE_CLEANUP {
            self.rate.retain_recent();
        }
        if let Some(budget) = self.budget.get() {
            budget
                .admit(caller.caller().owner())
                .map_err(|busy| self.refuse(busy))?;
        }
        let mut usage = self.usage();
        let entry = usage.entry(Arc::clone(key)).or_default();
        if entry.running >= self.limits.running {
            return Err(self.refuse(Busy::new(
                BusyKind::Running,
                format!(
                    "caller {caller} already has {} tasks working, its limit",
                    entry.running
                ),
                Duration::from_secs(1),
            )));
        }
        entry.running += 1;
        Ok(TaskSlot {
            quotas: Arc::clone(self),
            caller: Arc::clone(key),
            waiting: false,
        })
    }

    /// Takes `cost` more from the rate of the caller whose key is `key`, as if it had started
    /// that many more tasks: refused (and counted) when the rate cannot cover it now.
    fn charge(&self, key: &Arc<str>, cost: u32) -> Result<(), Busy> {
        let refused = |retry_after: Duration| {
            self.refuse(Busy::new(
                BusyKind::Rate,
                format!(
                    "caller {key} cannot spend {cost} more of its rate of {} tasks per second \
                     (burst {})",
                    self.limits.tasks_per_second, self.limits.burst
                ),
                retry_after,
            ))
        };
        match self.rate.check(key, cost.saturating_mul(self.share())) {
            Ok(()) => Ok(()),
            Err(RateRefusal::Later(wait)) => Err(refused(wait)),
            // More than the burst: never affordable at once.
            Err(RateRefusal::Never) => Err(refused(Duration::from_secs(1))),
        }
    }

    /// A slot for an open stream of `caller`.
    pub fn open_stream(self: &Arc<Self>, caller: &CallerId) -> Result<StreamSlot, Busy> {
        let mut usage = self.usage();
        let entry = usage.entry(Arc::clone(caller.key())).or_default();
        if entry.streams >= self.limits.streams {
            return Err(self.refuse(Busy::new(
                BusyKind::Streams,
                format!(
                    "caller {caller} already has {} streams open, its limit; close one",
                    entry.streams
                ),
                Duration::from_secs(1),
            )));
        }
        entry.streams += 1;
        Ok(StreamSlot {
            quotas: Arc::clone(self),
            caller: Arc::clone(caller.key()),
        })
    }

    fn release(&self, caller: &Arc<str>, update: impl FnOnce(&mut Usage)) {
        let mut usage = self.usage();
        if let Some(entry) = usage.get_mut(caller) {
            update(entry);
            if entry.is_idle() {
                usage.remove(caller);
            }
        }
    }

    #[cfg(test)]
    fn of(&self, caller: &CallerId) -> (usize, usize, usize) {
        let usage = self.usage().get(caller.key()).copied().unwrap_or_default();
        (usage.running, usage.waiting, usage.streams)
    }
}

/// Charges a call's caller for work it fans out (a message to many recipients, a batch), from
/// the same rate its new tasks come out of. Given to skills as [`TaskContext::spend`].
///
/// [`TaskContext::spend`]: crate::context::TaskContext::spend
#[derive(Clone)]
pub struct Charge {
    quotas: Arc<Quotas>,
    caller: Arc<str>,
}

impl std::fmt::Debug for Charge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Charge")
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl Charge {
    /// Takes `cost` from the caller's rate of new tasks: [`Busy`] (with when to retry) when it
    /// cannot be covered now, or ever (more than the burst).
    pub fn spend(&self, cost: u32) -> Result<(), Busy> {
        self.quotas.charge(&self.caller, cost)
    }
}

/// One task's place in its caller's quota: working, or waiting for an answer.
#[derive(Debug)]
pub struct TaskSlot {
    quotas: Arc<Quotas>,
    /// The caller's key.
    caller: Arc<str>,
    waiting: bool,
}

impl TaskSlot {
    /// A handle that charges more work to this slot's caller ([`Charge::spend`]).
    pub fn charge(&self) -> Charge {
        Charge {
            quotas: Arc::clone(&self.quotas),
            caller: Arc::clone(&self.caller),
        }
    }

    /// The task starts waiting for an answer: it moves from the caller's working tasks to its
    /// waiting ones, refused when the caller has as many waiting as it may.
    pub fn wait(&mut self) -> Result<(), Busy> {
        if self.waiting {
            return Ok(());
        }
        let limit = self.quotas.limits.waiting;
        let mut usage = self.quotas.usage();
        let entry = usage.entry(Arc::clone(&self.caller)).or_default();
        if entry.waiting >= limit {
            return Err(self.quotas.refuse(Busy::new(
                BusyKind::Waiting,
                format!(
                    "caller {} already has {} tasks waiting for answers, its limit",
                    self.caller, entry.waiting
                ),
                Duration::from_secs(1),
            )));
        }
        entry.waiting += 1;
        entry.running = entry.running.saturating_sub(1);
        self.waiting = true;
        Ok(())
    }

    /// The answer arrived: the task works again. Never refused, so an answer is never lost.
    pub fn resume(&mut self) {
        if !self.waiting {
            return;
        }
        let mut usage = self.quotas.usage();
        let entry = usage.entry(Arc::clone(&self.caller)).or_default();
        entry.waiting = entry.waiting.saturating_sub(1);
        entry.running += 1;
        self.waiting = false;
    }
}

impl Drop for TaskSlot {
    fn drop(&mut self) {
        let waiting = self.waiting;
        self.quotas.release(&self.caller, |usage| {
            if waiting {
                usage.waiting = usage.waiting.saturating_sub(1);
            } else {
                usage.running = usage.running.saturating_sub(1);
            }
        });
    }
}

/// One open stream's place in its caller's quota.
#[derive(Debug)]
pub struct StreamSlot {
    quotas: Arc<Quotas>,
    /// The caller's key.
    caller: Arc<str>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.quotas.release(&self.caller, |usage| {
            usage.streams = usage.streams.saturating_sub(1);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quotas(running: usize, waiting: usize) -> Arc<Quotas> {
        Quotas::new(QuotaLimits {
            running,
            waiting,
            streams: 1,
            tasks_per_second: 1_000,
            burst: 1_000,
        })
    }

    fn caller(name: &str) -> CallerId {
        CallerId::named(name)
    }

    #[test]
    fn a_caller_at_its_cap_does_not_stop_another() {
        let quotas = quotas(2, 1);
        let (a, b) = (caller("a"), caller("b"));
        let _one = quotas.start_task(&a).expect("first");
        let _two = quotas.start_task(&a).expect("second");
        assert!(quotas.start_task(&a).is_err());
        assert!(quotas.start_task(&b).is_ok());
    }

    #[test]
    fn waiting_moves_between_counts_and_dropping_frees_the_slot() {
        let quotas = quotas(1, 1);
        let a = caller("a");
        let mut slot = quotas.start_task(&a).expect("first");
        slot.wait().expect("may wait");
        assert_eq!(quotas.of(&a), (0, 1, 0));
        let mut second = quotas.start_task(&a).expect("a working slot is free again");
        assert!(second.wait().is_err(), "one waiting task at most");
        slot.resume();
        assert_eq!(quotas.of(&a), (2, 0, 0));
        drop(slot);
        drop(second);
        assert_eq!(quotas.of(&a), (0, 0, 0));
    }

    #[test]
    fn the_rate_of_new_tasks_is_per_caller() {
        let quotas = Quotas::new(QuotaLimits {
            running: 100,
            waiting: 100,
            streams: 1,
            tasks_per_second: 1,
            burst: 2,
        });
        let (a, b) = (caller("a"), caller("b"));
        let _s1 = quotas.start_task(&a).expect("burst 1");
        let _s2 = quotas.start_task(&a).expect("burst 2");
        let refused = quotas.start_task(&a).expect_err("over the rate");
        assert!(refused.retry_after > Duration::ZERO);
        assert!(quotas.start_task(&b).is_ok());
    }

    #[test]
    fn streams_are_capped_per_caller() {
        let quotas = quotas(1, 1);
        let a = caller("a");
        let stream = quotas.open_stream(&a).expect("one stream");
        assert!(quotas.open_stream(&a).is_err());
        drop(stream);
        assert!(quotas.open_stream(&a).is_ok());
    }
}
