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
        if let Some(claim) = &query.claim {
            return self.claim_totals(query, claim, since);
        }
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
        sorted(groups, query.limit)
    }

    /// Totals grouped by the value of `claim` in the rows kept (a string as it is, anything
    /// else as its JSON; `""` without it).
    fn claim_totals(&self, query: &UsageQuery, claim: &str, since: i64) -> Vec<UsageTotal> {
        let memory = self.lock();
        let mut groups: HashMap<String, UsageTotal> = HashMap::new();
        let matching = memory.rows.iter().filter(|row| {
            row.at_us >= since
                && row.at_us < query.until_us
                && query.agent.as_ref().is_none_or(|only| *only == row.agent)
                && query.caller.as_ref().is_none_or(|only| *only == row.caller)
        });
        for row in matching {
            let value = row
                .claims
                .as_deref()
                .and_then(|claims| serde_json::from_str::<serde_json::Value>(claims).ok())
                .and_then(|claims| claims.get(claim).cloned());
            let key = match value {
                Some(serde_json::Value::String(text)) => text,
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let group = groups.entry(key.clone()).or_default();
            group.key = key;
            group.add(row);
        }
        sorted(groups, query.limit)
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

/// The busiest `limit` of `groups`, the busiest first (then by key).
fn sorted(groups: HashMap<String, UsageTotal>, limit: usize) -> Vec<UsageTotal> {
    let mut totals: Vec<UsageTotal> = groups.into_values().collect();
    totals.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.key.cmp(&b.key)));
    totals.truncate(limit);
    totals
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(caller: &str, claims: Option<&str>, outcome: &str) -> UsageRow {
        UsageRow {
            at_us: 10,
            agent: "a".into(),
            kind: "skill".into(),
            name: "s".into(),
            protocol: "a2a".into(),
            version: "1.0".into(),
            binding: "jsonrpc".into(),
            caller: caller.into(),
            principal: caller.into(),
            claims: claims.map(str::to_owned),
            task_id: None,
            context_id: None,
            trace_id: None,
            duration_us: 5,
            input_bytes: 1,
            output_bytes: 2,
            outcome: outcome.into(),
            error: None,
        }
    }

    #[test]
    fn rows_group_by_a_kept_claim_and_narrow_to_one_caller() {
        let usage = MemoryUsage::default();
        let rows = [
            row("jwt:ann", Some(r#"{"tenant":"acme"}"#), "completed"),
            row("jwt:ann", Some(r#"{"tenant":"acme"}"#), "forbidden"),
            row("jwt:bob", Some(r#"{"tenant":7}"#), "failed"),
            row("anonymous", None, "completed"),
        ];
        usage.record(&rows, HashMap::new());
        let mut query = UsageQuery {
            since_us: 0,
            until_us: 100,
            by: UsageBy::Caller,
            agent: None,
            caller: None,
            claim: Some("tenant".into()),
            limit: 10,
        };
        let totals = usage.totals(&query, 0);
        let keys: Vec<(&str, i64)> = totals.iter().map(|t| (t.key.as_str(), t.calls)).collect();
        assert_eq!(keys, [("acme", 2), ("", 1), ("7", 1)]);
        assert_eq!((totals[0].ran, totals[0].refused), (1, 1));
        assert_eq!(totals[2].failed, 1);
        query.caller = Some("jwt:bob".into());
        let bobs = usage.totals(&query, 0);
        assert_eq!(bobs.len(), 1);
        assert_eq!(bobs[0].key, "7");
    }
}
