//! Listing a remote agent's tasks: one page at a time, or every page as a stream.

use futures::Stream;
use serde_json::{Value, json};

use super::dialect::{Op, taken_list};
use super::{A2aClient, ClientError};
use a2a_runtime_types::model::{Task, TaskState};

/// Which tasks to list.
#[derive(Debug, Clone, Default)]
pub struct ListTasks {
    /// Only tasks of this conversation.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub state: Option<TaskState>,
    /// At most this many tasks per page (the agent's default when `None`).
    pub page_size: Option<usize>,
    /// At most this many history messages per task.
    pub history_length: Option<usize>,
    /// Include each task's artifacts.
    pub include_artifacts: bool,
}

/// One page of tasks.
#[derive(Debug, Clone)]
pub struct TaskPage {
    /// The tasks, newest first as the agent orders them.
    pub tasks: Vec<Task>,
    /// The token of the next page; `None` on the last.
    pub next_page_token: Option<String>,
    /// How many tasks match, over every page.
    pub total_size: Option<u64>,
}

impl A2aClient {
    /// One page of the caller's tasks: the first, or the one `page_token` names. A2A 0.3 has
    /// no listing: its agents answer [`ClientError::Unsupported`].
    pub async fn list_tasks_page(
        &self,
        query: &ListTasks,
        page_token: Option<&str>,
    ) -> Result<TaskPage, ClientError> {
        let mut params = json!({ "includeArtifacts": query.include_artifacts });
        if let Some(context_id) = &query.context_id {
            params["contextId"] = json!(context_id);
        }
        if let Some(state) = query.state {
            params["status"] = json!(self.rpc.dialect().state_name(state));
        }
        if let Some(size) = query.page_size {
            params["pageSize"] = json!(size);
        }
        if let Some(length) = query.history_length {
            params["historyLength"] = json!(length);
        }
        if let Some(token) = page_token.filter(|t| !t.is_empty()) {
            params["pageToken"] = json!(token);
        }
        let mut result = self.rpc.call(&self.http, Op::List, params).await?;
        let tasks = taken_list(&mut result, "tasks")
            .into_iter()
            .map(|task| self.rpc.dialect().task(task))
            .collect::<Result<Vec<_>, _>>()?;
        let next_page_token = result
            .get("nextPageToken")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        if next_page_token.is_some() && next_page_token.as_deref() == page_token {
            return Err(ClientError::InvalidResponse {
                field: "result.nextPageToken".into(),
                reason: "names the page just read".into(),
            });
        }
        Ok(TaskPage {
            tasks,
            next_page_token,
            total_size: result.get("totalSize").and_then(Value::as_u64),
        })
    }

    /// Every task `query` matches, page after page as the stream is read.
    pub fn list_tasks<'a>(
        &'a self,
        query: &'a ListTasks,
    ) -> impl Stream<Item = Result<Task, ClientError>> + Send + 'a {
        // State: the tasks of the page read and not yet yielded, and the next page's token
        // (`None` once the last page was read).
        let start = (Vec::<Task>::new().into_iter(), Some(String::new()));
        futures::stream::unfold(start, move |(mut tasks, mut next)| async move {
            loop {
                if let Some(task) = tasks.next() {
                    return Some((Ok(task), (tasks, next)));
                }
                let token = next.take()?;
                match self.list_tasks_page(query, Some(&token)).await {
                    Ok(page) => {
                        tasks = page.tasks.into_iter();
                        next = page.next_page_token;
                    }
                    Err(error) => return Some((Err(error), (tasks, None))),
                }
            }
        })
    }
}
