//! [`Call`]: one call of a skill as every front-end assembles it (each A2A dialect, MCP plain
//! calls, MCP task calls and MCP retries), authorized once, when it is made.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Dispatcher, MissingScope};
use crate::auth::Caller;
use crate::call::DecodedInput;
use crate::context::{ContextBuilder, TaskContext};
use crate::logging::LogSink;
use crate::observe::{CallKind, CallRecord};
use crate::registry::SkillEntry;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::{A2aVersion, Binding, ByteSize, Message, Protocol};

/// A skill call that may run: its skill, decoded input, the message that asked for it, who it
/// runs for and the trace it belongs to. Only [`Call::new`] makes one, and it checks the
/// skill's scopes first, so no front-end can run a skill without that check.
pub struct Call {
    pub skill: &'static str,
    pub input: DecodedInput,
    /// The input as JSON, before decoding: a task keeps it to run the call again after a
    /// restart. A task created for a call that carries its `message` takes it (see
    /// [`TaskManager::create`](crate::task::TaskManager::create)); the skill reads it only to
    /// synthesize a message the call lacks.
    pub arguments: serde_json::Value,
    /// The message a client sent; `None` for a call made by another protocol (an MCP tool
    /// call), whose message is [synthesized](Message::synthesized) from its arguments when
    /// something reads it: most skills never do.
    pub message: Option<Arc<Message>>,
    pub caller: Caller,
    pub trace: Option<TraceContext>,
    /// Where the skill's `tracing` events go besides the application's subscriber (an MCP
    /// client that asked for log messages).
    pub log_sink: Option<Arc<dyn LogSink>>,
    /// The protocol the call came over.
    pub protocol: Protocol,
    /// The binding or transport it came over.
    pub binding: Binding,
    /// The idempotency key of the request that created the call's task, if it had one (the
    /// skill reads it to make its own side effects idempotent).
    pub idempotency_key: Option<Arc<str>>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("skill", &self.skill)
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl Call {
    /// A call of `skill` for `caller`, refused when the caller lacks a scope the skill needs.
    pub fn new(
        skill: &SkillEntry,
        input: DecodedInput,
        arguments: serde_json::Value,
        message: Option<Message>,
        caller: Caller,
        trace: Option<TraceContext>,
    ) -> Result<Self, MissingScope> {
        Dispatcher::authorize(skill, &caller)?;
        let has_message = message.is_some();
        Ok(Self {
            skill: skill.id(),
            input,
            arguments,
            message: message.map(Arc::new),
            caller,
            // A call is a span of its own under its request's, when this process reports them.
            trace: trace.map(|trace| match trace.is_local() {
                true => trace.child_span(),
                false => trace,
            }),
            log_sink: None,
            // A call with a client's message is an A2A one (the front-end names its version
            // with `over` and its binding with `via`); one without is an MCP tool call.
            protocol: if has_message {
                Protocol::A2a(A2aVersion::V1_0)
            } else {
                Protocol::Mcp
            },
            binding: if has_message {
                Binding::JsonRpc
            } else {
                Binding::StreamableHttp
            },
            idempotency_key: None,
        })
    }

    /// The same call, made over `protocol`.
    pub fn over(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The same call, made over `binding`.
    #[must_use]
    pub fn via(mut self, binding: Binding) -> Self {
        self.binding = binding;
        self
    }

    /// The record of this call as it starts, for its meter: its input measured as the
    /// server measures content (the client's message, else the arguments).
    pub fn record(&self) -> CallRecord {
        let input = match &self.message {
            Some(message) => message.byte_size(),
            None => self.arguments.byte_size(),
        };
        CallRecord::begin(
            CallKind::Skill,
            self.skill,
            self.protocol,
            self.binding,
            self.caller.clone(),
        )
        .traced(self.trace.clone())
        .input(input)
    }

    /// The same call, made over the protocol a checkpoint recorded (none in checkpoints of
    /// earlier versions: the call keeps its default).
    pub fn over_recorded(self, protocol: Option<Protocol>) -> Self {
        match protocol {
            Some(protocol) => self.over(protocol),
            None => self,
        }
    }

    /// The same call, for a task created under this idempotency key.
    #[must_use]
    pub fn keyed(mut self, key: Option<&str>) -> Self {
        self.idempotency_key = key.map(Arc::from);
        self
    }

    /// The message that started this call, synthesized if no client sent one.
    pub fn message(&self) -> Arc<Message> {
        self.message
            .clone()
            .unwrap_or_else(|| Arc::new(Message::synthesized(self.skill, self.arguments.clone())))
    }

    /// The task context of this call, to finish with the front-end's sinks and asker: it runs
    /// for the call's caller, in its trace.
    pub fn context(
        &self,
        task_id: String,
        context_id: String,
        cancel: CancellationToken,
    ) -> ContextBuilder {
        TaskContext::builder(task_id, context_id, self.skill, cancel)
            .caller(self.caller.clone())
            .trace(self.trace.clone())
            .protocol(self.protocol)
            .idempotency_key(self.idempotency_key.clone())
    }
}
