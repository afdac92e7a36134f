//! What both SQL stores share: the `list` query built from a [`ListQuery`] (fixed fragments,
//! every value bound), pages filled one row at a time, and the stored names of states.

use a2a_runtime_core::task::store::{decode_page_token, encode_page_token};
use a2a_runtime_core::task::{ListQuery, StoreError, TaskPage};
use a2a_runtime_types::model::{ByteSize, Task, TaskState};

/// A value bound into a SQL store's query.
pub(crate) enum SqlValue {
    Text(String),
    Int(i64),
}

/// One `list` query in SQL: the count of matching tasks (filters only) and the page (filters,
/// the cursor, newest first, one more row than the page holds), each with its values in the
/// order of its placeholders. Only fixed fragments make up the SQL; every value is bound.
pub(crate) struct ListSql {
    pub(crate) count: Statement,
    pub(crate) page: Statement,
}

/// A SQL statement and the values bound to its placeholders, in order.
pub(crate) struct Statement {
    pub(crate) sql: String,
    pub(crate) values: Vec<SqlValue>,
}

/// [`ListSql`] for `query` over `table` (columns `id`, `owner`, `agent`, `context_id`, `state`,
/// `status_us`, `body`), with placeholders numbered (`$1`, Postgres) or not (`?`, SQLite).
pub(crate) fn list_sql(
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
    if let Some(agent) = &query.agent {
        filters.push_str(&format!(" AND agent = {}", mark()));
        values.push(SqlValue::Text(agent.clone()));
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
        count: Statement {
            sql: count_sql,
            values: count_values,
        },
        page: Statement { sql: page, values },
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
pub(crate) struct PageBuilder<'a> {
    query: &'a ListQuery,
    page_size: usize,
    max_bytes: usize,
    tasks: Vec<Task>,
    bytes: usize,
    last: Option<(i64, String)>,
    more: bool,
}

impl<'a> PageBuilder<'a> {
    pub(crate) fn new(query: &'a ListQuery) -> Self {
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
    pub(crate) async fn read<R, E>(
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
pub(crate) fn state_name(state: TaskState) -> &'static str {
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
