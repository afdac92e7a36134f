//! The agent A2A test kits (TCKs) drive: what it does is chosen by the incoming message, so one
//! agent can play every scenario a kit checks (a task that completes, fails, waits for input
//! or authorization, keeps asking until told `done`, is rejected, answers with a message
//! alone, produces each kind of artifact, streams, runs a while, or holds until canceled).
//! Two corpora name scenarios two ways: the conformance corpus (ACTS) by the first text part,
//! which starts with the behaviour's name (`tck-task-failure …`), and the earlier TCK by the
//! `messageId`'s prefix, longest first. Written with the macros only: no protocol code.
//! `tests/a2a_scenarios.rs` drives it with the official Python `a2a-sdk` client on every
//! binding. `--no-streaming` serves the reduced card (no streaming) a kit's second pass checks.

mod command_line;

use std::time::Duration;

use a2a_runtime::model::{A2aVersion, PartContent, Protocol};
use a2a_runtime::prelude::*;
use serde_json::json;

pub use command_line::serve_from_command_line;

/// Plays the scenarios of A2A test kits, chosen by the message id's prefix.
#[agent(name = "A2A Scenarios")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Scenarios;

/// What a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Completes with "Hello from TCK".
    CompleteTask,
    /// Waits in INPUT_REQUIRED for a follow-up message, and again after each follow-up whose
    /// `messageId` carries the scenario's own prefix (the TCK's history checks send two such
    /// follow-ups and read the task between them); completes on any other follow-up.
    InputRequired,
    /// Answers with a message; no task is created.
    MessageResponse,
    /// Ends REJECTED.
    RejectTask,
    /// Ends FAILED.
    TaskFailure,
    /// Waits in AUTH_REQUIRED (for an authorization that arrives out of band).
    AuthRequired,
    /// Asks for more input until the caller says `done`, then completes.
    MultiTurn,
    /// Stays WORKING until the task is canceled.
    HoldUntilCanceled,
    /// Works for [`DELAYED_WORK`], then leaves an artifact and completes.
    Delayed,
    /// A text artifact.
    ArtifactText,
    /// A file artifact with inline bytes.
    ArtifactFile,
    /// A file artifact by URL.
    ArtifactFileUrl,
    /// A data artifact.
    ArtifactData,
    /// WORKING, then a text artifact, then COMPLETED, each a stream event of its own.
    StreamText,
    /// WORKING, then a file artifact, then COMPLETED.
    StreamFile,
    /// Completes straight away.
    StreamDirect,
    /// One artifact in two chunks: "chunk-1 ", then "chunk-2" (append, last chunk).
    StreamChunked,
    /// Stays WORKING for [`LONG_RUN`], then completes: time to drop the stream and resubscribe.
    LongRunning,
    /// Anything else: over A2A 1.0 (and MCP) completes at once; over A2A 0.3 stays WORKING for
    /// [`UNKNOWN_WORK`], then asks for input, and asks again after every follow-up (until the
    /// task is canceled), as the 0.3 test kits' reference agent does, so a kit can continue,
    /// cancel and read the history of the task it just created, however many turns it sends.
    Default,
}

/// How long a 0.3 message that names no scenario keeps its task WORKING before asking.
pub const UNKNOWN_WORK: Duration = Duration::from_secs(3);

/// How long the resubscription scenario keeps its task WORKING.
pub const LONG_RUN: Duration = Duration::from_secs(10);

/// How long `tck-long-running` works before it completes: long enough for a caller polling
/// every second or two to see it WORKING, short enough not to slow a run down.
pub const DELAYED_WORK: Duration = Duration::from_secs(1);

/// The `messageId` prefix that selects [`Scenario::InputRequired`]; a follow-up carrying it is
/// asked again.
const INPUT_REQUIRED: &str = "tck-input-required";

/// The word that ends a multi-turn conversation.
const DONE: &str = "done";

/// The behaviours the conformance corpus names in a message's first text part.
const NAMES: &[(&str, Scenario)] = &[
    ("tck-complete-task", Scenario::CompleteTask),
    ("tck-task-failure", Scenario::TaskFailure),
    ("tck-reject-task", Scenario::RejectTask),
    ("tck-input-required", Scenario::InputRequired),
    ("tck-auth-required", Scenario::AuthRequired),
    ("tck-multi-turn", Scenario::MultiTurn),
    ("tck-cancel", Scenario::HoldUntilCanceled),
    ("tck-long-running", Scenario::Delayed),
    ("tck-message-response", Scenario::MessageResponse),
    ("tck-stream-basic", Scenario::StreamText),
    ("tck-stream-chunked", Scenario::StreamChunked),
    ("tck-artifact-text", Scenario::ArtifactText),
    ("tck-artifact-data", Scenario::ArtifactData),
    ("tck-artifact-file", Scenario::ArtifactFile),
    ("tck-artifact-file-url", Scenario::ArtifactFileUrl),
];

/// The prefixes, longest first wherever one starts another (`tck-artifact-file-url` before
/// `tck-artifact-file`, `tck-stream-artifact-…` before `tck-stream-…`).
const PREFIXES: &[(&str, Scenario)] = &[
    ("tck-stream-artifact-chunked", Scenario::StreamChunked),
    ("tck-stream-artifact-text", Scenario::StreamText),
    ("tck-stream-artifact-file", Scenario::StreamFile),
    ("tck-stream-ordering-001", Scenario::StreamText),
    ("tck-stream-001", Scenario::StreamText),
    ("tck-stream-002", Scenario::StreamDirect),
    ("tck-stream-003", Scenario::StreamText),
    ("tck-artifact-file-url", Scenario::ArtifactFileUrl),
    ("tck-artifact-file", Scenario::ArtifactFile),
    ("tck-artifact-text", Scenario::ArtifactText),
    ("tck-artifact-data", Scenario::ArtifactData),
    ("tck-message-response", Scenario::MessageResponse),
    (INPUT_REQUIRED, Scenario::InputRequired),
    ("tck-complete-task", Scenario::CompleteTask),
    ("tck-reject-task", Scenario::RejectTask),
    ("test-resubscribe-message-id", Scenario::LongRunning),
];

/// What a message asks for: a behaviour its first text part names, else its id's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected {
    /// A scenario this agent plays.
    Play(Scenario),
    /// A `tck-…` name this agent does not know: the task fails saying so, rather than passing
    /// for a behaviour it never showed.
    Unknown(String),
}

impl Selected {
    /// What `message` asks for.
    pub fn of(message: &Message) -> Self {
        match named_in(message) {
            Some(name) => NAMES
                .iter()
                .find(|(known, _)| *known == name)
                .map_or_else(|| Self::Unknown(name.to_owned()), |(_, s)| Self::Play(*s)),
            None => Self::Play(Scenario::of(&message.message_id)),
        }
    }
}

/// The behaviour a message's first text part starts with: `tck-` and hyphen-joined lowercase
/// words, up to the first character that is none of those.
fn named_in(message: &Message) -> Option<&str> {
    let text = message.parts.iter().find_map(|part| match &part.content {
        PartContent::Text(text) => Some(text.trim_start()),
        _ => None,
    })?;
    let rest = text.strip_prefix("tck-")?;
    let end = rest
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
        .unwrap_or(rest.len());
    let name = text[..4 + end].trim_end_matches('-');
    (name.len() > 4).then_some(name)
}

impl Scenario {
    /// The scenario a message id selects.
    pub fn of(message_id: &str) -> Self {
        PREFIXES
            .iter()
            .filter(|(prefix, _)| message_id.starts_with(prefix))
            .max_by_key(|(prefix, _)| prefix.len())
            .map_or(Scenario::Default, |(_, scenario)| *scenario)
    }
}

fn text_artifact(text: &str) -> Artifact {
    Artifact::new(vec![Part::text(text)]).with_name("text")
}

fn file_artifact() -> Artifact {
    let mut part = Part::raw(b"Generated file content".to_vec(), "text/plain");
    part.filename = Some("output.txt".into());
    Artifact::new(vec![part]).with_name("output.txt")
}

/// Play the scenario the message names (any text is accepted).
#[skill(agent = Scenarios, default, examples = ["hello"])]
pub async fn scenario(
    message: IncomingMessage,
    ctx: TaskContext,
) -> Result<SkillOutput, SkillError> {
    let scenario = match Selected::of(&message) {
        Selected::Play(scenario) => scenario,
        Selected::Unknown(name) => {
            return Err(SkillError::new(format!(
                "this agent does not implement the behaviour `{name}`"
            )));
        }
    };
    let output = match scenario {
        Scenario::CompleteTask => SkillOutput::Text("Hello from TCK".into()),
        Scenario::MessageResponse => {
            SkillOutput::Message(Message::agent_text("Direct message response"))
        }
        Scenario::RejectTask => {
            return Err(SkillError::rejected("Task rejected by the TCK scenario"));
        }
        Scenario::InputRequired => until_other_follow_up(&ctx).await?,
        Scenario::TaskFailure => return Err(SkillError::new("Task failed by the TCK scenario")),
        Scenario::AuthRequired => {
            let prompt = format!("Authorize task {} to continue", ctx.task_id());
            ctx.require_auth(prompt).await?;
            SkillOutput::Text("Authorized".into())
        }
        Scenario::MultiTurn => {
            let mut turns = 0;
            loop {
                let said = ctx.ask::<String>("More input, or `done` to finish").await?;
                turns += 1;
                if said.trim().to_ascii_lowercase().starts_with(DONE) {
                    break SkillOutput::Text(format!("Multi-turn complete after {turns} turns"));
                }
            }
        }
        Scenario::HoldUntilCanceled => {
            ctx.progress("Working until canceled");
            ctx.cancelled().await;
            return Err(SkillError::new("canceled"));
        }
        Scenario::Delayed => {
            ctx.progress("Working for a while");
            a2a_runtime::tokio::select! {
                () = a2a_runtime::tokio::time::sleep(DELAYED_WORK) => {}
                () = ctx.cancelled() => return Err(SkillError::new("canceled")),
            }
            ctx.artifact(text_artifact("Long running result"));
            SkillOutput::Text("Long running work finished".into())
        }
        Scenario::ArtifactText => SkillOutput::Artifact(text_artifact("Generated text content")),
        Scenario::ArtifactFile => SkillOutput::Artifact(file_artifact()),
        Scenario::ArtifactFileUrl => {
            let mut part = Part::url("https://example.com/output.txt");
            part.filename = Some("output.txt".into());
            part.media_type = Some("text/plain".into());
            SkillOutput::Artifact(Artifact::new(vec![part]).with_name("output.txt"))
        }
        Scenario::ArtifactData => SkillOutput::Artifact(
            Artifact::new(vec![Part::data(json!({"key": "value", "count": 42}))]).with_name("data"),
        ),
        Scenario::StreamText | Scenario::StreamFile => {
            // Each step is an event of its own: WORKING (with a message), the artifact, then
            // COMPLETED when the skill returns.
            ctx.progress("Working on it");
            ctx.artifact(if scenario == Scenario::StreamFile {
                file_artifact()
            } else {
                text_artifact("Streamed text content")
            });
            SkillOutput::Empty
        }
        Scenario::StreamDirect => SkillOutput::Text("Done".into()),
        Scenario::StreamChunked => {
            ctx.progress("Streaming chunks");
            let mut writer = ctx.artifact_writer("chunked");
            writer.append("chunk-1 ");
            writer.finish_with("chunk-2");
            SkillOutput::Empty
        }
        Scenario::LongRunning => {
            // Shown as a task at once, so the caller has an id to resubscribe with.
            ctx.progress("Running for a while");
            a2a_runtime::tokio::select! {
                () = a2a_runtime::tokio::time::sleep(LONG_RUN) => {}
                () = ctx.cancelled() => return Err(SkillError::new("canceled")),
            }
            SkillOutput::Text("Finished after a long run".into())
        }
        Scenario::Default if ctx.protocol() == Protocol::A2a(A2aVersion::V0_3) => {
            ctx.progress("Working on it");
            a2a_runtime::tokio::select! {
                () = a2a_runtime::tokio::time::sleep(UNKNOWN_WORK) => {}
                () = ctx.cancelled() => return Err(SkillError::new("canceled")),
            }
            return Err(ask_after_every_follow_up(&ctx).await);
        }
        Scenario::Default => SkillOutput::Text(match message.text() {
            Some(text) => format!("Received: {text}"),
            None => "Received".into(),
        }),
    };
    Ok(output)
}

/// Asks for more input until a follow-up arrives whose `messageId` does not carry the
/// scenario's prefix, and completes with that one, naming it.
async fn until_other_follow_up(ctx: &TaskContext) -> Result<SkillOutput, SkillError> {
    let mut prompt = String::from("Please provide more input");
    loop {
        let answer = ctx.ask_answered::<String>(prompt).await?;
        let id = answer.message.map(|m| m.message_id).unwrap_or_default();
        let received = format!("Received follow-up: {} (message {id})", answer.value);
        if !id.starts_with(INPUT_REQUIRED) {
            return Ok(SkillOutput::Text(received));
        }
        prompt = format!("{received}; please provide more input");
    }
}

/// Asks for input, and again after every follow-up, each question naming the follow-up it
/// follows; ends only when the task does (canceled, or the question refused).
async fn ask_after_every_follow_up(ctx: &TaskContext) -> SkillError {
    let mut prompt = String::from("Please provide more input");
    loop {
        match ctx.ask_answered::<String>(prompt).await {
            Ok(answer) => {
                let id = answer.message.map(|m| m.message_id).unwrap_or_default();
                prompt = format!(
                    "Received follow-up: {} (message {id}); please provide more input",
                    answer.value
                );
            }
            Err(error) => return error.into(),
        }
    }
}
