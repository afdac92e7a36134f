//! The replicas on one database: each holds a lease it renews (database time, so replicas'
//! clocks need not agree), and each has a mailbox, rows of `a2a_messages` read in id order,
//! rung by a `NOTIFY` on its own channel (`LISTEN`); a poll every second covers notifications
//! lost while the listening connection reconnects.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::task::cluster::Coordinator;
use a2a_runtime_core::task::store::StoreError;
use a2a_runtime_types::util::BoxFuture;

/// How often the mailbox is read even without a notification.
const POLL: Duration = Duration::from_secs(1);
/// The most messages read at once.
const BATCH: i64 = 256;

/// This process as a replica on the database.
#[derive(Debug, Clone)]
pub(crate) struct Replicas {
    id: Arc<str>,
    pool: PgPool,
    /// One connection of its own, for the lease alone: a renewal never waits behind the
    /// requests holding the store's pool. (Under load, a renewal queued for a pooled
    /// connection past the lease let a replica starting meanwhile take over tasks this one was
    /// still running.)
    lease_pool: PgPool,
    lease: Duration,
    /// The replicas holding a lease (this one among them), as of the last renewal.
    live: Arc<AtomicUsize>,
}

impl Replicas {
    /// Registers a new replica with a fresh lease.
    pub(crate) async fn join(pool: PgPool, lease: Duration) -> Result<Self, StoreError> {
        let lease_pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .connect_lazy_with((*pool.connect_options()).clone());
        let replicas = Self {
            id: Arc::from(uuid::Uuid::new_v4().simple().to_string()),
            pool,
            lease_pool,
            lease: lease.max(Duration::from_millis(300)),
            live: Arc::new(AtomicUsize::new(1)),
        };
        replicas.renew().await?;
        Ok(replicas)
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The channel a replica's mailbox is rung on.
    fn channel(replica: &str) -> String {
        format!("a2a_{replica}")
    }

    /// Renews the lease, and counts the replicas alive (the others as of their last renewal;
    /// this one, whose row the count cannot see yet, by itself).
    async fn renew(&self) -> Result<(), StoreError> {
        let others: i64 = sqlx::query_scalar(
            "WITH renewed AS (
                 INSERT INTO a2a_replicas (id, lease_until) VALUES ($1, now() + $2)
                 ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until)
             SELECT count(*) FROM a2a_replicas WHERE lease_until > now() AND id <> $1",
        )
        .bind(&*self.id)
        .bind(self.lease)
        .fetch_one(&self.lease_pool)
        .await
        .map_err(StoreError::backend)?;
        let live = usize::try_from(others).unwrap_or(0).saturating_add(1);
        self.live.store(live, Ordering::Relaxed);
        Ok(())
    }

    /// Forgets replicas whose lease ran out long ago, and their undelivered messages.
    async fn forget_departed(&self) -> Result<(), StoreError> {
        sqlx::query(
            "WITH gone AS (DELETE FROM a2a_replicas WHERE lease_until < now() - interval '1 hour'
                           RETURNING id)
             DELETE FROM a2a_messages WHERE replica IN (SELECT id FROM gone)",
        )
        .execute(&self.pool)
        .await
        .map_err(StoreError::backend)?;
        Ok(())
    }

    /// Gives up the lease: survivors take over this replica's tasks at once.
    async fn leave(&self) {
        let left = sqlx::query(
            "WITH me AS (DELETE FROM a2a_replicas WHERE id = $1)
             DELETE FROM a2a_messages WHERE replica = $1",
        )
        .bind(&*self.id)
        .execute(&self.pool)
        .await;
        if let Err(error) = left {
            tracing::warn!(%error, "could not give up this replica's lease; it runs out by itself");
        }
    }

    /// The messages waiting in this replica's mailbox, oldest first, taken out of it.
    async fn take_messages(&self) -> Result<Vec<String>, StoreError> {
        let mut rows: Vec<(i64, String)> = sqlx::query_as(
            "DELETE FROM a2a_messages WHERE id IN (
                 SELECT id FROM a2a_messages WHERE replica = $1 ORDER BY id LIMIT $2
                 FOR UPDATE SKIP LOCKED)
             RETURNING id, body",
        )
        .bind(&*self.id)
        .bind(BATCH)
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::backend)?;
        rows.sort_unstable_by_key(|(id, _)| *id);
        Ok(rows.into_iter().map(|(_, body)| body).collect())
    }

    /// Renews the lease every third of it until `stop`.
    async fn keep_lease(self, stop: CancellationToken) {
        let mut ticks = tokio::time::interval(self.lease / 3);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut renewals = 0_u64;
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                () = stop.cancelled() => return,
            }
            if let Err(error) = self.renew().await {
                tracing::warn!(%error, "renewing this replica's lease failed; retrying");
            }
            renewals += 1;
            if renewals.is_multiple_of(100)
                && let Err(error) = self.forget_departed().await
            {
                tracing::debug!(%error, "forgetting departed replicas failed");
            }
        }
    }

    /// Hands this replica's messages to `inbox`, in order, until `stop`.
    async fn deliver(self, inbox: mpsc::UnboundedSender<String>, stop: CancellationToken) {
        let mut listener = match PgListener::connect_with(&self.pool).await {
            Ok(mut listener) => match listener.listen(&Self::channel(&self.id)).await {
                Ok(()) => Some(listener),
                Err(error) => {
                    tracing::warn!(%error, "LISTEN failed; reading messages every second");
                    None
                }
            },
            Err(error) => {
                tracing::warn!(%error, "no listening connection; reading messages every second");
                None
            }
        };
        loop {
            loop {
                match self.take_messages().await {
                    Ok(messages) => {
                        let full = messages.len() as i64 >= BATCH;
                        for message in messages {
                            if inbox.send(message).is_err() {
                                return;
                            }
                        }
                        if !full {
                            break;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "reading this replica's messages failed");
                        break;
                    }
                }
            }
            let rung = async {
                match listener.as_mut() {
                    // An error means the connection dropped; it reconnects on the next call.
                    Some(listener) => drop(listener.try_recv().await),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = rung => {}
                () = tokio::time::sleep(POLL) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}

impl Coordinator for Replicas {
    fn replica(&self) -> &str {
        &self.id
    }

    fn lease(&self) -> Duration {
        self.lease
    }

    fn live_replicas(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    fn runner<'a>(&'a self, task: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            sqlx::query_scalar(
                "SELECT t.runner FROM a2a_tasks t JOIN a2a_replicas r ON r.id = t.runner
                 WHERE t.id = $1 AND t.finished_us IS NULL AND t.runner <> $2
                   AND r.lease_until > now()",
            )
            .bind(task)
            .bind(&*self.id)
            .fetch_optional(&self.pool)
            .await
            .map_err(StoreError::backend)
        })
    }

    fn send<'a>(&'a self, to: &'a str, message: String) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            sqlx::query(
                "WITH sent AS (INSERT INTO a2a_messages (replica, body) VALUES ($1, $2))
                 SELECT pg_notify($3, '')",
            )
            .bind(to)
            .bind(message)
            .bind(Self::channel(to))
            .execute(&self.pool)
            .await
            .map_err(StoreError::backend)?;
            Ok(())
        })
    }

    fn run(
        &self,
        inbox: mpsc::UnboundedSender<String>,
        stop: CancellationToken,
    ) -> BoxFuture<'static, ()> {
        let (lease, mail) = (self.clone(), self.clone());
        Box::pin(async move {
            let leased = tokio::spawn(lease.keep_lease(stop.clone()));
            mail.clone().deliver(inbox, stop).await;
            let _ = leased.await;
            mail.leave().await;
        })
    }
}
