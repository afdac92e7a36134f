//! A remote A2A agent's skill as the host runs it: the caller's message goes to the remote
//! (streamed when the remote streams), each event comes back into the host's task (progress,
//! artifacts, chunks), a question the remote asks is asked of the host's caller and its answer
//! sent on, and a cancellation of the host's task cancels the remote's.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use super::upstream::Upstream;
use a2a_runtime_client::{A2aClient, SendOptions, SendResult, StreamEvent};
use a2a_runtime_core::call::{Invocation, SkillOutput, SkillResult};
use a2a_runtime_core::context::{ArtifactWriter, TaskContext};
use a2a_runtime_core::registry::{DefinedSkill, RunSkill};
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_types::model::{
    Artifact, Message, Part, PartContent, Task, TaskArtifactUpdate, TaskState, TaskStatus,
};
use a2a_runtime_types::util::BoxFuture;

/// The most questions one call relays before it gives up on a remote that keeps asking.
const MAX_TURNS: usize = 32;
/// The most times a stream the remote ended early is resumed by subscribing to its task.
const MAX_RESUBSCRIBES: usize = 3;
/// The first pause before a remote task that does not stream is read again; each later one
/// doubles, up to [`LAST_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(100);
/// The longest pause between two reads of a remote task that does not stream.
const LAST_POLL: Duration = Duration::from_secs(2);

/// Runs one skill of a remote A2A agent.
pub(crate) struct Forward {
    pub(crate) upstream: Arc<Upstream>,
    /// The skill's id on the remote.
    pub(crate) skill: String,
    /// Whether it publishes an output schema: its result is then the data part of its
    /// artifact, returned as structured output rather than published as an artifact.
    pub(crate) structured: bool,
}

impl RunSkill for Forward {
    fn run(&self, mut invocation: Invocation) -> BoxFuture<'static, SkillResult> {
        let input = DefinedSkill::input(&mut invocation);
        let sent = invocation.message.get().map(|message| (**message).clone());
        let context = invocation.context.clone();
        let upstream = Arc::clone(&self.upstream);
        let skill = self.skill.clone();
        let structured = self.structured;
        Box::pin(async move {
            let message = first_message(&skill, sent, input?);
            upstream.forward(message, context, structured).await
        })
    }
}

/// The message the remote is sent: the caller's parts (an A2A caller's message as sent, an MCP
/// caller's text or arguments), naming the remote's skill, in no task or conversation of the
/// host's.
fn first_message(skill: &str, sent: Option<Message>, input: Value) -> Message {
    let parts = match sent {
        Some(message) => message.parts,
        None => match input.get("text").and_then(Value::as_str) {
            Some(text) if input.as_object().is_some_and(|o| o.len() == 1) => vec![Part::text(text)],
            _ => vec![Part::data(input)],
        },
    };
    let mut message = Message::user(parts);
    let mut metadata = serde_json::Map::new();
    metadata.insert("skill".into(), Value::String(skill.to_owned()));
    message.metadata = Some(metadata);
    message
}

/// Where the remote's task stands after one message.
enum Settled {
    /// It reached `state` with this status.
    State(Box<TaskStatus>),
    /// The remote answered with a message and no task.
    Reply(Message),
}

/// The remote's task and conversation, once it named them.
#[derive(Default)]
struct RemoteTask {
    ids: Option<(String, String)>,
    /// Artifacts arriving in chunks, by the remote's artifact id.
    chunks: HashMap<String, ArtifactWriter>,
    /// Whether anything was published into the host's task.
    published: bool,
    /// A structured skill's whole artifacts, held until the task completes.
    held: Option<Vec<Artifact>>,
    /// Whether the remote's task reached a final state (it needs no cancel).
    finished: bool,
}

impl Upstream {
    /// Runs the call: messages to the remote until its task ends, relaying what it reports.
    /// A call that ends without the remote's task ending (the host's task canceled, the remote
    /// failing mid-way, a question it asks too often) cancels the remote's task: a canceled
    /// host task waits for that, a failed call tells its caller first.
    pub(crate) async fn forward(
        self: &Arc<Self>,
        first: Message,
        context: TaskContext,
        structured: bool,
    ) -> SkillResult {
        let client = self.client().await?;
        let mut task = RemoteTask {
            held: structured.then(Vec::new),
            ..RemoteTask::default()
        };
        let run = self.converse(&client, first, &context, &mut task);
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = context.cancelled() => Err(SkillError::new("the call was canceled")),
        };
        if outcome.is_err()
            && !task.finished
            && let Some((id, _)) = task.ids
        {
            if context.is_cancelled() {
                self.cancel(&client, &id).await;
            } else {
                let upstream = Arc::clone(self);
                tokio::spawn(async move { upstream.cancel(&client, &id).await });
            }
        }
        outcome
    }

    async fn converse(
        &self,
        client: &A2aClient,
        first: Message,
        context: &TaskContext,
        task: &mut RemoteTask,
    ) -> SkillResult {
        let mut next = first;
        for _ in 0..MAX_TURNS {
            let settled = self.turn(client, next, context, task).await?;
            let status = match settled {
                Settled::Reply(reply) => return Ok(SkillOutput::Message(reply)),
                Settled::State(status) => status,
            };
            task.finished = status.state.is_terminal();
            let said = status.message.as_ref().and_then(Message::text);
            match status.state {
                TaskState::Completed => return Ok(completed(*status, context, task)),
                TaskState::InputRequired => {
                    let prompt = said.unwrap_or_else(|| "The agent needs more input.".to_owned());
                    next = self.answer(context, prompt, task).await?;
                }
                TaskState::AuthRequired => {
                    return Err(self.refusal(format!(
                        "asks for an authorization the host cannot give: {}",
                        said.unwrap_or_default()
                    )));
                }
                TaskState::Rejected => {
                    return Err(SkillError::rejected(self.named(&said.unwrap_or_default())));
                }
                TaskState::Canceled => return Err(self.refusal("canceled the task".to_owned())),
                _ => {
                    let reason = said.unwrap_or_else(|| "the task failed".to_owned());
                    return Err(self.refusal(reason));
                }
            }
        }
        Err(self.refusal(format!("asked more than {MAX_TURNS} questions in one call")))
    }

    /// Sends `message` and relays what comes back until the remote's task settles.
    async fn turn(
        &self,
        client: &A2aClient,
        message: Message,
        context: &TaskContext,
        task: &mut RemoteTask,
    ) -> Result<Settled, SkillError> {
        if !client.card().capabilities.streaming {
            return self.turn_polled(client, message, context, task).await;
        }
        let mut events = client
            .send_streaming(message)
            .await
            .map_err(|e| self.failed(&e))?;
        for _ in 0..=MAX_RESUBSCRIBES {
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| self.failed(&e))?;
                if let Some(settled) = relay(event, context, task) {
                    return Ok(settled);
                }
            }
            // The stream ended before the task settled: pick the task up again.
            let Some((id, _)) = &task.ids else {
                break;
            };
            events = client.subscribe(id).await.map_err(|e| self.failed(&e))?;
        }
        Err(self.refusal("ended its stream before the task settled".to_owned()))
    }

    /// A turn with a remote that does not stream: the message is sent to return at once, and
    /// the task read again until it settles, so a remote task may run longer than one request
    /// may take; each new status text is relayed as progress.
    async fn turn_polled(
        &self,
        client: &A2aClient,
        message: Message,
        context: &TaskContext,
        task: &mut RemoteTask,
    ) -> Result<Settled, SkillError> {
        let options = SendOptions {
            return_immediately: true,
            ..SendOptions::default()
        };
        let sent = client.send_with(message, options).await;
        let mut remote = match sent.map_err(|e| self.failed(&e))? {
            SendResult::Message(reply) => return Ok(Settled::Reply(reply)),
            SendResult::Task(remote) => *remote,
        };
        let mut pause = FIRST_POLL;
        let mut said = None;
        loop {
            let state = remote.status.state;
            if state.is_terminal() || state.is_interrupted() {
                return Ok(settled_task(remote, context, task));
            }
            task.ids = Some((remote.id.clone(), remote.context_id.clone()));
            let text = remote.status.message.as_ref().and_then(Message::text);
            if text.is_some() && text != said {
                context.progress(text.clone().unwrap_or_default());
                said = text;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(LAST_POLL);
            let read = client.get_task(&remote.id, Some(0)).await;
            remote = read.map_err(|e| self.failed(&e))?;
        }
    }

    /// Asks the host's caller `prompt` and makes the message that answers the remote.
    async fn answer(
        &self,
        context: &TaskContext,
        prompt: String,
        task: &RemoteTask,
    ) -> Result<Message, SkillError> {
        let answered = context.ask_answered::<Value>(prompt).await?;
        let parts = match answered.message {
            Some(message) => message.parts,
            None => match answered.value {
                Value::String(text) => vec![Part::text(text)],
                value => vec![Part::data(value)],
            },
        };
        let mut message = Message::user(parts);
        if let Some((id, conversation)) = &task.ids {
            message.task_id = Some(id.clone());
            message.context_id = Some(conversation.clone());
        }
        Ok(message)
    }
}

/// Relays one event into the host's task; the remote task's status once it settled.
fn relay(event: StreamEvent, context: &TaskContext, task: &mut RemoteTask) -> Option<Settled> {
    match event {
        StreamEvent::Message(reply) => Some(Settled::Reply(reply)),
        StreamEvent::Task(remote) => {
            let settled = remote.status.state.is_terminal() || remote.status.state.is_interrupted();
            let remote = *remote;
            if settled {
                return Some(settled_task(remote, context, task));
            }
            task.ids = Some((remote.id, remote.context_id));
            None
        }
        StreamEvent::Status(update) => {
            task.ids = Some((update.task_id, update.context_id));
            let state = update.status.state;
            if state.is_terminal() || state.is_interrupted() {
                return Some(Settled::State(Box::new(update.status)));
            }
            if let Some(text) = update.status.message.as_ref().and_then(Message::text) {
                context.progress(text);
            }
            None
        }
        StreamEvent::Artifact(update) => {
            task.ids = Some((update.task_id.clone(), update.context_id.clone()));
            publish(update, context, task);
            None
        }
    }
}

/// The remote's task as a blocking send or a stream's snapshot gave it, settled: its artifacts
/// published into the host's task.
fn settled_task(remote: Task, context: &TaskContext, task: &mut RemoteTask) -> Settled {
    task.ids = Some((remote.id, remote.context_id));
    for artifact in remote.artifacts {
        whole(artifact, context, task);
    }
    Settled::State(Box::new(remote.status))
}

/// A whole artifact: held for a structured skill's result, else published.
fn whole(artifact: Artifact, context: &TaskContext, task: &mut RemoteTask) {
    match &mut task.held {
        Some(held) => held.push(artifact),
        None => {
            task.published = true;
            context.artifact(artifact);
        }
    }
}

/// Publishes an artifact (or a chunk of one) into the host's task.
fn publish(update: TaskArtifactUpdate, context: &TaskContext, task: &mut RemoteTask) {
    let TaskArtifactUpdate {
        artifact,
        append,
        last_chunk,
        ..
    } = update;
    if !append && last_chunk {
        whole(artifact, context, task);
        return;
    }
    task.published = true;
    let id = artifact.artifact_id.clone();
    let name = artifact.name.clone().unwrap_or_else(|| id.clone());
    let writer = task
        .chunks
        .entry(id.clone())
        .or_insert_with(|| context.artifact_writer(name));
    for part in artifact.parts {
        writer.append(part);
    }
    if last_chunk && let Some(writer) = task.chunks.remove(&id) {
        writer.finish();
    }
}

/// What a completed remote task gives the host's: a structured skill's one data part as its
/// result; else the parts of its final message, unless its artifacts were published already.
fn completed(status: TaskStatus, context: &TaskContext, task: &mut RemoteTask) -> SkillOutput {
    for (_, writer) in task.chunks.drain() {
        writer.finish();
    }
    if let Some(held) = task.held.take() {
        let mut parts = held.iter().flat_map(|artifact| &artifact.parts);
        if let (Some(only), None) = (parts.next(), parts.next())
            && let PartContent::Data(value) = &only.content
        {
            return SkillOutput::Data(value.clone());
        }
        for artifact in held {
            task.published = true;
            context.artifact(artifact);
        }
    }
    match status.message {
        Some(message) if !task.published && !message.parts.is_empty() => {
            SkillOutput::Parts(message.parts)
        }
        _ => SkillOutput::Empty,
    }
}
