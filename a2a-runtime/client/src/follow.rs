//! Streams that survive a dropped connection: when a task's stream breaks before the task
//! settles, the client subscribes again and turns the task snapshot the agent sends first into
//! the events it missed, so the caller sees every change once: no gap, no duplicate.
//!
//! A2A 1.0 agents send that snapshot; 0.3 agents need not (the 0.3 Python SDK does not), and
//! then nothing tells which of the renewed stream's updates the caller has already seen. For
//! those the follower reads the task at each update instead and yields what the task gained
//! since it was last shown: the same content, in chunks that may be merged.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde_json::{Value, json};

use super::dialect::Op;
use super::endpoint::Endpoint;
use super::{ClientError, EventStream, StreamEvent};
use a2a_runtime_types::model::{Task, TaskArtifactUpdate, TaskState, TaskStatusUpdate};

/// Opens a streaming call: its items as the core model's events.
pub(crate) async fn open(
    http: &reqwest::Client,
    rpc: &Endpoint,
    op: Op,
    params: Value,
) -> Result<EventStream, ClientError> {
    let dialect = rpc.dialect();
    let results = rpc.stream(http, op, params).await?;
    Ok(results
        .map(move |result| Ok(StreamEvent::from(dialect.received(result?)?)))
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
    /// Whether the stream is over: the task ended, or waits for the caller (input or
    /// credentials), where A2A streams end too.
    fn settled(&self) -> bool {
        self.replied
            || self
                .status
                .is_some_and(|(state, _)| state.is_terminal() || state.is_interrupted())
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
    rpc: Arc<Endpoint>,
    inner: Option<EventStream>,
    seen: Seen,
    pending: VecDeque<StreamEvent>,
    /// The next item is the snapshot of a renewed subscription.
    renewed: bool,
    /// The renewed stream did not start with a snapshot: its updates are read from the task.
    by_snapshot: bool,
    /// Renewals since the last event.
    renewals: u32,
    finished: bool,
}

/// `stream`, renewed as long as its task runs and the client's retry policy allows.
pub(crate) fn resilient(
    http: reqwest::Client,
    rpc: Arc<Endpoint>,
    stream: EventStream,
) -> EventStream {
    let follower = Follower {
        http,
        rpc,
        inner: Some(stream),
        seen: Seen::default(),
        pending: VecDeque::new(),
        renewed: false,
        by_snapshot: false,
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
            // Nothing follows a settled task (a server may repeat its last status).
            if self.finished || self.seen.settled() {
                return None;
            }
            let next = match &mut self.inner {
                Some(inner) => inner.next().await,
                None => None,
            };
            match next {
                // Not counted as progress: an agent that sends the snapshot and closes again
                // would otherwise be renewed forever.
                Some(Ok(StreamEvent::Task(snapshot))) if self.renewed => {
                    self.renewed = false;
                    let missed = self.seen.catch_up(&snapshot);
                    self.pending.extend(missed);
                }
                Some(Ok(event)) if self.renewed || self.by_snapshot => {
                    self.renewed = false;
                    self.by_snapshot = true;
                    self.renewals = 0;
                    if let Err(error) = self.catch_up_at(&event).await {
                        self.finished = true;
                        return Some(Err(error));
                    }
                }
                Some(Ok(event)) => {
                    self.renewed = false;
                    self.renewals = 0;
                    self.seen.observe(&event);
                    return Some(Ok(event));
                }
                // A dropped connection or a silent stream is renewed; anything else ends it.
                Some(Err(error))
                    if !matches!(
                        error,
                        ClientError::Transport { .. }
                            | ClientError::GrpcTransport { .. }
                            | ClientError::StreamIdle { .. }
                    ) =>
                {
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

    /// Yields what the task gained up to `event` (an update of a stream with no snapshot), read
    /// from the task itself. A settling status waits (briefly) for the task to show it, so the
    /// last artifacts come before it.
    async fn catch_up_at(&mut self, event: &StreamEvent) -> Result<(), ClientError> {
        let Some(task_id) = self.seen.task_id.clone() else {
            return Ok(());
        };
        let settles = matches!(event, StreamEvent::Status(u) if u.status.state.is_terminal());
        let mut task = read_task(&self.http, &self.rpc, &task_id).await?;
        for _ in 0..20 {
            if !settles || task.status.state.is_terminal() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            task = read_task(&self.http, &self.rpc, &task_id).await?;
        }
        let missed = self.seen.catch_up(&task);
        self.pending.extend(missed);
        // A status the task does not show yet is the stream's news.
        if let StreamEvent::Status(update) = event {
            let shown = self.seen.status.map(|(_, at)| at);
            if !self.seen.settled() && shown.is_none_or(|at| update.status.timestamp > at) {
                self.seen.observe(event);
                self.pending.push_back(event.clone());
            }
        }
        Ok(())
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
                Err(ClientError::Transport { .. } | ClientError::GrpcTransport { .. }) => {}
                // Refused: most likely the task settled, and a settled task has no stream.
                Err(refused) => {
                    let Ok(task) = read_task(&self.http, &self.rpc, &task_id).await else {
                        return Err(refused);
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

/// The task as the agent has it now.
async fn read_task(
    http: &reqwest::Client,
    rpc: &Endpoint,
    task_id: &str,
) -> Result<Task, ClientError> {
    let result = rpc.call(http, Op::Get, json!({ "id": task_id })).await?;
    rpc.dialect().task(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_runtime_types::model::{Artifact, Part, TaskStatus};

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
