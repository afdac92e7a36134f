//! [`CallBudget`]: how many skill calls each authenticated caller may make in a calendar month
//! (UTC). Counted from the calls' usage records as they end (and, at startup and every few
//! seconds, from the usage store, which replicas share), checked when a call would start: a
//! caller past its budget is refused as busy until the month ends.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Datelike, TimeZone, Utc};

use super::{Busy, BusyKind};
use crate::auth::caller::ANONYMOUS;

/// Skill calls per caller per calendar month.
#[derive(Debug)]
pub struct CallBudget {
    limit: u64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The month counted (its first instant).
    month: Option<DateTime<Utc>>,
    /// Calls so far this month, by caller owner key.
    spent: HashMap<String, u64>,
}

impl CallBudget {
    /// `limit` skill calls per caller per month.
    pub fn new(limit: u64) -> Self {
        Self {
            limit,
            state: Mutex::default(),
        }
    }

    /// The budget.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Whether caller `owner` may start a call now. Anonymous callers have no budget of their
    /// own (their rate is what limits them).
    pub fn admit(&self, owner: &str) -> Result<(), Busy> {
        if owner == ANONYMOUS {
            return Ok(());
        }
        let now = Utc::now();
        let state = self.state_at(now);
        let spent = state.spent.get(owner).copied().unwrap_or(0);
        if spent < self.limit {
            return Ok(());
        }
        let next = next_month(now);
        let wait = (next - now).to_std().unwrap_or(Duration::from_secs(1));
        Err(Busy::new(
            BusyKind::Budget,
            format!(
                "caller {owner} has made {spent} skill calls in {}, its monthly budget of {}; \
                 it renews on {}",
                now.format("%Y-%m"),
                self.limit,
                next.format("%Y-%m-%d"),
            ),
            wait,
        ))
    }

    /// A skill call of `owner` that started at `at` ran: it counts against this month's budget.
    pub fn spend(&self, owner: &str, at: DateTime<Utc>) {
        let mut state = self.state_at(Utc::now());
        if state.month.is_some_and(|month| at >= month) {
            *state.spent.entry(owner.to_owned()).or_default() += 1;
        }
    }

    /// What the usage store says each caller spent since the month of `now` began.
    pub fn reset(&self, now: DateTime<Utc>, spent: HashMap<String, u64>) {
        let mut state = self.lock();
        state.month = Some(month_start(now));
        state.spent = spent;
    }

    /// The state, moved to the month of `now` (a new month starts with nothing spent).
    fn state_at(&self, now: DateTime<Utc>) -> MutexGuard<'_, State> {
        let mut state = self.lock();
        let month = month_start(now);
        if state.month != Some(month) {
            state.month = Some(month);
            state.spent.clear();
        }
        state
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The first instant of the month of `at`.
pub fn month_start(at: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(at.year(), at.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(at)
}

/// The first instant of the month after that of `at`.
fn next_month(at: DateTime<Utc>) -> DateTime<Utc> {
    let (year, month) = match at.month() {
        12 => (at.year() + 1, 1),
        month => (at.year(), month + 1),
    };
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_past_its_budget_is_refused_until_the_month_ends() {
        let budget = CallBudget::new(2);
        let now = Utc::now();
        budget.reset(now, HashMap::from([("key:ann".to_owned(), 1)]));
        assert!(budget.admit("key:ann").is_ok());
        budget.spend("key:ann", now);
        let refused = budget.admit("key:ann").unwrap_err();
        assert_eq!(refused.kind, BusyKind::Budget);
        assert!(
            refused.reason.contains("monthly budget of 2"),
            "{}",
            refused.reason
        );
        assert!(
            budget.admit("key:bob").is_ok(),
            "another caller has a budget of its own"
        );
        assert!(budget.admit(ANONYMOUS).is_ok());
    }

    #[test]
    fn months_start_and_end_in_utc() {
        let at = Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).unwrap();
        assert_eq!(
            month_start(at),
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
        );
        assert_eq!(
            next_month(at),
            Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap()
        );
    }
}
