//! A conversation's earlier messages, for `ctx.history()`: the messages of the tasks created
//! in the same context before the current one.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::live::LiveTask;
use super::store::{ListQuery, TaskStore};
use crate::context::Conversation;
use a2a_runtime_types::model::{Message, Task};
use a2a_runtime_types::util::BoxFuture;

/// Tasks read per store page.
const PAGE: usize = 100;
/// The most tasks of one context read for a history; a longer conversation is cut to its newest.
const MAX_TASKS: usize = 1_000;

/// The history of one task's context, read on demand.
pub(super) struct ContextHistory {
    store: Arc<dyn TaskStore>,
    /// Only this agent's tasks: a context another agent of the server shares is not its.
    agent: String,
    context_id: String,
    task_id: String,
    created_at: DateTime<Utc>,
    limit: usize,
}

impl ContextHistory {
    pub(super) fn new(
        store: Arc<dyn TaskStore>,
        live: &LiveTask,
        created_at: DateTime<Utc>,
        limit: usize,
    ) -> Self {
        Self {
            store,
            agent: live.agent.clone(),
            context_id: live.context_id.clone(),
            task_id: live.id.clone(),
            created_at,
            limit,
        }
    }

    async fn read(&self) -> Vec<Message> {
        let mut query = ListQuery {
            agent: Some(self.agent.clone()),
            context_id: Some(self.context_id.clone()),
            page_size: PAGE,
            ..ListQuery::default()
        };
        let mut earlier: Vec<Task> = Vec::new();
        let mut read = 0;
        while read < MAX_TASKS {
            let page = match self.store.list(&query).await {
                Ok(page) => page,
                Err(error) => {
                    // The skill still runs; it sees the history read so far.
                    tracing::warn!(context = %self.context_id, %error, "could not read the conversation history");
                    break;
                }
            };
            read += page.tasks.len();
            earlier.extend(
                page.tasks
                    .into_iter()
                    .filter(|t| t.id != self.task_id && t.created_at <= self.created_at),
            );
            match page.next_page_token {
                Some(token) => query.page_token = Some(token),
                None => break,
            }
        }
        earlier.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        let mut messages: Vec<Message> = earlier.into_iter().flat_map(|t| t.history).collect();
        let excess = messages.len().saturating_sub(self.limit);
        messages.drain(..excess);
        messages
    }
}

impl Conversation for ContextHistory {
    fn history(&self) -> BoxFuture<'_, Vec<Message>> {
        Box::pin(self.read())
    }
}
