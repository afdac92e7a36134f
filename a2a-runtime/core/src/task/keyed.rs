//! Requests under idempotency keys (see [`idempotency`](super::idempotency)): a keyed task is
//! created in one store transaction with its key, a repeat finds the task the key names, and a
//! write whose outcome the store did not confirm is settled by claiming the key again before
//! anything is answered.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt as _;

use super::error::TaskError;
use super::handle::{TaskEvents, TaskHandle};
use super::idempotency::{KeyClaim, KeyRecord, KeyedRequest};
use super::live::Subscribed;
use super::manager::TaskManager;
use super::record::StoredTask;
use super::store::StoreError;
use super::subscription::{self, Until};
use crate::dispatch::Call;
use crate::observe::CallOutcome;
use crate::quota::TaskSlot;
use a2a_runtime_types::model::{PushConfig, Task, TaskObserver};

/// How long one attempt at a keyed write may take before its outcome counts as unknown.
const KEYED_WRITE_WAIT: Duration = Duration::from_secs(5);

/// What a keyed request does: its own work, or a repeat of the request the key first named.
#[derive(Debug)]
pub enum Keyed<T> {
    /// The key was fresh: the request did its work.
    New(T),
    /// The key names an earlier request's outcome (this record); nothing was done again.
    Repeat(KeyRecord),
}

impl TaskManager {
    /// The events of task `id` as a repeat of the request that created it sees them: as the
    /// original's stream would have, a snapshot, then events until the task is terminal or
    /// waits on its caller; a task that already settled, or is not running anywhere (left
    /// unfinished by a stopped process), gives its snapshot alone.
    pub async fn follow(self: &Arc<Self>, id: &str, owner: &str) -> Result<TaskEvents, TaskError> {
        let first = match self.resubscribe(id, owner).await {
            Ok(first) => first,
            Err(TaskError::NotRunning(_)) => Subscribed {
                snapshot: self.get(id, owner, None).await?,
                events: None,
            },
            Err(error) => return Err(error),
        };
        Ok(Box::pin(subscription::stream(
            Arc::clone(self),
            id.to_owned(),
            owner.to_owned(),
            first,
            Until::Interrupted,
        )))
    }

    /// Waits until task `id` is terminal or waits on its caller (as a blocking send's answer
    /// does), then returns it with at most `history` messages.
    pub async fn settled(
        self: &Arc<Self>,
        id: &str,
        owner: &str,
        history: Option<usize>,
    ) -> Result<Task, TaskError> {
        let mut events = self.follow(id, owner).await?;
        while events.next().await.is_some() {}
        self.get(id, owner, history).await
    }

    /// The record of `request`'s key on this agent, if the key is held: a repeat of the same
    /// request finds it; another request under the key is [`TaskError::KeyReused`].
    pub async fn find_key(&self, request: &KeyedRequest) -> Result<Option<KeyRecord>, TaskError> {
        let scope = request.scope(&self.agent);
        match self.store.find_key(&scope).await? {
            Some(held) => same_request(held, request).map(Some),
            None => Ok(None),
        }
    }

    /// [`create`](Self::create) under an idempotency key: the task is stored at once, with
    /// the key, in one transaction; a key another request holds (a concurrent repeat won the
    /// race, here or on another replica) creates nothing and names the task it made.
    pub fn create_keyed<'a>(
        &'a self,
        call: &mut Call,
        quota: TaskSlot,
        push_configs: Vec<PushConfig>,
        request: &'a KeyedRequest,
    ) -> impl Future<Output = Result<Keyed<TaskHandle>, TaskError>> + Send + 'a {
        call.idempotency_key = Some(request.key.shared());
        let mut prepared = self.prepare(call, push_configs);
        let record = request.record(
            &self.agent,
            &prepared.task.task.id,
            self.config.idempotency_ttl,
        );
        async move {
            match self.claim_settled(&record, Some(&prepared.task)).await {
                Ok(KeyClaim::Claimed) => {
                    prepared.task.version = 1;
                    Ok(Keyed::New(self.register(prepared, quota)))
                }
                Ok(KeyClaim::Held(held)) => {
                    // Not a call of its own: the request it repeats is the one reported.
                    prepared.turn.discard();
                    Ok(Keyed::Repeat(same_request(held, request)?))
                }
                Err(error) => {
                    prepared
                        .turn
                        .fail(CallOutcome::Failed, 0, error.to_string());
                    Err(error.into())
                }
            }
        }
    }

    /// [`start`](Self::start) under an idempotency key (see [`create_keyed`](Self::create_keyed)):
    /// a repeat starts nothing and names the task the key holds.
    pub async fn start_keyed(
        self: &Arc<Self>,
        mut call: Call,
        observers: Vec<Arc<dyn TaskObserver>>,
        quota: TaskSlot,
        request: &KeyedRequest,
    ) -> Result<Keyed<TaskHandle>, TaskError> {
        let task = match self
            .create_keyed(&mut call, quota, Vec::new(), request)
            .await?
        {
            Keyed::New(task) => task,
            repeat @ Keyed::Repeat(_) => return Ok(repeat),
        };
        for observer in observers {
            task.live.observe(observer);
        }
        self.run(&task, call, Vec::new());
        Ok(Keyed::New(task))
    }

    /// Records `request`'s key for a change it made to task `task_id` (a cancel; a push config
    /// write, whose config is `item`), so a repeat finds the change done. A key already held
    /// (a concurrent repeat) is checked to be the same request.
    pub async fn claim_change(
        &self,
        request: &KeyedRequest,
        task_id: &str,
        item: Option<String>,
    ) -> Result<(), TaskError> {
        let mut record = request.record(&self.agent, task_id, self.config.idempotency_ttl);
        record.item = item;
        match self.claim_settled(&record, None).await? {
            KeyClaim::Claimed => Ok(()),
            KeyClaim::Held(held) => same_request(held, request).map(drop),
        }
    }

    /// Claims `record`'s key (with `task`), settling an outcome the store did not confirm: the
    /// claim is made again, and the unique key decides. If the first attempt landed, the key
    /// is found holding this very record; if it did not, the second makes it. Only when the
    /// second fails too is the write reported failed (and a client's retry, under its key,
    /// is settled the same way).
    async fn claim_settled(
        &self,
        record: &KeyRecord,
        task: Option<&StoredTask>,
    ) -> Result<KeyClaim, StoreError> {
        match self.claim_once(record, task).await {
            Ok(claim) => return Ok(claim),
            // Refusals are certain: nothing was written.
            Err(
                error @ (StoreError::Exists(_)
                | StoreError::Missing(_)
                | StoreError::Full(_)
                | StoreError::Unsupported(_)),
            ) => return Err(error),
            Err(error) => {
                tracing::warn!(%error, key = %record.scope.key,
                    "a keyed write's outcome is unknown; claiming the key again to settle it");
            }
        }
        match self.claim_once(record, task).await? {
            KeyClaim::Held(held) if held.task_id == record.task_id => Ok(KeyClaim::Claimed),
            claim => Ok(claim),
        }
    }

    /// One attempt at a claim, within [`KEYED_WRITE_WAIT`].
    async fn claim_once(
        &self,
        record: &KeyRecord,
        task: Option<&StoredTask>,
    ) -> Result<KeyClaim, StoreError> {
        let mut claim = self.store.claim_key(record, task);
        // A store that answers at once (in memory) is not given a timer to cancel.
        let claimed = match futures::poll!(claim.as_mut()) {
            std::task::Poll::Ready(claimed) => claimed,
            std::task::Poll::Pending => tokio::time::timeout(KEYED_WRITE_WAIT, claim)
                .await
                .unwrap_or_else(|_| {
                    Err(StoreError::backend(format!(
                        "the store did not confirm the write within {KEYED_WRITE_WAIT:?}"
                    )))
                }),
        };
        match &claimed {
            Ok(_) => self.health.wrote(),
            Err(error) => self.health.refused(&error.to_string()),
        }
        claimed
    }
}

/// `held`, if it records the same request as `request`; else the refusal naming the key.
fn same_request(held: KeyRecord, request: &KeyedRequest) -> Result<KeyRecord, TaskError> {
    if held.fingerprint == request.fingerprint {
        return Ok(held);
    }
    Err(TaskError::KeyReused {
        key: request.key.as_str().to_owned(),
    })
}
