//! Communication: `query_agent` (which really waits for the answer when asked to),
//! `check_messages`, `respond_to_query`, `broadcast_message`, and each agent's inbox as a
//! resource clients subscribe to.

use std::collections::VecDeque;
use std::time::Duration;

use a2a_runtime::futures::{self, Stream};
use a2a_runtime::prelude::*;
use a2a_runtime::records::{Changes, Entry, RecordError};
use a2a_runtime::serde_json::json;
use a2a_runtime::tokio;

use crate::delivery::Delivered;
use crate::model::{Answer, InboxMessage, MessageKind};
use crate::registry::active;
use crate::{Hub, HubClient, checked, collection, failure, new_id, now, store_failed};

/// How long an answer is kept for an asker that did not wait.
const ANSWER_KEPT: Duration = Duration::from_secs(24 * 3600);

/// The URI of `session`'s inbox in `project`.
pub fn inbox_uri(project: &str, session: &str) -> String {
    format!("hub://projects/{project}/inbox/{session}")
}

/// What `query_agent` answers: the response when it waited for one, else the id of the query
/// sent.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct QueryResult {
    /// `received` (the answer is here) or `sent` (not waited for).
    pub status: String,
    /// The query's message id, which the answer names.
    pub message_id: String,
    /// The answer, when received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Who answered, when received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responded_by: Option<String>,
}

/// Sends a query to another agent and, by default, waits for its response (the other agent
/// sees it with `check_messages` or its inbox resource, and answers with `respond_to_query`).
/// A wait ends in a `timeout` error after `timeout` seconds; waiting holds no thread, and an
/// MCP client that supports tasks gets a task to poll.
#[skill(agent = Hub)]
#[allow(clippy::too_many_arguments)] // The reference's parameters.
pub async fn query_agent(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Your session name.
    from_session: String,
    /// The target agent's session name.
    to_session: String,
    /// Type of query (e.g. `interface`, `help`, `status`).
    query_type: String,
    /// The actual question.
    query: String,
    /// Whether to wait for the response (default true).
    wait_for_response: Option<bool>,
    /// Seconds to wait for the response (default 30).
    timeout: Option<u64>,
) -> Result<QueryResult, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &from_session).await?;
    checked("to_session", &to_session)?;
    hub.registered(&project_id, &to_session).await?;
    let wait = wait_for_response.unwrap_or(true);
    let limit = Duration::from_secs(timeout.unwrap_or(30));
    if wait && limit > hub.settings().max_wait {
        return Err(SkillError::invalid_input(format!(
            "`timeout` is {}s, over the hub's longest wait of {}s",
            limit.as_secs(),
            hub.settings().max_wait.as_secs()
        )));
    }
    let message = InboxMessage {
        id: new_id("msg"),
        from: from_session,
        kind: MessageKind::Query,
        query_type: Some(query_type),
        message_type: None,
        content: query,
        timestamp: now(),
        requires_response: true,
        in_reply_to: None,
        read: false,
    };
    // Watch before sending, so an answer that comes at once is not missed.
    let answers = collection::answers(&project_id);
    let changes = match wait {
        true => Some(hub.records().watch(&answers).await.map_err(store_failed)?),
        false => None,
    };
    hub.deliver(&project_id, &to_session, &message)
        .await?
        .or_refuse()?;
    let Some(mut changes) = changes else {
        return Ok(QueryResult {
            status: "sent".into(),
            message_id: message.id,
            response: None,
            responded_by: None,
        });
    };
    let answer = awaited_answer(&hub, &answers, &mut changes, &message.id, limit).await?;
    Ok(QueryResult {
        status: "received".into(),
        message_id: message.id,
        response: Some(answer.response),
        responded_by: Some(answer.from),
    })
}

/// The answer to message `id` in `answers`, read again at each change, within `limit`.
async fn awaited_answer(
    hub: &Hub,
    answers: &str,
    changes: &mut Changes,
    id: &str,
    limit: Duration,
) -> Result<Answer, SkillError> {
    let waited = tokio::time::timeout(limit, async {
        loop {
            if let Some(answer) = hub
                .records()
                .get::<Answer>(answers, id)
                .await
                .map_err(store_failed)?
            {
                return Ok::<Answer, SkillError>(answer);
            }
            // A missed change is a reason to read again, as is any other.
            let _ = changes.next().await;
        }
    })
    .await;
    waited.unwrap_or_else(|_| {
        Err(failure(
            "timeout",
            format!("No response received within {} seconds", limit.as_secs()),
            json!({ "message_id": id }),
        ))
    })
}

/// Checks the agent's unread messages, oldest first, and marks them read (they stay in the
/// inbox resource).
#[skill(agent = Hub)]
pub async fn check_messages(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
) -> Result<Vec<InboxMessage>, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    hub.take_unread(&project_id, &session_name).await
}

/// Follows the agent's inbox for `for_seconds` (default 60, at most the hub's longest wait):
/// its unread messages first, then each new one as it arrives, every one marked read as it is
/// sent. Over A2A each message is an artifact update of the streamed task (push instead of
/// polling `check_messages`); over MCP they come back together when the time is up (MCP
/// clients subscribe to the inbox resource instead). Cancel the task to stop early.
#[skill(agent = Hub)]
pub async fn follow_inbox(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// How long to follow, in seconds (default 60).
    for_seconds: Option<u64>,
) -> Result<impl Stream<Item = Result<Json<InboxMessage>, SkillError>>, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    let span = Duration::from_secs(for_seconds.unwrap_or(60));
    if span > hub.settings().max_wait {
        return Err(SkillError::invalid_input(format!(
            "`for_seconds` is {}, over the hub's longest wait of {}s",
            span.as_secs(),
            hub.settings().max_wait.as_secs()
        )));
    }
    // Watch before the first read, so a message arriving in between is not missed.
    let changes = hub
        .records()
        .watch(&collection::inbox(&project_id, &session_name))
        .await
        .map_err(store_failed)?;
    let following = Following {
        hub: State::clone(&hub),
        project: project_id,
        session: session_name,
        changes,
        ready: VecDeque::new(),
        until: tokio::time::Instant::now() + span,
        first: true,
    };
    Ok(futures::stream::unfold(following, Following::next))
}

/// The state of one `follow_inbox` stream.
struct Following {
    hub: State<Hub>,
    project: String,
    session: String,
    changes: Changes,
    /// Messages taken from the inbox, not yet sent.
    ready: VecDeque<InboxMessage>,
    until: tokio::time::Instant,
    /// Whether the inbox is still to be read for the first time.
    first: bool,
}

impl Following {
    /// The next message, waiting for one until the time is up.
    async fn next(mut self) -> Option<(Result<Json<InboxMessage>, SkillError>, Self)> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some((Ok(Json(message)), self));
            }
            if !std::mem::take(&mut self.first) {
                // Any change (or a missed one) is a reason to read the inbox again.
                let change = tokio::time::timeout_at(self.until, self.changes.next()).await;
                if change.is_err() {
                    return None;
                }
            }
            match self.hub.take_unread(&self.project, &self.session).await {
                Ok(unread) => self.ready.extend(unread),
                Err(error) => return Some((Err(error), self)),
            }
        }
    }
}

impl Hub {
    /// `session`'s unread messages in `project`, oldest first, each marked read by this call
    /// (compare-and-set: of two readers, one gets each message).
    async fn take_unread(
        &self,
        project: &str,
        session: &str,
    ) -> Result<Vec<InboxMessage>, SkillError> {
        let inbox = collection::inbox(project, session);
        let mut entries: Vec<Entry<InboxMessage>> = self
            .records()
            .entries(&inbox, None)
            .await
            .map_err(store_failed)?;
        entries.retain(|entry| !entry.value.read);
        entries.reverse();
        let mut unread = Vec::with_capacity(entries.len());
        for entry in entries {
            let mut message = entry.value;
            message.read = true;
            match self
                .records()
                .put(&inbox, &entry.key, &message)
                .if_version(entry.version)
                .await
            {
                // Marked here: this call returns it.
                Ok(_) => {
                    message.read = false;
                    unread.push(message);
                }
                // Another reader returned it, or it was dropped meanwhile.
                Err(RecordError::Conflict { .. }) => {}
                Err(other) => return Err(store_failed(other)),
            }
        }
        Ok(unread)
    }
}

/// What `respond_to_query` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Responded {
    /// `response_sent`.
    pub status: String,
    /// The session that asked.
    pub to: String,
}

/// Responds to a query from another agent: a waiting asker gets the response at once, and it
/// lands in the asker's inbox too.
#[skill(agent = Hub)]
pub async fn respond_to_query(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Your session name.
    from_session: String,
    /// Session that sent the query.
    to_session: String,
    /// ID of the original query.
    message_id: String,
    /// Your response.
    response: String,
) -> Result<Responded, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &from_session).await?;
    checked("to_session", &to_session)?;
    checked("message_id", &message_id)?;
    let query: Option<InboxMessage> = hub
        .records()
        .get(&collection::inbox(&project_id, &from_session), &message_id)
        .await
        .map_err(store_failed)?;
    let Some(query) = query.filter(|q| q.kind == MessageKind::Query && q.from == to_session) else {
        return Err(failure(
            "not_found",
            format!("No query {message_id} from {to_session} in the inbox of {from_session}"),
            json!({}),
        ));
    };
    let answer = Answer {
        from: from_session.clone(),
        response: response.clone(),
        timestamp: now(),
    };
    hub.records()
        .put(&collection::answers(&project_id), &query.id, &answer)
        .ttl(ANSWER_KEPT)
        .await
        .map_err(store_failed)?;
    let reply = InboxMessage {
        id: new_id("msg"),
        from: from_session,
        kind: MessageKind::Response,
        query_type: query.query_type,
        message_type: None,
        content: response,
        timestamp: now(),
        requires_response: false,
        in_reply_to: Some(query.id),
        read: false,
    };
    // The asker may have left; the waiting asker has its answer regardless.
    if hub.registered(&project_id, &to_session).await.is_ok() {
        hub.deliver(&project_id, &to_session, &reply)
            .await?
            .or_refuse()?;
    }
    Ok(Responded {
        status: "response_sent".into(),
        to: to_session,
    })
}

/// What `broadcast_message` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Broadcast {
    /// `broadcast_sent`.
    pub status: String,
    /// How many agents got it.
    pub recipients: usize,
    /// The agents whose inbox could not take it (full of unread messages, or of this
    /// sender's): they did not get it.
    #[serde(default)]
    pub undelivered: Vec<String>,
}

/// Sends a message to all other active agents in the project. Each recipient counts against
/// the caller's rate of calls, so a broadcast costs what sending each message would.
#[skill(agent = Hub)]
pub async fn broadcast_message(
    hub: State<Hub>,
    caller: Caller,
    ctx: TaskContext,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Your session name.
    session_name: String,
    /// Type of broadcast (`info`, `warning`, `help_needed`).
    message_type: String,
    /// The message content.
    content: String,
) -> Result<Broadcast, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    let recipients: Vec<String> = active(&hub, &project_id)
        .await?
        .into_keys()
        .filter(|name| *name != session_name)
        .collect();
    ctx.spend(u32::try_from(recipients.len()).unwrap_or(u32::MAX))?;
    let (mut delivered, mut undelivered) = (0, Vec::new());
    for recipient in &recipients {
        let message = InboxMessage::broadcast(&session_name, &message_type, &content);
        match hub.deliver(&project_id, recipient, &message).await? {
            Delivered::Yes => delivered += 1,
            Delivered::Full(_) => undelivered.push(recipient.clone()),
        }
    }
    Ok(Broadcast {
        status: "broadcast_sent".into(),
        recipients: delivered,
        undelivered,
    })
}

/// An agent's inbox: its newest messages first, read or not (reading this marks nothing).
/// Subscribe to it to be told of each new message.
#[resource(agent = Hub, uri = "hub://projects/{project_id}/inbox/{session_name}", mime_type = "application/json")]
pub async fn inbox(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier.
    project_id: String,
    /// The agent's session name.
    session_name: String,
) -> Result<Json<Vec<InboxMessage>>, SkillError> {
    hub.acting(&caller, &project_id, &session_name).await?;
    let messages = hub
        .records()
        .list(&collection::inbox(&project_id, &session_name), Some(100))
        .await
        .map_err(store_failed)?;
    Ok(Json(messages))
}
