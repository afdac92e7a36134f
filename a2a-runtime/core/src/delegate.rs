//! Delegation from a skill: [`TaskContext::call_agent`] sends a message to another agent and
//! ties the remote task to the calling one. Canceling the caller's task cancels the remote
//! task, the remote task's progress is the caller's progress, and the trace goes on (the
//! client sends it from inside a skill by itself).

use futures::StreamExt;
use serde_json::Value;

use crate::context::TaskContext;
use a2a_runtime_client::{A2aClient, ClientError, SendResult, StreamEvent};
use a2a_runtime_types::model::{JsonObject, Message, TaskState};

impl TaskContext {
    /// Sends `message` to the agent `agent` is a client of and follows the task it starts until
    /// it settles or waits for input: the remote task, or the agent's direct reply.
    ///
    /// While it runs, the remote task's progress reports become this task's progress. If this
    /// task is canceled, the remote task is canceled too and this returns
    /// [`ClientError::Canceled`].
    pub async fn call_agent(
        &self,
        agent: &A2aClient,
        message: Message,
    ) -> Result<SendResult, ClientError> {
        let mut stream = tokio::select! {
            opened = agent.send_streaming(message) => opened?,
            () = self.cancelled() => return Err(ClientError::Canceled { remote_task: None }),
        };
        // The remote task's id, once the stream named it.
        let mut remote: Option<String> = None;
        loop {
            let event = tokio::select! {
                biased;
                () = self.cancelled() => {
                    let remote_task = remote;
                    if let Some(id) = &remote_task {
                        // Best effort: the remote task may have settled meanwhile.
                        if let Err(error) = agent.cancel_task(id).await {
                            tracing::debug!(task = id, %error, "canceling the delegated task");
                        }
                    }
                    return Err(ClientError::Canceled { remote_task });
                }
                event = stream.next() => event,
            };
            match event {
                None => break,
                Some(Err(error)) => return Err(error),
                Some(Ok(StreamEvent::Message(reply))) => return Ok(SendResult::Message(reply)),
                Some(Ok(StreamEvent::Task(snapshot))) => remote = Some(snapshot.id),
                Some(Ok(StreamEvent::Status(update))) => {
                    self.relay_progress(update.status.message.as_ref(), update.metadata.as_ref());
                    remote.get_or_insert(update.task_id);
                    let state = update.status.state;
                    if state.is_terminal()
                        || matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
                    {
                        break;
                    }
                }
                Some(Ok(StreamEvent::Artifact(update))) => {
                    remote.get_or_insert(update.task_id);
                }
            }
        }
        match remote {
            // The task as the agent keeps it, artifacts and history included.
            Some(id) => agent
                .get_task(&id, None)
                .await
                .map(|t| SendResult::Task(Box::new(t))),
            None => Err(ClientError::InvalidResponse {
                field: String::new(),
                reason: "the stream ended before naming its task".into(),
            }),
        }
    }

    /// A remote status update's progress, reported as this task's.
    fn relay_progress(&self, message: Option<&Message>, metadata: Option<&JsonObject>) {
        let count = |key: &str| metadata.and_then(|m| m.get(key)).and_then(Value::as_u64);
        let text = message.and_then(Message::text);
        match (count("progress"), count("total"), text) {
            (Some(done), Some(total), Some(text)) => self.progress_with(done, total, text),
            (Some(done), Some(total), None) => self.progress_of(done, total),
            (_, _, Some(text)) => self.progress(text),
            _ => {}
        }
    }
}
