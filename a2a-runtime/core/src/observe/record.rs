//! The records observers receive.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::auth::Caller;
use crate::quota::BusyKind;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::{Binding, Protocol, TaskState};

/// The agent of a record before its meter names it: one shared empty name, not an
/// allocation per record.
fn unnamed() -> Arc<str> {
    static UNNAMED: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from(""));
    Arc::clone(&UNNAMED)
}

/// What a call asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallKind {
    /// A skill: an A2A message routed to it, or an MCP tool call.
    Skill,
    /// An MCP resource read.
    Resource,
    /// An MCP prompt.
    Prompt,
}

impl CallKind {
    /// The kind as labels name it: `skill`, `resource`, `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Skill => "skill",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallOutcome {
    /// It returned a result (a task: COMPLETED).
    Completed,
    /// The skill returned an error (a task: FAILED; MCP: an `isError` result); labelled
    /// `skill_error`.
    Errored,
    /// Its input did not fit the skill (MCP: an `isError` result naming the argument).
    InvalidInput,
    /// It stopped to wait for an answer (a task: INPUT_REQUIRED or AUTH_REQUIRED; MCP: an
    /// input-required result). The answer starts the call's next turn.
    InputRequired,
    /// The skill declined the request (a task: REJECTED).
    Rejected,
    /// Its caller canceled it.
    Canceled,
    /// It failed for a reason not the skill's to give: a panic, an output that broke the
    /// skill's schema, an unanswered question, a server shutting down.
    Failed,
    /// Refused before it ran: the caller lacks a scope the skill needs.
    Forbidden,
    /// Refused before it ran: the caller is over a quota or budget, or the server is full.
    Busy(BusyKind),
}

impl CallOutcome {
    /// The outcome as labels name it: `completed`, `skill_error`, `invalid_input`,
    /// `input_required`, `rejected`, `canceled`, `failed`, `forbidden`, `busy`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Errored => "skill_error",
            Self::InvalidInput => "invalid_input",
            Self::InputRequired => "input_required",
            Self::Rejected => "rejected",
            Self::Canceled => "canceled",
            Self::Failed => "failed",
            Self::Forbidden => "forbidden",
            Self::Busy(_) => "busy",
        }
    }

    /// The outcome a task's turn ended with when it settled in `state`.
    pub fn of_state(state: TaskState) -> Self {
        match state {
            TaskState::Completed => Self::Completed,
            TaskState::Canceled => Self::Canceled,
            TaskState::Rejected => Self::Rejected,
            TaskState::InputRequired | TaskState::AuthRequired => Self::InputRequired,
            _ => Self::Failed,
        }
    }

    /// Whether the call ran (it was not refused before).
    pub fn ran(self) -> bool {
        !matches!(self, Self::Forbidden | Self::Busy(_))
    }
}

/// One call, as it ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallRecord {
    /// The agent: its id on a host, its name on a server of its own.
    pub agent: Arc<str>,
    /// What was called.
    pub kind: CallKind,
    /// The skill (tool) id, the prompt's name, or the resource's URI.
    pub name: Cow<'static, str>,
    /// The protocol (and A2A version) it came over.
    pub protocol: Protocol,
    /// The binding or transport it came over.
    pub binding: Binding,
    /// Who made it: the principal, its scheme, scopes and claims.
    pub caller: Caller,
    /// The task it ran as (an A2A task, an MCP task), if any.
    pub task_id: Option<String>,
    /// The task's conversation, if any.
    pub context_id: Option<String>,
    /// The W3C trace the call belongs to.
    pub trace: Option<TraceContext>,
    /// When it started.
    pub started_at: SystemTime,
    /// How long it ran (for a task's turn: until it settled or stopped to wait).
    pub duration: Duration,
    /// The size of what it was given: the message's content (A2A), the arguments (MCP), as
    /// the server measures content against its limits.
    pub input_bytes: u64,
    /// The size of what it produced: artifacts, a reply, a tool result, a resource's or
    /// prompt's content.
    pub output_bytes: u64,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Why it failed or was refused, in words, when it was.
    pub error: Option<String>,
}

impl CallRecord {
    /// A call of `name` starting now, for front-ends to fill in and finish (through
    /// [`Meter::start`](super::Meter::start) or [`Meter::refused`](super::Meter::refused)).
    pub fn begin(
        kind: CallKind,
        name: impl Into<Cow<'static, str>>,
        protocol: Protocol,
        binding: Binding,
        caller: Caller,
    ) -> Self {
        Self {
            agent: unnamed(),
            kind,
            name: name.into(),
            protocol,
            binding,
            caller,
            task_id: None,
            context_id: None,
            trace: None,
            started_at: SystemTime::now(),
            duration: Duration::ZERO,
            input_bytes: 0,
            output_bytes: 0,
            outcome: CallOutcome::Completed,
            error: None,
        }
    }

    /// The same record, run as task `task_id` in conversation `context_id`.
    #[must_use]
    pub fn in_task(mut self, task_id: &str, context_id: &str) -> Self {
        self.task_id = Some(task_id.to_owned());
        self.context_id = Some(context_id.to_owned());
        self
    }

    /// The same record, in `trace` (the call's own context).
    #[must_use]
    pub fn traced(mut self, trace: Option<TraceContext>) -> Self {
        self.trace = trace;
        self
    }

    /// The same record, made by a request in `trace`: a call of its own, a span under the
    /// request's when this process reports spans.
    #[must_use]
    pub fn within(mut self, trace: Option<&TraceContext>) -> Self {
        self.trace = trace.map(|trace| match trace.is_local() {
            true => trace.child_span(),
            false => trace.clone(),
        });
        self
    }

    /// The same record, given `bytes` of input.
    #[must_use]
    pub fn input(mut self, bytes: usize) -> Self {
        self.input_bytes = bytes as u64;
        self
    }
}

/// A task's move to a new state.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskChange<'a> {
    /// The agent the task belongs to: its id on a host, its name on a server of its own.
    pub agent: Cow<'a, str>,
    /// The skill it runs.
    pub skill: Cow<'a, str>,
    /// Its id.
    pub task_id: Cow<'a, str>,
    /// Its conversation.
    pub context_id: Cow<'a, str>,
    /// Its owner's key (`scheme:principal`, or `anonymous`).
    pub owner: Cow<'a, str>,
    /// The state it left.
    pub from: TaskState,
    /// The state it is in now.
    pub state: TaskState,
    /// When it moved.
    pub at: SystemTime,
}

impl TaskChange<'_> {
    /// The change, holding its own copies.
    pub fn into_owned(self) -> TaskChange<'static> {
        TaskChange {
            agent: Cow::Owned(self.agent.into_owned()),
            skill: Cow::Owned(self.skill.into_owned()),
            task_id: Cow::Owned(self.task_id.into_owned()),
            context_id: Cow::Owned(self.context_id.into_owned()),
            owner: Cow::Owned(self.owner.into_owned()),
            from: self.from,
            state: self.state,
            at: self.at,
        }
    }
}

/// One request answered: an A2A operation or an MCP method.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OperationRecord {
    /// The agent that answered it: its id on a host, its name on a server of its own.
    pub agent: Arc<str>,
    /// The protocol it came over.
    pub protocol: Protocol,
    /// The binding or transport.
    pub binding: Binding,
    /// The operation: an A2A method (`SendMessage`, …) or an MCP method (`tools/call`, …).
    pub method: Cow<'static, str>,
    /// What it was about, when it names a tool or a prompt.
    pub target: Option<Cow<'static, str>>,
    /// How long it took to answer (a stream: until its first event was ready).
    pub duration: Duration,
    /// How it failed: a JSON-RPC error code (`-32602`), `tool_error` for an MCP tool result
    /// with `isError`, an HTTP status for a refusal before the method was read; none when it
    /// succeeded.
    pub error_type: Option<Cow<'static, str>>,
    /// When it arrived.
    pub started_at: SystemTime,
    /// The trace it belongs to.
    pub trace: Option<TraceContext>,
    /// What its span says beyond the method, gathered only for a sampled span this server
    /// reports (none otherwise).
    pub detail: Option<Box<OperationDetail>>,
}

/// What an operation was about, as its span's attributes give it (OpenTelemetry's A2A and MCP
/// conventions): each member set where the request or its answer names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OperationDetail {
    /// The task it created, read or changed (`a2a.task.id`).
    pub task_id: Option<String>,
    /// That task's state once answered (`a2a.task.state`).
    pub task_state: Option<TaskState>,
    /// The message it sent (`a2a.message.id`).
    pub message_id: Option<String>,
    /// The conversation, A2A's context (`gen_ai.conversation.id`).
    pub context_id: Option<String>,
    /// The tenant the request named (`a2a.tenant`).
    pub tenant: Option<String>,
    /// The JSON-RPC request's id (`jsonrpc.request.id`).
    pub request_id: Option<String>,
    /// The MCP session (`mcp.session.id`).
    pub session_id: Option<String>,
    /// The MCP revision the request was made in (`mcp.protocol.version`).
    pub protocol_version: Option<String>,
}

impl OperationRecord {
    /// An operation `method` over `protocol` and `binding`, answered now after `duration`.
    pub fn new(
        protocol: Protocol,
        binding: Binding,
        method: impl Into<Cow<'static, str>>,
        duration: Duration,
    ) -> Self {
        Self {
            agent: unnamed(),
            protocol,
            binding,
            method: method.into(),
            target: None,
            duration,
            error_type: None,
            started_at: SystemTime::now()
                .checked_sub(duration)
                .unwrap_or(SystemTime::UNIX_EPOCH),
            trace: None,
            detail: None,
        }
    }

    /// The same record, about `target` (a tool or a prompt).
    #[must_use]
    pub fn about(mut self, target: Option<Cow<'static, str>>) -> Self {
        self.target = target;
        self
    }

    /// The same record, failed as `error_type` (none: it succeeded).
    #[must_use]
    pub fn failed(mut self, error_type: Option<Cow<'static, str>>) -> Self {
        self.error_type = error_type;
        self
    }

    /// The same record, in `trace`.
    #[must_use]
    pub fn traced(mut self, trace: Option<TraceContext>) -> Self {
        self.trace = trace;
        self
    }

    /// The same record, with its span's `detail`.
    #[must_use]
    pub fn detailed(mut self, detail: Option<OperationDetail>) -> Self {
        self.detail = detail.map(Box::new);
        self
    }
}

/// A task update the store took, or gave up on.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct StoreWrite {
    /// From the first attempt to the last one's answer, pauses between retries included.
    pub duration: Duration,
    /// Attempts made (1: no retry).
    pub attempts: u32,
    /// Whether the store took it.
    pub stored: bool,
}

impl StoreWrite {
    /// A write that took `attempts` over `duration`, and was `stored` or not.
    pub fn new(duration: Duration, attempts: u32, stored: bool) -> Self {
        Self {
            duration,
            attempts,
            stored,
        }
    }
}

/// How a push delivery attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PushOutcome {
    /// The receiver took it (2xx).
    Delivered,
    /// It failed and will be tried again.
    Retrying,
    /// It failed for good: attempts exhausted, the receiver refused it outright, or its
    /// URL is one the server may not reach.
    Failed,
}

impl PushOutcome {
    /// The outcome as labels name it: `delivered`, `retrying`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delivered => "delivered",
            Self::Retrying => "retrying",
            Self::Failed => "failed",
        }
    }
}

/// One push delivery attempt.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PushDelivery {
    /// How it ended.
    pub outcome: PushOutcome,
    /// How long the attempt took.
    pub duration: Duration,
}

impl PushDelivery {
    /// An attempt that ended as `outcome` after `duration`.
    pub fn new(outcome: PushOutcome, duration: Duration) -> Self {
        Self { outcome, duration }
    }
}
