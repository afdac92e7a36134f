//! Idempotency keys on A2A: the `Idempotency-Key` header of the methods that create or change
//! tasks (`SendMessage`, `SendStreamingMessage`, `CancelTask`, push config writes), on every
//! binding and version alike, since they all reach [`A2aService`](super::A2aService). What a
//! repeat returns is decided in the task manager (`core/src/task/keyed.rs`); here a request is
//! given its key and its fingerprint.

use super::A2aError;
use super::push::PushRegistration;
use super::service::{A2aService, SendRequest, Streamed, holding};
use a2a_runtime_core::dispatch::Call;
use a2a_runtime_core::quota::{CallerId, StreamSlot, TaskSlot};
use a2a_runtime_core::task::{Fingerprint, IdempotencyKey, Keyed, KeyedRequest, TaskHandle};
use a2a_runtime_types::model::{PushConfig, Task};

/// The header, as errors name it.
pub const HEADER: &str = "Idempotency-Key";

/// The keyed request `caller` makes, if its request carries a key (the fingerprint of what it
/// asks is computed only then); a malformed key is invalid params naming the header.
pub fn keyed(
    caller: &CallerId,
    fingerprint: impl FnOnce() -> Fingerprint,
) -> Result<Option<KeyedRequest>, A2aError> {
    if caller.idempotency_keys_repeated() {
        return Err(A2aError::invalid_params(
            HEADER,
            "was sent more than once; send one key per request",
        ));
    }
    let Some(header) = caller.idempotency_header() else {
        return Ok(None);
    };
    let key = IdempotencyKey::from_bytes(header.as_bytes())
        .map_err(|error| A2aError::invalid_params(HEADER, error.to_string()))?;
    Ok(Some(KeyedRequest {
        key,
        caller: std::sync::Arc::clone(caller.key()),
        fingerprint: fingerprint().finish(),
    }))
}

/// What a send asks, whichever method, binding or version carried it: its message and the
/// webhook it registers. A streaming repeat of a blocking send is the same request (how the
/// answer is delivered is not what the request asks), and so is a retry over another binding.
pub fn send_fingerprint(request: &SendRequest) -> Fingerprint {
    let fingerprint = Fingerprint::of("SendMessage").with(&request.message);
    match &request.push_config {
        Some(push) => push_fingerprint(fingerprint, push),
        None => fingerprint,
    }
}

/// `fingerprint` with the config a push registration gives, as the client gave it.
pub fn push_fingerprint(fingerprint: Fingerprint, push: &PushRegistration) -> Fingerprint {
    let input = &push.input;
    fingerprint
        .with(&input.id)
        .with(&input.url)
        .with(&input.token)
        .with(&input.authentication)
}

impl A2aService {
    /// The task an earlier send under `key` made or answered, if this send repeats one that
    /// answers a task (whose answer must not be delivered twice). A send that creates a task
    /// is not looked up first: the claim of its key, written with its task, finds a repeat
    /// (so a fresh key costs no read).
    pub(super) async fn repeats(
        &self,
        key: Option<&KeyedRequest>,
        request: &SendRequest,
    ) -> Result<Option<String>, A2aError> {
        let Some(key) = key.filter(|_| request.message.task_id.is_some()) else {
            return Ok(None);
        };
        Ok(self.manager.find_key(key).await?.map(|held| held.task_id))
    }

    /// A streaming repeat: the task its key names, followed as the original stream would have.
    pub(super) async fn follow(
        &self,
        task_id: String,
        caller: &CallerId,
        slot: StreamSlot,
    ) -> Result<Streamed, A2aError> {
        caller.note(|span| span.task_id = Some(task_id.clone()));
        let events = self.manager.follow(&task_id, caller.owner()).await?;
        Ok(Streamed {
            task_id,
            events: holding(events, slot),
        })
    }

    /// A keyed `CancelTask`: a repeat answers the task as it stands. A cancel under a new key
    /// of a task already canceled is refused as A2A says (the refusal names the state, which is
    /// what a client whose earlier attempt did it needs to know).
    pub(super) async fn cancel_keyed(
        &self,
        id: &str,
        key: &KeyedRequest,
        caller: &CallerId,
    ) -> Result<Task, A2aError> {
        let owner = caller.owner();
        if let Some(held) = self.manager.find_key(key).await? {
            return Ok(self.manager.get(&held.task_id, owner, None).await?);
        }
        let task = self.manager.cancel(id, owner).await?;
        self.manager.claim_change(key, id, None).await?;
        Ok(task)
    }

    /// The task of a send's `call`: created, with the send's key if it has one; `Err` with
    /// the original's task id for a keyed repeat that lost the race to its original.
    pub(super) async fn create(
        &self,
        call: &mut Call,
        slot: TaskSlot,
        store_now: bool,
        push_configs: Vec<PushConfig>,
        key: Option<&KeyedRequest>,
    ) -> Result<Result<TaskHandle, String>, A2aError> {
        let Some(key) = key else {
            let created = self.manager.create(call, slot, store_now, push_configs);
            return Ok(Ok(created.await?));
        };
        // Boxed: the rare branch would make every send's future as large as its own.
        let created = self.manager.create_keyed(call, slot, push_configs, key);
        Ok(match Box::pin(created).await? {
            Keyed::New(task) => Ok(task),
            Keyed::Repeat(held) => Err(held.task_id),
        })
    }
}
