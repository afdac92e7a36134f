//! [`TaskContext`]: what a running skill can ask of the runtime.

use crate::auth::Caller;
use a2a_runtime_types::TraceContext;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::ask::{Answered, AskError, Asker, Asking, QuestionSet, Root, Sampled, Sampling};
use crate::skill_error::SkillError;
use a2a_runtime_types::model::{A2aVersion, Artifact, Message, Part, Protocol, new_id};
use a2a_runtime_types::util::BoxFuture;

/// A report from a running skill, before a protocol renders it.
#[derive(Debug, Clone)]
pub enum Update {
    /// Progress: a message, a count, or both.
    Progress(Progress),
    /// An artifact or one chunk of it.
    Artifact {
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    },
}

/// How far a skill has come.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub message: Option<String>,
    pub done: Option<u64>,
    pub total: Option<u64>,
}

impl Progress {
    /// The text shown to A2A clients: the message, else `done/total`.
    pub fn text(&self) -> String {
        match (&self.message, self.done, self.total) {
            (Some(message), _, _) => message.clone(),
            (None, Some(done), Some(total)) => format!("{done}/{total}"),
            (None, Some(done), None) => done.to_string(),
            (None, None, _) => String::new(),
        }
    }
}

/// Where a skill's reports go: the task (and its subscribers) for A2A, progress notifications and
/// the result content for MCP. Implementations must not block: skills call them synchronously.
pub trait UpdateSink: Send + Sync {
    fn update(&self, update: &Update);
}

/// The earlier messages of a call's conversation, read when the skill asks for them.
pub trait Conversation: Send + Sync {
    fn history(&self) -> BoxFuture<'_, Vec<Message>>;
}

/// Injected into skills that take a `TaskContext` parameter: the task's identity, progress and
/// artifact reporting, and its cancellation signal. The same calls work whether the skill was
/// started over A2A or MCP.
///
/// Reports never block the skill: a subscriber that cannot keep up is resynchronized, not waited
/// for. Reports made after the task ended (for example after a cancel) are ignored.
#[derive(Clone)]
pub struct TaskContext {
    inner: Arc<Inner>,
}

struct Inner {
    task_id: String,
    context_id: String,
    skill_id: &'static str,
    cancel: CancellationToken,
    sinks: Vec<Arc<dyn UpdateSink>>,
    asker: Option<Arc<dyn Asker>>,
    conversation: Option<Arc<dyn Conversation>>,
    reference_task_ids: Vec<String>,
    caller: Caller,
    trace: Option<TraceContext>,
    protocol: Protocol,
    charge: Option<crate::quota::Charge>,
    idempotency_key: Option<Arc<str>>,
}

/// Assembles a [`TaskContext`] for one call.
pub struct ContextBuilder {
    inner: Inner,
}

impl ContextBuilder {
    /// Adds a destination for the skill's reports.
    pub fn sink(mut self, sink: Arc<dyn UpdateSink>) -> Self {
        self.inner.sinks.push(sink);
        self
    }

    /// Adds destinations for the skill's reports.
    pub fn sinks(mut self, sinks: impl IntoIterator<Item = Arc<dyn UpdateSink>>) -> Self {
        self.inner.sinks.extend(sinks);
        self
    }

    /// Sets where the skill's questions go; without one, asking fails as unsupported.
    pub fn asker(mut self, asker: Option<Arc<dyn Asker>>) -> Self {
        self.inner.asker = asker;
        self
    }

    /// Sets where the conversation's earlier messages come from.
    pub fn conversation(mut self, conversation: Arc<dyn Conversation>) -> Self {
        self.inner.conversation = Some(conversation);
        self
    }

    /// Sets who the call runs for.
    pub fn caller(mut self, caller: Caller) -> Self {
        self.inner.caller = caller;
        self
    }

    /// Sets the trace the call runs in.
    pub fn trace(mut self, trace: Option<TraceContext>) -> Self {
        self.inner.trace = trace;
        self
    }

    /// Sets the protocol the call came over.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.inner.protocol = protocol;
        self
    }

    /// Sets the quota the skill's extra work is charged to.
    pub fn charge(mut self, charge: Option<crate::quota::Charge>) -> Self {
        self.inner.charge = charge;
        self
    }

    /// Sets the idempotency key of the request that created the task.
    pub fn idempotency_key(mut self, key: Option<Arc<str>>) -> Self {
        self.inner.idempotency_key = key;
        self
    }

    /// Sets the tasks the request referred to.
    pub fn references(mut self, ids: Vec<String>) -> Self {
        self.inner.reference_task_ids = ids;
        self
    }

    pub fn build(self) -> TaskContext {
        TaskContext {
            inner: Arc::new(self.inner),
        }
    }
}

impl fmt::Debug for TaskContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskContext")
            .field("task_id", &self.inner.task_id)
            .field("context_id", &self.inner.context_id)
            .field("skill_id", &self.inner.skill_id)
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl TaskContext {
    pub fn builder(
        task_id: String,
        context_id: String,
        skill_id: &'static str,
        cancel: CancellationToken,
    ) -> ContextBuilder {
        ContextBuilder {
            inner: Inner {
                task_id,
                context_id,
                skill_id,
                cancel,
                sinks: Vec::new(),
                asker: None,
                conversation: None,
                reference_task_ids: Vec::new(),
                caller: Caller::anonymous(),
                trace: None,
                protocol: Protocol::A2a(A2aVersion::V1_0),
                charge: None,
                idempotency_key: None,
            },
        }
    }

    /// The W3C Trace Context (`traceparent`, `tracestate`) of the request that started the
    /// call, to send on with calls the skill makes, so they join the caller's trace.
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.inner.trace.as_ref()
    }

    /// The idempotency key the client sent with the request that created this task (an A2A
    /// `Idempotency-Key` header, an MCP tool call's `_meta`), if it sent one; the same after a
    /// restart resumes the task. A repeat of that request returns this task instead of
    /// running the skill again, but a skill interrupted by a crash runs again when its task
    /// resumes: one with side effects outside the task (a payment, a booking) passes this key
    /// on to the service it calls (most accept one), so the second run does not repeat them.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.inner.idempotency_key.as_deref()
    }

    /// Who the call runs for: the authenticated caller that started the task (anonymous
    /// without authentication).
    pub fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// The protocol the call came over: A2A in one of its versions, or MCP. Skills serve every
    /// protocol alike; this is for the rare one that must answer a generation of clients as it
    /// expects (the behaviour a version's test kit checks, say).
    pub fn protocol(&self) -> Protocol {
        self.inner.protocol
    }

    /// The id of the task this call runs in. Over MCP a plain `tools/call` has no task; this is
    /// then a fresh id unique to the call.
    pub fn task_id(&self) -> &str {
        &self.inner.task_id
    }

    /// The conversation (A2A `contextId`) this call belongs to.
    pub fn context_id(&self) -> &str {
        &self.inner.context_id
    }

    /// The id of the running skill.
    pub fn skill_id(&self) -> &'static str {
        self.inner.skill_id
    }

    /// Reports progress as a message. A2A subscribers see a `TASK_STATE_WORKING` status update
    /// carrying it; MCP clients that sent a progress token get `notifications/progress`.
    pub fn progress(&self, message: impl Into<String>) {
        self.emit(&Update::Progress(Progress {
            message: Some(message.into()),
            ..Progress::default()
        }));
    }

    /// Reports progress as a count: `done` of `total` steps. MCP progress must grow, so over MCP
    /// a count that does not exceed the last one sent is not forwarded (A2A still sees it).
    pub fn progress_of(&self, done: u64, total: u64) {
        self.emit(&Update::Progress(Progress {
            message: None,
            done: Some(done),
            total: Some(total),
        }));
    }

    /// Reports progress as a count with a message, like [`progress_of`](Self::progress_of).
    pub fn progress_with(&self, done: u64, total: u64, message: impl Into<String>) {
        self.emit(&Update::Progress(Progress {
            message: Some(message.into()),
            done: Some(done),
            total: Some(total),
        }));
    }

    /// Publishes a complete artifact now, before the skill returns. Over A2A it is streamed as
    /// an artifact update and kept on the task; over MCP its parts join the result content.
    pub fn artifact(&self, artifact: impl Into<Artifact>) {
        self.emit(&Update::Artifact {
            artifact: artifact.into(),
            append: false,
            last_chunk: true,
        });
    }

    /// Starts an artifact sent in chunks under one stable `artifactId`: each
    /// [`append`](ArtifactWriter::append) is streamed as it is made.
    pub fn artifact_writer(&self, name: impl Into<String>) -> ArtifactWriter {
        ArtifactWriter {
            context: self.clone(),
            artifact_id: new_id(),
            name: name.into(),
            started: false,
        }
    }

    /// Asks the caller for a `T` and waits for the answer; the skill holds no thread meanwhile.
    ///
    /// Over A2A the task becomes `TASK_STATE_INPUT_REQUIRED` with `prompt` as its status message
    /// (plus a data part holding `T`'s JSON Schema, media type `application/schema+json`); the
    /// next message the client sends on the task is the answer. Over MCP the client is asked
    /// with an elicitation form (an input-required result on protocol 2026-07-28, an
    /// `elicitation/create` request before it).
    ///
    /// An answer that is not a `T` is not an error: the question is asked again, naming what was
    /// wrong. A message answer is read from its first data part, else from its text (as a
    /// string, then as JSON, so `3` answers a number question).
    ///
    /// # Errors
    ///
    /// No answer within the server's input timeout (the task then fails), too many calls
    /// already waiting, a caller that cannot answer questions, a declined question, or a
    /// canceled call. Each converts into a [`SkillError`] for `?`.
    pub async fn ask<T>(&self, prompt: impl Into<String>) -> Result<T, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking().input(None, prompt.into()).await
    }

    /// [`ask`](Self::ask), returning the follow-up message that answered too (over A2A): its
    /// id, metadata and parts, for a skill that must tell an answer from a new request.
    ///
    /// # Errors
    ///
    /// As for [`ask`](Self::ask).
    pub async fn ask_answered<T>(&self, prompt: impl Into<String>) -> Result<Answered<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking().answered(None, prompt.into(), true).await
    }

    /// Asks for an answer matching `schema`, a JSON Schema known only at run time (a question a
    /// remote server put to the host, relayed to the host's caller); the answer as JSON, with
    /// the A2A message that gave it. The caller's form follows the schema; the answer is not
    /// checked against it here (whoever wrote the schema checks it).
    ///
    /// # Errors
    ///
    /// As for [`ask`](Self::ask).
    pub async fn ask_schema(
        &self,
        prompt: impl Into<String>,
        schema: serde_json::Value,
    ) -> Result<Answered<serde_json::Value>, AskError> {
        let question = crate::ask::Question::input(prompt.into(), schema);
        self.asking().answered_to(question, true).await
    }

    /// [`ask`](Self::ask), with a name for the question: MCP clients (2026-07-28 input
    /// requests, the tasks extension) see it as the key of the request and answer under it,
    /// so a client that expects a known key (`"user_name"`) finds it. A2A is unaffected.
    ///
    /// # Errors
    ///
    /// As for [`ask`](Self::ask).
    pub async fn ask_named<T>(
        &self,
        name: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Result<T, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking().input(Some(name.into()), prompt.into()).await
    }

    /// Asks several things at once and waits for all the answers: a tuple of [`Input`](crate::Input)
    /// questions, [`Sampling`] requests and [`ListRoots`](crate::ListRoots), answered with the tuple of their
    /// outputs (or a `Vec` of items of one kind, answered with a `Vec`).
    ///
    /// ```no_run
    /// # use a2a_runtime_core::ask::{AskError, Input, ListRoots, Sampling};
    /// # use a2a_runtime_core::context::TaskContext;
    /// # #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// # struct Name { first: String }
    /// # async fn greet(ctx: &TaskContext) -> Result<(), AskError> {
    /// let (name, greeting, roots) = ctx
    ///     .ask_all((
    ///         Input::<Name>::new("What is your name?").named("user_name"),
    ///         Sampling::new("Generate a greeting").named("greeting"),
    ///         ListRoots::new().named("client_roots"),
    ///     ))
    ///     .await?;
    /// # let _ = (name.first, greeting, roots);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// An MCP client on protocol 2026-07-28 gets every item in one input-required result (one
    /// input request each) and answers them in one retry; a retry that leaves some unanswered
    /// is asked for those again. Other callers get the items one after another: an A2A task
    /// waits in `TASK_STATE_INPUT_REQUIRED` once per question. As with [`ask`](Self::ask), an
    /// answer that is not of its item's type is asked for again, naming what was wrong, while
    /// the usable answers are kept.
    ///
    /// # Errors
    ///
    /// As for [`ask`](Self::ask), [`sample`](Self::sample) and [`roots`](Self::roots), for
    /// whichever item fails first; two items with the same name are refused before anything
    /// is asked.
    pub async fn ask_all<S: QuestionSet>(&self, set: S) -> Result<S::Output, AskError> {
        self.asking().ask_all(set).await
    }

    /// Pauses until the runtime is told that the authorization this call needs has been
    /// granted, and returns the credential it was given (see
    /// [`Tasks::authorize`](crate::Tasks::authorize)).
    ///
    /// Over A2A the task becomes `TASK_STATE_AUTH_REQUIRED` with `explanation` as its status
    /// message; the credential arrives out of band (for example through an OAuth callback the
    /// application serves), so put what the user must do, and `ctx.task_id()`, in the
    /// explanation. Reaching this state authorizes nothing by itself.
    ///
    /// # Errors
    ///
    /// As for [`ask`](Self::ask). A plain MCP `tools/call` cannot wait for authorization, so
    /// there it fails at once as unsupported; MCP calls made as tasks wait like A2A tasks.
    pub async fn require_auth(
        &self,
        explanation: impl Into<String>,
    ) -> Result<serde_json::Value, AskError> {
        self.asking().require_auth(explanation.into()).await
    }

    /// The earlier messages of this conversation (its A2A `contextId`), oldest first and newest
    /// last: the messages of the context's earlier tasks, in the order those tasks were
    /// created. This task's own messages are not included; the skill has them already. At most
    /// the server's history limit is returned, the newest kept. Empty over plain MCP calls.
    pub async fn history(&self) -> Vec<Message> {
        match &self.inner.conversation {
            Some(conversation) => conversation.history().await,
            None => Vec::new(),
        }
    }

    /// The tasks the request referred to (A2A `referenceTaskIds`), as sent.
    pub fn reference_task_ids(&self) -> &[String] {
        &self.inner.reference_task_ids
    }

    /// Asks the caller's model for a completion (MCP sampling) and waits for it.
    ///
    /// Only an MCP client that declared the `sampling` capability can answer, on a 2025-era
    /// session; A2A callers and other MCP clients get [`AskError::Unsupported`], saying why.
    ///
    /// # Errors
    ///
    /// No model to ask, the client refused or failed, or the call was canceled.
    pub async fn sample(&self, request: Sampling) -> Result<Sampled, AskError> {
        self.asking().sample(request).await
    }

    /// The roots the caller shares (MCP roots: directories or files, usually `file://` URIs,
    /// the agent may work within), asked for again on every call.
    ///
    /// # Errors
    ///
    /// [`AskError::Unsupported`] unless the caller is an MCP client that declared the `roots`
    /// capability (on a 2025-era session); the client's failure to answer.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.asking().roots().await
    }

    /// Where this call's questions go.
    fn asking(&self) -> Asking<'_> {
        Asking::new(self.inner.asker.as_ref(), &self.inner.cancel)
    }

    /// Charges `cost` more to the caller's rate of new tasks (`--tasks-per-second-per-caller`
    /// and its burst), for work the skill fans out on the caller's behalf: a message to many
    /// recipients, a batch of lookups. [`Busy`](crate::quota::Busy) (which `?` turns into the
    /// skill's error) when the rate cannot cover it, saying when to retry. A call with no
    /// quota (one the application makes itself) is never refused.
    pub fn spend(&self, cost: u32) -> Result<(), crate::quota::Busy> {
        self.inner
            .charge
            .as_ref()
            .map_or(Ok(()), |charge| charge.spend(cost))
    }

    /// Whether the caller asked to cancel this call.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the caller asks to cancel this call. Use it in `tokio::select!` to stop
    /// long work early; a skill that ignores it is stopped after the server's grace period.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// `Err` with a cancellation error if the call was cancelled, for use with `?` between steps.
    pub fn check_cancelled(&self) -> Result<(), SkillError> {
        if self.is_cancelled() {
            Err(SkillError::new("the task was canceled"))
        } else {
            Ok(())
        }
    }

    pub fn cancel_token(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    fn emit(&self, update: &Update) {
        for sink in &self.inner.sinks {
            sink.update(update);
        }
    }
}

/// An artifact sent in chunks, made by [`TaskContext::artifact_writer`]. A2A clients receive
/// each chunk as an artifact update (`append` after the first, `lastChunk` on the last); the
/// task keeps the whole artifact. Dropping the writer without finishing leaves the artifact as
/// sent so far.
#[derive(Debug)]
pub struct ArtifactWriter {
    context: TaskContext,
    artifact_id: String,
    name: String,
    started: bool,
}

impl ArtifactWriter {
    /// The artifact's id, the same on every chunk.
    pub fn id(&self) -> &str {
        &self.artifact_id
    }

    /// Sends one chunk.
    pub fn append(&mut self, part: impl Into<Part>) {
        self.send(part.into(), false);
    }

    /// Sends the last chunk.
    pub fn finish_with(mut self, part: impl Into<Part>) {
        self.send(part.into(), true);
    }

    /// Marks the artifact complete. An update must carry a part, so this sends an empty text
    /// part with `lastChunk`; nothing is sent if no chunk was.
    pub fn finish(mut self) {
        if self.started {
            self.send(Part::text(""), true);
        }
    }

    fn send(&mut self, part: Part, last_chunk: bool) {
        let mut artifact = Artifact::new(vec![part]).with_name(self.name.clone());
        artifact.artifact_id.clone_from(&self.artifact_id);
        let append = std::mem::replace(&mut self.started, true);
        self.context.emit(&Update::Artifact {
            artifact,
            append,
            last_chunk,
        });
    }
}
