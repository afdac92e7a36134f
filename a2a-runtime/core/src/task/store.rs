//! The storage interface for tasks.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};

use super::coordination::Coordination;
use super::idempotency::{KeyClaim, KeyRecord, KeyScope};
use super::outbox::Outbox;
use super::record::StoredTask;
pub use super::store_error::StoreError;
use a2a_runtime_types::model::{Task, TaskState};
use a2a_runtime_types::util::BoxFuture;

/// Filters and paging for [`TaskStore::list`].
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only tasks of this owner (see [`StoredTask::owner`]); `None` lists every
    /// owner's (for administration; the A2A and MCP front-ends always set it).
    pub owner: Option<String>,
    /// Only tasks of this agent (see [`StoredTask::agent`]); `None` lists every agent's. The
    /// front-ends always set it (to the empty key on a server of one agent).
    pub agent: Option<String>,
    /// Only tasks of this context.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status changed after this instant.
    pub status_after: Option<DateTime<Utc>>,
    /// Page size, 1 to 100.
    pub page_size: usize,
    /// Continue after the page that returned this token.
    pub page_token: Option<String>,
    /// Return at most this many of each task's most recent messages (`None`: all).
    pub history_length: Option<usize>,
    /// Return tasks without their artifacts.
    pub without_artifacts: bool,
    /// Stop a page before its tasks (as returned) exceed this many bytes, estimated; a page
    /// always holds at least one task. `next_page_token` continues after the last one.
    pub max_bytes: Option<usize>,
}

/// One page of tasks, newest status first.
#[derive(Debug, Clone)]
pub struct TaskPage {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Token for the next page; `None` on the last page.
    pub next_page_token: Option<String>,
    /// How many tasks match the filters in all.
    pub total_size: usize,
}

/// Where tasks are kept: the contract every backend honours (the conformance suite in
/// `tests/stores.rs` checks it for each one).
///
/// - Writes are conditional: a task is created at version 1 and every update names the version
///   it replaces (the [`StoredTask::version`] it was read at); a stale one is refused with
///   [`StoreError::Conflict`] and changes nothing, so no update is silently lost, even with
///   several writers (replicas) on one store.
/// - A store keeps the whole [`StoredTask`] (its [`to_json`](StoredTask::to_json) form is one
///   way), each task's [`owner`](StoredTask::owner) and [`agent`](StoredTask::agent); lists
///   filter by both.
/// - Reads may bound the history they return (`history_length`), so a store can avoid
///   loading a long conversation to answer `GetTask` with `historyLength`.
/// - [`unfinished`](Self::unfinished) lists the tasks not yet in a terminal state, which the
///   server settles at startup (a restart interrupted them).
/// - Finished tasks may be forgotten after a [`retention`](Self::retention), by
///   [`sweep`](Self::sweep), which the server calls periodically.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task at version 1 (its `version` is 0: it replaces none); an id already
    /// stored is [`StoreError::Exists`].
    fn create<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Replaces the stored task `task.task.id` if its stored version is `task.version`, making
    /// it `task.version + 1`; another version is [`StoreError::Conflict`], an unknown id
    /// [`StoreError::Missing`].
    fn update<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>>;
    /// [`create`](Self::create) of a record the caller is done with. A store that keeps the
    /// records it is given (the memory store) takes this one without a copy; the default
    /// writes it as `create` does.
    fn create_owned(&self, task: StoredTask) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move { self.create(&task).await })
    }
    /// [`update`](Self::update) of a record the caller is done with (see
    /// [`create_owned`](Self::create_owned)).
    fn update_owned(&self, task: StoredTask) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move { self.update(&task).await })
    }
    /// The task `id` with at most its `history_length` most recent messages (`None`: all).
    fn get<'a>(
        &'a self,
        id: &'a str,
        history_length: Option<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>>;
    /// Tasks matching `query`, sorted by status timestamp, newest first, trimmed as `query`
    /// asks (history length, artifacts) and within its byte bound.
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<TaskPage, StoreError>>;
    /// Deletes task `id`; whether it was stored.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Every task not in a terminal state, for the server to settle when it starts.
    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<StoredTask>, StoreError>>;
    /// Forgets finished tasks past the store's retention; how many. Called periodically.
    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(std::future::ready(Ok(0)))
    }
    /// How long a finished task stays readable, if the store forgets tasks (reported to MCP
    /// clients as a task's `ttlMs`). `None`: kept until deleted.
    fn retention(&self) -> Option<std::time::Duration> {
        None
    }
    /// Claims `key` for the request it records: if no unexpired record holds its scope, stores
    /// `key` and, in the same transaction, creates `task` (as [`create`](Self::create) does:
    /// an id already stored fails the whole claim); otherwise writes nothing and returns the
    /// record that holds it. A record past its `expires_at` is replaced. The default refuses:
    /// a store must keep keys to serve keyed requests.
    fn claim_key<'a>(
        &'a self,
        key: &'a KeyRecord,
        task: Option<&'a StoredTask>,
    ) -> BoxFuture<'a, Result<KeyClaim, StoreError>> {
        let _ = (key, task);
        Box::pin(std::future::ready(Err(StoreError::Unsupported(
            "idempotency keys",
        ))))
    }
    /// The unexpired record of the key `scope` names, if one is held.
    fn find_key<'a>(
        &'a self,
        scope: &'a KeyScope,
    ) -> BoxFuture<'a, Result<Option<KeyRecord>, StoreError>> {
        let _ = scope;
        Box::pin(std::future::ready(Err(StoreError::Unsupported(
            "idempotency keys",
        ))))
    }
    /// For a store several replicas share: how they coordinate (who runs which task, and how
    /// one reaches another). `None` (the default): the store belongs to one process.
    fn coordination(&self) -> Option<Coordination> {
        None
    }
    /// For a durable store: where pending push deliveries are kept, so a restart delivers
    /// them. `None` (the default): they are kept in memory only.
    fn outbox(&self) -> Option<Outbox> {
        None
    }
}

/// The page token continuing after the task with status time `key` (µs) and `id`.
pub fn encode_page_token(key: i64, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{key}:{id}"))
}

/// The status time and id a page token continues after.
pub fn decode_page_token(token: &str) -> Result<(i64, String), StoreError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| StoreError::InvalidPageToken)?;
    let text = String::from_utf8(bytes).map_err(|_| StoreError::InvalidPageToken)?;
    let (key, id) = text.split_once(':').ok_or(StoreError::InvalidPageToken)?;
    Ok((
        key.parse().map_err(|_| StoreError::InvalidPageToken)?,
        id.to_owned(),
    ))
}
