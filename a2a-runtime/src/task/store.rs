//! The storage interface for tasks.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};

use super::cluster::Coordination;
use super::outbox::Outbox;
use super::record::StoredTask;
use a2a_runtime_types::model::{ByteSize, Task, TaskState};
use a2a_runtime_types::util::BoxFuture;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store holds its maximum number of tasks and none can be evicted.
    #[error("the task store is full ({0} tasks held, none finished); retry later")]
    Full(usize),
    /// A page token this store did not issue.
    #[error("pageToken is not a token this server issued")]
    InvalidPageToken,
    /// A conditional write found another version than the writer read: someone else wrote the
    /// task in between, and nothing was written.
    #[error("task `{id}` changed meanwhile (version {actual}, the write expected {expected})")]
    Conflict {
        /// The task.
        id: String,
        /// The version the writer read.
        expected: u64,
        /// The version stored.
        actual: u64,
    },
    /// `create` of an id already stored.
    #[error("task `{0}` already exists")]
    Exists(String),
    /// `update` of an id not stored (deleted or expired meanwhile).
    #[error("task `{0}` is not stored")]
    Missing(String),
    /// A backend failure (I/O, the database).
    #[error("task store failure: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// A backend failure from any error.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Backend(error.into())
    }
}

/// Filters and paging for [`TaskStore::list`].
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only tasks of this owner (see [`StoredTask::owner`]); `None` lists every
    /// owner's (for administration; the A2A and MCP front-ends always set it).
    pub owner: Option<String>,
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
///   way) and each task's [`owner`](StoredTask::owner); lists filter by it.
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
pub(super) fn encode_page_token(key: i64, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{key}:{id}"))
}

/// The status time and id a page token continues after.
pub(super) fn decode_page_token(token: &str) -> Result<(i64, String), StoreError> {
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

/// A value bound into a SQL store's query.
pub(super) enum SqlValue {
    Text(String),
    Int(i64),
}

/// One `list` query in SQL: the count of matching tasks (filters only) and the page (filters,
/// the cursor, newest first, one more row than the page holds), each with its values in the
/// order of its placeholders. Only fixed fragments make up the SQL; every value is bound.
pub(super) struct ListSql {
    pub(super) count: (String, Vec<SqlValue>),
    pub(super) page: (String, Vec<SqlValue>),
}

/// [`ListSql`] for `query` over `table` (columns `id`, `owner`, `context_id`, `state`,
/// `status_us`, `body`), with placeholders numbered (`$1`, Postgres) or not (`?`, SQLite).
pub(super) fn list_sql(
    query: &ListQuery,
    table: &str,
    numbered: bool,
) -> Result<ListSql, StoreError> {
    let cursor = query
        .page_token
        .as_deref()
        .map(decode_page_token)
        .transpose()?;
    let mut count = 0;
    let mut mark = || {
        count += 1;
        if numbered {
            format!("${count}")
        } else {
            "?".to_owned()
        }
    };
    let mut filters = String::from(" WHERE 1 = 1");
    let mut values = Vec::new();
    if let Some(owner) = &query.owner {
        filters.push_str(&format!(" AND owner = {}", mark()));
        values.push(SqlValue::Text(owner.clone()));
    }
    if let Some(context) = &query.context_id {
        filters.push_str(&format!(" AND context_id = {}", mark()));
        values.push(SqlValue::Text(context.clone()));
    }
    if let Some(state) = query.state {
        filters.push_str(&format!(" AND state = {}", mark()));
        values.push(SqlValue::Text(state_name(state).to_owned()));
    }
    if let Some(after) = query.status_after {
        filters.push_str(&format!(" AND status_us > {}", mark()));
        values.push(SqlValue::Int(after.timestamp_micros()));
    }
    let count_sql = format!("SELECT COUNT(*) FROM {table}{filters}");
    let count_values = values.iter().map(SqlValue::duplicate).collect();
    let mut page = format!("SELECT id, status_us, body FROM {table}{filters}");
    if let Some((key, id)) = cursor {
        let (a, b, c) = (mark(), mark(), mark());
        page.push_str(&format!(
            " AND (status_us < {a} OR (status_us = {b} AND id < {c}))"
        ));
        values.extend([SqlValue::Int(key), SqlValue::Int(key), SqlValue::Text(id)]);
    }
    page.push_str(&format!(
        " ORDER BY status_us DESC, id DESC LIMIT {}",
        mark()
    ));
    values.push(SqlValue::Int(
        i64::try_from(query.page_size.clamp(1, 100) + 1).unwrap_or(101),
    ));
    Ok(ListSql {
        count: (count_sql, count_values),
        page: (page, values),
    })
}

impl SqlValue {
    fn duplicate(&self) -> Self {
        match self {
            Self::Text(text) => Self::Text(text.clone()),
            Self::Int(int) => Self::Int(*int),
        }
    }
}

/// A page of a SQL store's list, filled one row at a time as the rows are read (at most
/// `page_size + 1` in list order, so one more than fits tells that another page follows). The
/// reader stops at the first row that does not fit, so a page of large tasks holds in memory
/// only what it returns, not every row the query could give.
pub(super) struct PageBuilder<'a> {
    query: &'a ListQuery,
    page_size: usize,
    max_bytes: usize,
    tasks: Vec<Task>,
    bytes: usize,
    last: Option<(i64, String)>,
    more: bool,
}

impl<'a> PageBuilder<'a> {
    pub(super) fn new(query: &'a ListQuery) -> Self {
        let page_size = query.page_size.clamp(1, 100);
        Self {
            query,
            page_size,
            max_bytes: query.max_bytes.unwrap_or(usize::MAX),
            tasks: Vec::with_capacity(page_size.min(16)),
            bytes: 0,
            last: None,
            more: false,
        }
    }

    /// Adds the row of status time `key` (µs), `id` and serde `body`, trimmed as the query
    /// asks; whether the page takes more rows.
    fn push(&mut self, key: i64, id: &str, body: &str) -> Result<bool, StoreError> {
        if self.tasks.len() >= self.page_size {
            self.more = true;
            return Ok(false);
        }
        let task = serde_json::from_str::<Task>(body)
            .map_err(StoreError::backend)?
            .view(self.query.history_length, !self.query.without_artifacts);
        let size = task.byte_size();
        if !self.tasks.is_empty() && self.bytes + size > self.max_bytes {
            self.more = true;
            return Ok(false);
        }
        self.bytes += size;
        self.last = Some((key, id.to_owned()));
        self.tasks.push(task);
        Ok(true)
    }

    /// Fills the page from `rows` as they are read, each giving its status time, id and body
    /// through `fields`, and stops reading at the first that does not fit; the page, of `total`
    /// matching tasks.
    pub(super) async fn read<R, E>(
        mut self,
        mut rows: impl futures::TryStream<Ok = R, Error = E> + Unpin,
        fields: for<'r> fn(&'r R) -> (i64, &'r str, &'r str),
        total: i64,
    ) -> Result<TaskPage, StoreError>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        use futures::TryStreamExt as _;
        while let Some(row) = rows.try_next().await.map_err(StoreError::backend)? {
            let (key, id, body) = fields(&row);
            if !self.push(key, id, body)? {
                break;
            }
        }
        Ok(self.finish(total))
    }

    /// The page, of `total` matching tasks.
    fn finish(self, total: i64) -> TaskPage {
        TaskPage {
            tasks: self.tasks,
            next_page_token: match (self.more, self.last) {
                (true, Some((key, id))) => Some(encode_page_token(key, &id)),
                _ => None,
            },
            total_size: usize::try_from(total).unwrap_or(0),
        }
    }
}

/// The stored name of a state (an indexed column of the SQL stores).
pub(super) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "inputRequired",
        TaskState::AuthRequired => "authRequired",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::Rejected => "rejected",
    }
}
