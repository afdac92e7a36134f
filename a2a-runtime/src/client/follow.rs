//! Streams that survive a dropped connection: when a task's stream breaks before the task
//! settles, the client subscribes again and turns the task snapshot the agent sends first into
//! the events it missed, so the caller sees every change once: no gap, no duplicate.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde_json::{Value, json};

use super::dialect::Op;
use super::jsonrpc::JsonRpc;
use super::{ClientError, EventStream, StreamEvent};
use crate::model::{Task, TaskArtifactUpdate, TaskEvent, TaskState, TaskStatusUpdate};
use crate::protocol::a2a::Received;

/// Opens a streaming call: its items as the core model's events.
pub(crate) async fn open(
    http: &reqwest::Client,
    rpc: &JsonRpc,
    op: Op,
    params: Value,
) -> Result<EventStream, ClientError> {
    let dialect = rpc.dialect();
    let results = rpc.stream(http, op, params).await?;
    Ok(results
        .map(move |result| {
            Ok(match dialect.received(result?)? {
                Received::Task(task) => StreamEvent::Task(task),
                Received::Message(message) => StreamEvent::Message(message),
                Received::Event(TaskEvent::Status(update)) => StreamEvent::Status(update),
                Received::Event(TaskEvent::Artifact(update)) => StreamEvent::Artifact(update),
            })
        })
        .boxed())
}

/// What the caller has been shown of one task.
#[derive(Debug, Default)]
struct Seen {
    task_id: Option<String>,
    context_id: String,
    status: Option<(TaskState, DateTime<Utc>)>,
    /// Parts shown per artifact id.
    parts: HashMap<String, usize>,
    /// The stream's answer was a message: there is no task to follow.
    replied: bool,
}

impl Seen {
    fn settled(&self) -> bool {
        self.replied || self.status.is_some_and(|(state, _)| state.is_terminal())
    }

    fn observe(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::Task(task) => {
                self.task_id = Some(task.id.clone());
                self.context_id.clone_from(&task.context_id);
                self.status = Some((task.status.state, task.status.timestamp));
                for artifact in &task.artifacts {
                    self.parts
                        .insert(artifact.artifact_id.clone(), artifact.parts.len());
                }
            }
            StreamEvent::Message(_) => self.replied = true,
            StreamEvent::Status(update) => {
                self.task_id.get_or_insert_with(|| update.task_id.clone());
                self.context_id.clone_from(&update.context_id);
                self.status = Some((update.status.state, update.status.timestamp));
            }
            StreamEvent::Artifact(update) => {
                self.task_id.get_or_insert_with(|| update.task_id.clone());
                let shown = self
                    .parts
                    .entry(update.artifact.artifact_id.clone())
                    .or_default();
                let added = update.artifact.parts.len();
                *shown = if update.append { *shown + added } else { added };
            }
        }
    }

    /// The events that turn what was shown into `snapshot`: new artifacts and new parts of
    /// known ones, then the status if it changed.
    fn catch_up(&mut self, snapshot: &Task) -> Vec<StreamEvent> {
        let mut missed = Vec::new();
        let settled = snapshot.status.state.is_terminal();
        for artifact in &snapshot.artifacts {
            let shown = self.parts.get(&artifact.artifact_id).copied();
            let new_parts = match shown {
                Some(shown) if shown >= artifact.parts.len() => continue,
                Some(shown) => artifact.parts[shown..].to_vec(),
                None => artifact.parts.clone(),
            };
            let mut update = artifact.clone();
            update.parts = new_parts;
            missed.push(StreamEvent::Artifact(TaskArtifactUpdate {
                task_id: snapshot.id.clone(),
                context_id: snapshot.context_id.clone(),
                artifact: update,
                append: shown.is_some(),
                last_chunk: settled,
            }));
        }
        let status = (snapshot.status.state, snapshot.status.timestamp);
        if self.status != Some(status) {
            missed.push(StreamEvent::Status(TaskStatusUpdate {
                task_id: snapshot.id.clone(),
                context_id: snapshot.context_id.clone(),
                status: snapshot.status.clone(),
                metadata: None,
            }));
        }
        for event in &missed {
            self.observe(event);
        }
        missed
    }
}

/// A stream of one task's events, subscribing again when the connection drops.
struct Follower {
    http: reqwest::Client,
    rpc: Arc<JsonRpc>,
    inner: Option<EventStream>,
    seen: Seen,
    pending: VecDeque<StreamEvent>,
    /// The next item is the snapshot of a renewed subscription.
    renewed: bool,
    /// Renewals since the last event.
    renewals: u32,
    finished: bool,
}

/// `stream`, renewed as long as its task runs and the client's retry policy allows.
pub(crate) fn resilient(
    http: reqwest::Client,
    rpc: Arc<JsonRpc>,
    stream: EventStream,
) -> EventStream {
    let follower = Follower {
        http,
        rpc,
        inner: Some(stream),
        seen: Seen::default(),
        pending: VecDeque::new(),
        renewed: false,
        renewals: 0,
        finished: false,
    };
    futures::stream::unfold(follower, |mut follower| async move {
        let item = follower.next().await?;
        Some((item, follower))
    })
    .boxed()
}

impl Follower {
    async fn next(&mut self) -> Option<Result<StreamEvent, ClientError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.finished {
                return None;
            }
            let next = match &mut self.inner {
                Some(inner) => inner.next().await,
                None => None,
            };
            match next {
                Some(Ok(StreamEvent::Task(snapshot))) if self.renewed => {
                    self.renewed = false;
                    self.renewals = 0;
                    let missed = self.seen.catch_up(&snapshot);
                    self.pending.extend(missed);
                }
                Some(Ok(event)) => {
                    self.renewed = false;
                    self.renewals = 0;
                    self.seen.observe(&event);
                    return Some(Ok(event));
                }
                Some(Err(error)) if !matches!(error, ClientError::Transport { .. }) => {
                    self.finished = true;
                    return Some(Err(error));
                }
                // The connection dropped, or the stream ended before the task settled.
                broken => {
                    if self.seen.settled() {
                        self.finished = true;
                        continue;
                    }
                    let cause = broken.and_then(Result::err);
                    if let Err(error) = self.renew(cause).await {
                        self.finished = true;
                        return Some(Err(error));
                    }
                }
            }
        }
    }

    /// Subscribes again; if the task ended meanwhile, its final state is read instead.
    async fn renew(&mut self, cause: Option<ClientError>) -> Result<(), ClientError> {
        let Some(task_id) = self.seen.task_id.clone() else {
            return Err(cause.unwrap_or_else(|| ClientError::InvalidResponse {
                field: String::new(),
                reason: "the stream ended before naming its task".into(),
            }));
        };
        let policy = self.rpc.retry_policy();
        loop {
            self.renewals += 1;
            if self.renewals >= policy.max_attempts.max(2) {
                return Err(cause.unwrap_or_else(|| ClientError::InvalidResponse {
                    field: String::new(),
                    reason: format!("the stream of task {task_id} kept ending before it settled"),
                }));
            }
            tokio::time::sleep(policy.initial_backoff.saturating_mul(self.renewals)).await;
            let params = json!({ "id": task_id });
            match open(&self.http, &self.rpc, Op::Subscribe, params).await {
                Ok(stream) => {
                    tracing::debug!(task = task_id, "resubscribed");
                    self.inner = Some(stream);
                    self.renewed = true;
                    return Ok(());
                }
                Err(ClientError::Transport { .. }) => {}
                // Refused: most likely the task settled, and a settled task has no stream.
                Err(refused) => {
                    let params = json!({ "id": task_id });
                    let task = match self.rpc.call(&self.http, Op::Get, params).await {
                        Ok(result) => self.rpc.dialect().task(result)?,
                        Err(_) => return Err(refused),
                    };
                    let missed = self.seen.catch_up(&task);
                    self.pending.extend(missed);
                    self.inner = None;
                    self.finished = true;
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Artifact, Part, TaskStatus};

    fn task(state: TaskState, artifacts: Vec<Artifact>) -> Task {
        let status = TaskStatus::now(state, None);
        Task {
            id: "t".into(),
            context_id: "c".into(),
            created_at: status.timestamp,
            status,
            artifacts,
            history: Vec::new(),
            metadata: None,
            owner: String::new(),
            checkpoint: None,
            push_configs: Vec::new(),
        }
    }

    fn artifact(id: &str, texts: &[&str]) -> Artifact {
        let mut artifact = Artifact::new(texts.iter().map(|t| Part::text(*t)).collect());
        artifact.artifact_id = id.into();
        artifact
    }

    #[test]
    fn a_snapshot_yields_only_what_was_not_shown() {
        let mut seen = Seen::default();
        let first = task(TaskState::Working, vec![artifact("a", &["1"])]);
        seen.observe(&StreamEvent::Task(Box::new(first.clone())));
        let later = Task {
            status: TaskStatus::now(TaskState::Completed, None),
            artifacts: vec![artifact("a", &["1", "2", "3"]), artifact("b", &["x"])],
            ..first
        };
        let missed = seen.catch_up(&later);
        let described: Vec<String> = missed
            .iter()
            .map(|e| match e {
                StreamEvent::Artifact(u) => format!(
                    "{} append={} parts={}",
                    u.artifact.artifact_id,
                    u.append,
                    u.artifact.parts.len()
                ),
                StreamEvent::Status(u) => format!("{:?}", u.status.state),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            described,
            [
                "a append=true parts=2",
                "b append=false parts=1",
                "Completed"
            ]
        );
        assert!(seen.settled());
        assert!(seen.catch_up(&later).is_empty(), "nothing twice");
    }
}
