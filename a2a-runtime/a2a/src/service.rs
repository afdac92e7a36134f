//! The binding-neutral A2A service: one typed method per A2A operation, taking and returning the
//! version-neutral model. Request validation and message→skill routing happen here, once, for
//! every binding; JSON-RPC, HTTP+JSON and each protocol version are thin adapters that parse
//! their wire form into these requests and render the results.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::A2aError;
use super::keyed;
use super::push::{PushRegistration, PushSupport};
use super::route;
use a2a_runtime_core::dispatch::{Call, Dispatcher, RegistryRef};
use a2a_runtime_core::observe::{CallKind, CallOutcome, CallRecord};
use a2a_runtime_core::quota::{CallerId, Quotas, StreamSlot};
use a2a_runtime_core::task::{
    Fingerprint, KeyedRequest, ListQuery, PushEdit, StreamItem, TaskEvents, TaskHandle, TaskManager,
};
use a2a_runtime_types::model::{
    A2aVersion, Binding, ByteSize, Message, Protocol, Role, Task, TaskState, TaskView,
};

/// `SendMessage` / `SendStreamingMessage`, in any dialect.
#[derive(Debug)]
pub struct SendRequest {
    pub message: Message,
    /// `configuration.historyLength`, as sent.
    pub history_length: Option<i64>,
    /// `configuration.returnImmediately` (v0.3: `!blocking`).
    pub return_immediately: bool,
    /// A push notification config registered inline.
    pub push_config: Option<PushRegistration>,
    /// Whether the dialect can answer with a message instead of a task (1.0 and 0.3; not the
    /// early draft): a skill that may reply directly then creates no task unless it needs one.
    pub message_reply: bool,
    /// The A2A version the request came in (the skill may ask).
    pub version: A2aVersion,
    /// The binding it came over.
    pub binding: Binding,
}

/// What `SendMessage` answers: the task, or a skill's direct reply (no task was created).
#[derive(Debug)]
pub enum Sent {
    /// The task, as the request's `historyLength` shows it.
    Task(TaskView),
    Message(Arc<Message>),
}

/// `ListTasks`, in any dialect.
#[derive(Debug, Default)]
pub struct ListTasksRequest {
    pub context_id: Option<String>,
    pub state: Option<TaskState>,
    pub page_size: Option<i64>,
    pub page_token: Option<String>,
    pub history_length: Option<i64>,
    pub status_after: Option<DateTime<Utc>>,
    pub include_artifacts: bool,
}

/// One page of `ListTasks`.
#[derive(Debug)]
pub struct TaskList {
    pub tasks: Vec<Task>,
    /// Empty on the last page.
    pub next_page_token: String,
    pub page_size: usize,
    pub total_size: usize,
}

use super::started::Run;
pub use super::started::Started;

/// A streaming send: the task's id and its events.
pub struct Streamed {
    pub task_id: String,
    pub events: TaskEvents,
}

/// Settings the A2A bindings share.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// Whether a JSON-RPC request must carry `A2A-Version`.
    pub require_version_header: bool,
    /// Whether streaming is served; off, the streaming methods are unsupported operations.
    pub streaming: bool,
    /// How often an idle SSE stream gets a keep-alive comment.
    pub sse_keep_alive: Duration,
    /// The most parts one message may hold.
    pub max_message_parts: usize,
    /// The largest part, in bytes of its content.
    pub max_part_bytes: usize,
    /// The largest `ListTasks` page, in bytes.
    pub max_list_bytes: usize,
    /// The agent's cards; the extended one (every skill, `extended_only` ones too) when the
    /// agent has a security scheme to require.
    pub cards: Arc<super::card_cell::LiveCards>,
    /// The extensions on the card; requests must activate the required ones.
    pub extensions: Arc<super::extensions::Extensions>,
}

/// The A2A operations of one agent.
pub struct A2aService {
    pub(super) manager: Arc<TaskManager>,
    dispatcher: Arc<Dispatcher>,
    quotas: Arc<Quotas>,
    pub settings: Settings,
    /// Cancelled when the server shuts down: open streams end so connections can close.
    pub shutdown: CancellationToken,
    /// Push notifications, unless the agent does not deliver them.
    pub push: Option<PushSupport>,
}

/// A validated message: the task it resumed, or the task created for it and the call to run.
struct Accepted {
    task: TaskHandle,
    start: Option<Call>,
}

/// What a send's message led to: a task to follow, or (a keyed repeat that lost the race to
/// its original) the id of the task the original created.
// As `Run`: the large variant is every send's, the small one rare.
#[allow(clippy::large_enum_variant)]
enum Admitted {
    Task(Accepted),
    Repeat(String),
}

impl A2aService {
    pub fn new(
        manager: Arc<TaskManager>,
        dispatcher: Arc<Dispatcher>,
        quotas: Arc<Quotas>,
        settings: Settings,
        shutdown: CancellationToken,
        push: Option<PushSupport>,
    ) -> Self {
        Self {
            manager,
            dispatcher,
            quotas,
            settings,
            shutdown,
            push,
        }
    }

    /// The agent's skills, as they are now.
    pub fn registry(&self) -> RegistryRef<'_> {
        self.dispatcher.registry()
    }

    /// `SendMessage`: starts a task (or resumes the one the message answers) and, unless
    /// `return_immediately`, waits until it is terminal or interrupted.
    pub async fn send(&self, request: SendRequest, caller: &CallerId) -> Result<Sent, A2aError> {
        let sent = self.start(request, caller).await?.result().await?;
        match &sent {
            Sent::Task(view) => note_task(caller, view.task()),
            Sent::Message(reply) => caller.note(|span| {
                span.task_id = None;
                span.context_id = reply.context_id.clone();
            }),
        }
        Ok(sent)
    }

    /// The first half of [`send`](Self::send): the task is started (or resumed) and its id
    /// known; [`Started::result`] waits for it.
    pub async fn start(
        &self,
        request: SendRequest,
        caller: &CallerId,
    ) -> Result<Started, A2aError> {
        let history = history_view(request.history_length, "configuration.historyLength")?;
        note_message(caller, &request.message);
        let return_immediately = request.return_immediately;
        let repeat = |id: String| Started {
            run: Run::Repeat {
                id,
                owner: caller.owner().to_owned(),
                manager: Arc::clone(&self.manager),
            },
            history,
            return_immediately,
        };
        let key = keyed::keyed(caller, || keyed::send_fingerprint(&request))?;
        if let Some(held) = self.repeats(key.as_ref(), &request).await? {
            return Ok(repeat(held));
        }
        // A blocking send tells the task's id only with its settled state, which is stored
        // first; the task need not be stored before then.
        let accepted = match self
            .accept(request, caller, return_immediately, key.as_ref())
            .await?
        {
            Admitted::Task(accepted) => accepted,
            Admitted::Repeat(id) => return Ok(repeat(id)),
        };
        let run = match accepted.start {
            Some(call) if return_immediately => {
                self.manager.run(&accepted.task, call, Vec::new());
                None
            }
            // The caller waits for the task anyway: it drives the run itself.
            Some(call) => Some(self.manager.run_here(&accepted.task, call, Vec::new())),
            None => None,
        };
        Ok(Started {
            run: Run::Here {
                task: accepted.task,
                run,
            },
            history,
            return_immediately,
        })
    }

    /// `SendStreamingMessage`: like [`send`](Self::send), answering the task's events. The first
    /// is the whole task as created; `historyLength` and `returnImmediately` do not apply to
    /// streams (a2a-spec.md §3.6).
    pub async fn send_streaming(
        &self,
        request: SendRequest,
        caller: &CallerId,
    ) -> Result<Streamed, A2aError> {
        self.streams()?;
        history_view(request.history_length, "configuration.historyLength")?;
        note_message(caller, &request.message);
        // Taken first, so a refused stream creates no task.
        let slot = self.quotas.open_stream(caller)?;
        let key = keyed::keyed(caller, || keyed::send_fingerprint(&request))?;
        if let Some(held) = self.repeats(key.as_ref(), &request).await? {
            return self.follow(held, caller, slot).await;
        }
        let mut accepted = match self.accept(request, caller, true, key.as_ref()).await? {
            Admitted::Task(accepted) => accepted,
            Admitted::Repeat(id) => return self.follow(id, caller, slot).await,
        };
        // Subscribed before the skill starts, so the stream holds every event.
        let events = holding(accepted.task.events(&self.manager), slot);
        let reply = accepted.task.replies();
        if let Some(call) = accepted.start {
            self.manager.run(&accepted.task, call, Vec::new());
        }
        let task_id = accepted.task.id().to_owned();
        caller.note(|span| span.task_id = Some(task_id.clone()));
        // A skill that may reply directly: nothing is streamed until it is known whether this
        // is a task (its events, from the first) or one message (the whole stream).
        let events: TaskEvents = match reply {
            None => events,
            Some(reply) => Box::pin(
                futures::stream::once(async move {
                    match reply.await {
                        Some(message) => {
                            futures::stream::iter([StreamItem::Message(message)]).boxed()
                        }
                        None => events,
                    }
                })
                .flatten(),
            ),
        };
        Ok(Streamed { task_id, events })
    }

    /// `GetTask`.
    pub async fn get_task(
        &self,
        id: &str,
        history_length: Option<i64>,
        caller: &CallerId,
    ) -> Result<Task, A2aError> {
        let id = required_id(id, "id")?;
        let history = history_view(history_length, "historyLength")?;
        let task = self.manager.get(id, caller.owner(), history).await?;
        note_task(caller, &task);
        Ok(task)
    }

    /// `ListTasks`: newest status first, `pageSize` 1 to 100 (default 50).
    pub async fn list_tasks(
        &self,
        request: ListTasksRequest,
        caller: &CallerId,
    ) -> Result<TaskList, A2aError> {
        let history = history_view(request.history_length, "historyLength")?;
        let page_size = match request.page_size {
            None => 50,
            Some(n @ 1..=100) => usize::try_from(n).unwrap_or(50),
            Some(n) => {
                return Err(A2aError::invalid_params(
                    "pageSize",
                    format!("must be between 1 and 100, got {n}"),
                ));
            }
        };
        let query = ListQuery {
            owner: Some(caller.owner().to_owned()),
            context_id: request.context_id.filter(|c| !c.is_empty()),
            state: request.state,
            status_after: request.status_after,
            page_size,
            page_token: request.page_token.filter(|t| !t.is_empty()),
            history_length: history,
            without_artifacts: !request.include_artifacts,
            max_bytes: Some(self.settings.max_list_bytes),
            ..ListQuery::default()
        };
        let page = self.manager.list(query).await?;
        Ok(TaskList {
            tasks: page.tasks,
            next_page_token: page.next_page_token.unwrap_or_default(),
            page_size,
            total_size: page.total_size,
        })
    }

    /// `CancelTask`.
    pub async fn cancel_task(&self, id: &str, caller: &CallerId) -> Result<Task, A2aError> {
        let id = required_id(id, "id")?;
        caller.note(|span| span.task_id = Some(id.to_owned()));
        let key = keyed::keyed(caller, || Fingerprint::of("CancelTask").with_str(id))?;
        let task = match key {
            None => self.manager.cancel(id, caller.owner()).await?,
            Some(key) => Box::pin(self.cancel_keyed(id, &key, caller)).await?,
        };
        note_task(caller, &task);
        Ok(task)
    }

    /// Refuses a streaming method when the agent does not stream (its card says so).
    fn streams(&self) -> Result<(), A2aError> {
        if self.settings.streaming {
            return Ok(());
        }
        Err(A2aError::Unsupported(
            "this agent does not stream (capabilities.streaming is false): use SendMessage, and \
             GetTask to follow a task"
                .into(),
        ))
    }

    /// `SubscribeToTask`: a snapshot, then the task's events until it is terminal or
    /// interrupted; a task that already ended is an error, not a stream.
    pub async fn subscribe(&self, id: &str, caller: &CallerId) -> Result<TaskEvents, A2aError> {
        let id = required_id(id, "id")?;
        self.streams()?;
        caller.note(|span| span.task_id = Some(id.to_owned()));
        let slot = self.quotas.open_stream(caller)?;
        Ok(holding(
            self.manager.subscribe(id, caller.owner()).await?,
            slot,
        ))
    }

    /// `GetExtendedAgentCard`: the card with every skill, for authenticated callers only. An
    /// agent without a security scheme has none (`capabilities.extendedAgentCard` is false).
    pub fn extended_agent_card(
        &self,
        caller: &CallerId,
    ) -> Result<Arc<serde_json::Value>, A2aError> {
        let Some(card) = self.settings.cards.current().extended.clone() else {
            return Err(A2aError::Unsupported(
                "this agent has no extended agent card (capabilities.extendedAgentCard is \
                 false: it declares no security scheme)"
                    .into(),
            ));
        };
        if caller.caller().is_anonymous() {
            return Err(A2aError::Unauthenticated(
                "the extended agent card is for authenticated callers".into(),
            ));
        }
        Ok(card)
    }

    /// Checks a user message before anything is written (a2a-spec.md §11.1); a message for an
    /// existing task answers its question, any other is routed to a skill and creates a task.
    /// `store_now`: the task's id is told before it settles, so it is stored at once.
    async fn accept(
        &self,
        request: SendRequest,
        caller: &CallerId,
        store_now: bool,
        key: Option<&KeyedRequest>,
    ) -> Result<Admitted, A2aError> {
        if request.push_config.is_some() && self.push.is_none() {
            return Err(A2aError::PushNotSupported);
        }
        let message = request.message;
        validate(&message, &self.settings)?;
        // The rarer steps are boxed: their futures would make every send's future (moved
        // whole into each box on its way through the router) as large as theirs.
        let push_configs = match request.push_config {
            None => Vec::new(),
            registration => Box::pin(self.inline_push_configs(registration)).await?,
        };
        if let Some(task_id) = message.task_id.clone() {
            let answered = self.accept_answer(&task_id, message, push_configs, caller, key);
            return Box::pin(answered).await.map(Admitted::Task);
        }
        let registry = self.registry();
        let route = route::route(&registry, &message)?;
        // A direct reply needs a skill that may give one and a dialect that can carry it; until
        // the skill shows a task, there is none to store.
        // A keyed request gets a task, stored with its key at once, so it has an outcome to
        // find again.
        let reply = request.message_reply && route.skill.replies() && key.is_none();
        let (protocol, binding) = (Protocol::A2a(request.version), request.binding);
        let meter = self.manager.meter();
        // Authorized before any work, and before the caller's quota is touched.
        let called = Call::new(
            route.skill,
            route.input,
            route.arguments,
            Some(message),
            caller.caller().clone(),
            caller.trace().cloned(),
        );
        let mut call = match called {
            Ok(call) => call.over(protocol).via(binding),
            Err(missing) => {
                let skill = route.skill.id();
                let record = || {
                    CallRecord::begin(
                        CallKind::Skill,
                        skill,
                        protocol,
                        binding,
                        caller.caller().clone(),
                    )
                    .within(caller.trace())
                };
                meter.refused(record, CallOutcome::Forbidden, || missing.to_string());
                return Err(missing.into());
            }
        };
        let slot = match self.quotas.start_task(caller) {
            Ok(slot) => slot,
            Err(busy) => {
                let outcome = CallOutcome::Busy(busy.kind);
                meter.refused(|| call.record(), outcome, || busy.reason.clone());
                return Err(busy.into());
            }
        };
        let created = self.create(&mut call, slot, store_now && !reply, push_configs, key);
        let task = match created.await? {
            Ok(task) => task,
            Err(original) => return Ok(Admitted::Repeat(original)),
        };
        if reply {
            task.expect_reply();
        }
        Ok(Admitted::Task(Accepted {
            task,
            start: Some(call),
        }))
    }

    /// A message for an existing task: the webhooks it registers are added to the task, and
    /// the message answers the task's question.
    async fn accept_answer(
        &self,
        task_id: &str,
        message: Message,
        push_configs: Vec<a2a_runtime_types::model::PushConfig>,
        caller: &CallerId,
        key: Option<&KeyedRequest>,
    ) -> Result<Accepted, A2aError> {
        for config in push_configs {
            let limit = self.push.as_ref().map_or(0, |p| p.max_configs);
            let edit = PushEdit::Set { config, limit };
            self.manager
                .edit_push_configs(task_id, caller.owner(), edit)
                .await?;
        }
        let task = self.manager.resume(task_id, message, caller).await?;
        if let Some(key) = key {
            self.manager.claim_change(key, task_id, None).await?;
        }
        Ok(Accepted { task, start: None })
    }
}

/// `events`, keeping the stream's quota slot until the stream is dropped.
pub(super) fn holding(events: TaskEvents, slot: StreamSlot) -> TaskEvents {
    Box::pin(events.inspect(move |_| {
        let _held = &slot;
    }))
}

fn validate(message: &Message, settings: &Settings) -> Result<(), A2aError> {
    if message.role != Role::User {
        return Err(A2aError::invalid_params(
            "message.role",
            "must be ROLE_USER",
        ));
    }
    if message.message_id.is_empty() {
        return Err(A2aError::invalid_params(
            "message.messageId",
            "must not be empty",
        ));
    }
    if message.parts.is_empty() {
        return Err(A2aError::invalid_params(
            "message.parts",
            "must hold at least one part",
        ));
    }
    if message.parts.len() > settings.max_message_parts {
        return Err(A2aError::invalid_params(
            "message.parts",
            format!(
                "holds {} parts; this server accepts at most {} per message",
                message.parts.len(),
                settings.max_message_parts
            ),
        ));
    }
    for (index, part) in message.parts.iter().enumerate() {
        let size = part.byte_size();
        if size > settings.max_part_bytes {
            return Err(A2aError::invalid_params(
                format!("message.parts[{index}]"),
                format!(
                    "is about {size} bytes; this server accepts parts of at most {} bytes",
                    settings.max_part_bytes
                ),
            ));
        }
    }
    Ok(())
}

/// `historyLength`: unset keeps all, 0 none, N the N most recent messages.
fn history_view(value: Option<i64>, field: &str) -> Result<Option<usize>, A2aError> {
    match value {
        None => Ok(None),
        Some(n) if n < 0 => Err(A2aError::invalid_params(
            field,
            format!("must be zero or positive, got {n}"),
        )),
        Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
    }
}

/// Reads an RFC 3339 timestamp parameter.
/// Notes the message a request sends, for its span.
fn note_message(caller: &CallerId, message: &Message) {
    caller.note(|span| {
        span.message_id = Some(message.message_id.clone());
        span.task_id.clone_from(&message.task_id);
        span.context_id.clone_from(&message.context_id);
    });
}

/// Notes the task a request answers with, for its span.
fn note_task(caller: &CallerId, task: &Task) {
    caller.note(|span| {
        span.task_id = Some(task.id.clone());
        span.task_state = Some(task.status.state);
        span.context_id = Some(task.context_id.clone());
    });
}

pub fn parse_timestamp(field: &str, value: &str) -> Result<DateTime<Utc>, A2aError> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| A2aError::invalid_params(field, format!("is not an RFC 3339 timestamp: {e}")))
}

/// A task id the request must name: an empty one is the same mistake as a missing one, and is
/// answered as invalid params naming `field` on every binding (gRPC's proto3 sends a missing
/// string as empty, so no binding can tell them apart).
pub(crate) fn required_id<'a>(id: &'a str, field: &str) -> Result<&'a str, A2aError> {
    if id.is_empty() {
        return Err(A2aError::invalid_params(field, "is required"));
    }
    Ok(id)
}
