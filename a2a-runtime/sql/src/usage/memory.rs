//! Usage kept in memory: the last [`MEMORY_ROWS`] rows and every rollup, lost when the process
//! ends.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use a2a_runtime_types::util::BoxFuture;

use super::{RollupKey, UsageBackend, UsageBy, UsageError, UsageQuery, UsageRow, UsageTotal};

/// The most rows kept; rollups are kept whole.
const MEMORY_ROWS: usize = 100_000;

#[derive(Debug, Default)]
pub(super) struct MemoryUsage(Mutex<Memory>);

#[derive(Debug, Default)]
struct Memory {
    rows: std::collections::VecDeque<UsageRow>,
    rollups: HashMap<RollupKey, UsageTotal>,
}

impl MemoryUsage {
    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, rows: &[UsageRow], sums: HashMap<RollupKey, UsageTotal>) {
        let mut memory = self.lock();
        memory.rows.extend(rows.iter().cloned());
        let excess = memory.rows.len().saturating_sub(MEMORY_ROWS);
        memory.rows.drain(..excess);
        for (key, sum) in sums {
            memory.rollups.entry(key).or_default().merge(&sum);
        }
    }

    fn totals(&self, query: &UsageQuery, since: i64) -> Vec<UsageTotal> {
        let memory = self.lock();
        let mut groups: HashMap<String, UsageTotal> = HashMap::new();
        let matching = memory
            .rollups
            .iter()
            .filter(|((hour, agent, _, _, caller), _)| {
                *hour >= since
                    && *hour < query.until_us
                    && query.agent.as_ref().is_none_or(|only| only == agent)
                    && query.caller.as_ref().is_none_or(|only| only == caller)
            });
        for ((_, agent, _, name, caller), sum) in matching {
            let key = match query.by {
                UsageBy::Caller => caller,
                UsageBy::Skill => name,
                UsageBy::Agent => agent,
            };
            let group = groups.entry(key.clone()).or_default();
            group.key.clone_from(key);
            group.merge(sum);
        }
        let mut totals: Vec<UsageTotal> = groups.into_values().collect();
        totals.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.key.cmp(&b.key)));
        totals.truncate(query.limit);
        totals
    }

    fn skill_calls_since(&self, since_us: i64) -> HashMap<String, u64> {
        let memory = self.lock();
        let mut counts: HashMap<String, u64> = HashMap::new();
        for ((hour, _, kind, _, caller), sum) in &memory.rollups {
            if *hour >= since_us && kind == "skill" {
                *counts.entry(caller.clone()).or_default() += u64::try_from(sum.ran).unwrap_or(0);
            }
        }
        counts
    }

    fn sweep(&self, rows_before_us: i64, rollups_before_us: i64) -> u64 {
        let mut memory = self.lock();
        let before = memory.rows.len();
        memory.rows.retain(|row| row.at_us >= rows_before_us);
        memory
            .rollups
            .retain(|(hour, ..), _| *hour >= rollups_before_us);
        (before - memory.rows.len()) as u64
    }
}

impl UsageBackend for MemoryUsage {
    fn record<'a>(
        &'a self,
        rows: &'a [UsageRow],
        sums: HashMap<RollupKey, UsageTotal>,
    ) -> BoxFuture<'a, Result<(), UsageError>> {
        Self::record(self, rows, sums);
        Box::pin(async { Ok(()) })
    }

    fn totals<'a>(
        &'a self,
        query: &'a UsageQuery,
        since: i64,
    ) -> BoxFuture<'a, Result<Vec<UsageTotal>, UsageError>> {
        let totals = Self::totals(self, query, since);
        Box::pin(async move { Ok(totals) })
    }

    fn skill_calls_since(
        &self,
        since_us: i64,
    ) -> BoxFuture<'_, Result<HashMap<String, u64>, UsageError>> {
        let counts = Self::skill_calls_since(self, since_us);
        Box::pin(async move { Ok(counts) })
    }

    fn sweep(
        &self,
        rows_before_us: i64,
        rollups_before_us: i64,
    ) -> BoxFuture<'_, Result<u64, UsageError>> {
        let swept = Self::sweep(self, rows_before_us, rollups_before_us);
        Box::pin(async move { Ok(swept) })
    }
}
