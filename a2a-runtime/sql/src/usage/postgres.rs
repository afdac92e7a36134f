//! Usage in a Postgres database, shared by the replicas that use it.

use std::collections::HashMap;

use sqlx::Row as _;
use sqlx::postgres::PgPool;

use super::{RollupKey, UsageError, UsageQuery, UsageRow, UsageTotal, backend};

/// The usage tables of one database.
#[derive(Debug)]
pub(super) struct PgUsage {
    pool: PgPool,
}

const SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS a2a_usage_calls (
        id BIGSERIAL PRIMARY KEY,
        at_us BIGINT NOT NULL,
        agent TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        protocol TEXT NOT NULL,
        version TEXT NOT NULL,
        binding TEXT NOT NULL,
        caller TEXT NOT NULL,
        principal TEXT NOT NULL,
        claims TEXT,
        task_id TEXT,
        context_id TEXT,
        trace_id TEXT,
        duration_us BIGINT NOT NULL,
        input_bytes BIGINT NOT NULL,
        output_bytes BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        error TEXT
    )",
    "CREATE INDEX IF NOT EXISTS a2a_usage_calls_at ON a2a_usage_calls (at_us)",
    "CREATE TABLE IF NOT EXISTS a2a_usage_hourly (
        hour_us BIGINT NOT NULL,
        agent TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        caller TEXT NOT NULL,
        calls BIGINT NOT NULL,
        ran BIGINT NOT NULL,
        failed BIGINT NOT NULL,
        refused BIGINT NOT NULL,
        duration_us BIGINT NOT NULL,
        input_bytes BIGINT NOT NULL,
        output_bytes BIGINT NOT NULL,
        PRIMARY KEY (hour_us, agent, kind, name, caller)
    )",
];

impl PgUsage {
    /// Usage in the database `pool` connects to, through that pool.
    pub(super) async fn on(pool: PgPool) -> Result<Self, UsageError> {
        for statement in SCHEMA {
            // Replicas starting together may race to create a table; the loser's error is
            // harmless once it exists, so the statement runs again.
            if sqlx::query(statement).execute(&pool).await.is_err() {
                sqlx::query(statement)
                    .execute(&pool)
                    .await
                    .map_err(backend)?;
            }
        }
        Ok(Self { pool })
    }

    pub(super) async fn record(
        &self,
        rows: &[UsageRow],
        sums: &HashMap<RollupKey, UsageTotal>,
    ) -> Result<(), UsageError> {
        let mut tx = self.pool.begin().await.map_err(backend)?;
        // One statement for the batch: a row's cost is its values, not a round trip.
        let mut insert = sqlx::QueryBuilder::<sqlx::Postgres>::new(
            "INSERT INTO a2a_usage_calls (at_us, agent, kind, name, protocol, version, binding, caller, \
             principal, claims, task_id, context_id, trace_id, duration_us, input_bytes, \
             output_bytes, outcome, error) ",
        );
        insert.push_values(rows, |mut values, row| {
            values
                .push_bind(row.at_us)
                .push_bind(&row.agent)
                .push_bind(&row.kind)
                .push_bind(&row.name)
                .push_bind(&row.protocol)
                .push_bind(&row.version)
                .push_bind(&row.binding)
                .push_bind(&row.caller)
                .push_bind(&row.principal)
                .push_bind(&row.claims)
                .push_bind(&row.task_id)
                .push_bind(&row.context_id)
                .push_bind(&row.trace_id)
                .push_bind(row.duration_us)
                .push_bind(row.input_bytes)
                .push_bind(row.output_bytes)
                .push_bind(&row.outcome)
                .push_bind(&row.error);
        });
        insert.build().execute(&mut *tx).await.map_err(backend)?;
        for ((hour, agent, kind, name, caller), sum) in sums {
            sqlx::query(
                "INSERT INTO a2a_usage_hourly AS h (hour_us, agent, kind, name, caller, calls, ran,
                 failed, refused, duration_us, input_bytes, output_bytes)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                 ON CONFLICT (hour_us, agent, kind, name, caller) DO UPDATE SET
                 calls = h.calls + excluded.calls, ran = h.ran + excluded.ran,
                 failed = h.failed + excluded.failed, refused = h.refused + excluded.refused,
                 duration_us = h.duration_us + excluded.duration_us,
                 input_bytes = h.input_bytes + excluded.input_bytes,
                 output_bytes = h.output_bytes + excluded.output_bytes",
            )
            .bind(hour)
            .bind(agent)
            .bind(kind)
            .bind(name)
            .bind(caller)
            .bind(sum.calls)
            .bind(sum.ran)
            .bind(sum.failed)
            .bind(sum.refused)
            .bind(sum.duration_us)
            .bind(sum.input_bytes)
            .bind(sum.output_bytes)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        }
        tx.commit().await.map_err(backend)
    }

    pub(super) async fn totals(
        &self,
        query: &UsageQuery,
        since: i64,
    ) -> Result<Vec<UsageTotal>, UsageError> {
        if let Some(claim) = &query.claim {
            return self.claim_totals(query, claim, since).await;
        }
        // The grouping column is one of three names this module chooses, never a caller's text.
        let column = query.by.column();
        let sql = format!(
            "SELECT {column} AS key, SUM(calls)::BIGINT, SUM(ran)::BIGINT, SUM(failed)::BIGINT,
             SUM(refused)::BIGINT, SUM(duration_us)::BIGINT, SUM(input_bytes)::BIGINT,
             SUM(output_bytes)::BIGINT
             FROM a2a_usage_hourly
             WHERE hour_us >= $1 AND hour_us < $2 AND ($3::TEXT IS NULL OR agent = $3)
             AND ($5::TEXT IS NULL OR caller = $5)
             GROUP BY {column} ORDER BY SUM(calls) DESC, key LIMIT $4"
        );
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(since)
            .bind(query.until_us)
            .bind(&query.agent)
            .bind(limit)
            .bind(&query.caller)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter().map(total).collect()
    }

    /// Totals grouped by the value of `claim` in the rows (a string as it is, anything else
    /// as its JSON).
    async fn claim_totals(
        &self,
        query: &UsageQuery,
        claim: &str,
        since: i64,
    ) -> Result<Vec<UsageTotal>, UsageError> {
        let sql = format!(
            "SELECT COALESCE(claims::JSONB ->> $1, '') AS key, {}
             FROM a2a_usage_calls
             WHERE at_us >= $2 AND at_us < $3 AND ($4::TEXT IS NULL OR agent = $4)
             AND ($5::TEXT IS NULL OR caller = $5)
             GROUP BY key ORDER BY COUNT(*) DESC, key LIMIT $6",
            super::row_sums("::BIGINT")
        );
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(claim)
            .bind(since)
            .bind(query.until_us)
            .bind(&query.agent)
            .bind(&query.caller)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter().map(total).collect()
    }

    pub(super) async fn skill_calls_since(
        &self,
        since_us: i64,
    ) -> Result<HashMap<String, u64>, UsageError> {
        let rows = sqlx::query(
            "SELECT caller, SUM(ran)::BIGINT FROM a2a_usage_hourly
             WHERE hour_us >= $1 AND kind = 'skill' GROUP BY caller",
        )
        .bind(since_us)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        rows.iter()
            .map(|row| {
                let caller: String = row.try_get(0).map_err(backend)?;
                let ran: i64 = row.try_get(1).map_err(backend)?;
                Ok((caller, u64::try_from(ran).unwrap_or(0)))
            })
            .collect()
    }

    pub(super) async fn sweep(
        &self,
        rows_before: i64,
        rollups_before: i64,
    ) -> Result<u64, UsageError> {
        let swept = sqlx::query("DELETE FROM a2a_usage_calls WHERE at_us < $1")
            .bind(rows_before)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        sqlx::query("DELETE FROM a2a_usage_hourly WHERE hour_us < $1")
            .bind(rollups_before)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(swept.rows_affected())
    }
}

/// A row of a totals query.
fn total(row: &sqlx::postgres::PgRow) -> Result<UsageTotal, UsageError> {
    let sum = |index: usize| row.try_get::<i64, _>(index).map_err(backend);
    Ok(UsageTotal {
        key: row.try_get(0).map_err(backend)?,
        calls: sum(1)?,
        ran: sum(2)?,
        failed: sum(3)?,
        refused: sum(4)?,
        duration_us: sum(5)?,
        input_bytes: sum(6)?,
        output_bytes: sum(7)?,
    })
}

sql_usage_backend!(PgUsage);
