//! Runs skills: the one call path both protocols use (decoded input → extractors → skill →
//! output), with cancellation and panic isolation.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::FutureExt;

pub mod call;
mod skills;

pub use call::Call;
pub use skills::{RegistryRef, SkillRef};

use tokio_util::sync::CancellationToken;

use crate::about::AgentAbout;
use crate::ask::Asker;
use crate::context::{Conversation, UpdateSink};

use crate::auth::Caller;
use crate::call::{Invocation, SkillOutput, SkillResult};
use crate::context::TaskContext;
use crate::observe::Meter;
use crate::registry::{Registry, SkillEntry};
use crate::skill_error::SkillError;

/// The scopes a caller lacks for a skill.
#[derive(Debug, Clone)]
pub struct MissingScope {
    pub skill: &'static str,
    /// Every scope the skill needs: what a token for the call must grant.
    pub needed: Arc<[&'static str]>,
    /// Those of `needed` the caller was not granted (at least one).
    pub missing: Vec<&'static str>,
}

impl MissingScope {
    /// The missing scopes as a list for messages: `` `a`, `b` ``.
    pub fn missing_list(&self) -> String {
        self.missing
            .iter()
            .map(|scope| format!("`{scope}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for MissingScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let noun = if self.missing.len() == 1 {
            "scope"
        } else {
            "scopes"
        };
        write!(
            f,
            "skill `{}` needs {noun} {}, which the caller's credentials do not grant",
            self.skill,
            self.missing_list()
        )
    }
}

/// Where a call runs: the ids of its task and conversation, and the token that cancels it.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The task (for a call that is no task, an id of its own).
    pub task_id: String,
    /// The conversation.
    pub context_id: String,
    /// Fires when the call is cancelled (by its caller, or its task's cancellation).
    pub cancel: CancellationToken,
}

impl Placement {
    /// A call that is no task: a fresh id for both, cancelled by `cancel`.
    pub fn untracked(cancel: CancellationToken) -> Self {
        let id = a2a_runtime_types::model::new_id();
        Self {
            task_id: id.clone(),
            context_id: id,
            cancel,
        }
    }
}

/// What a front-end attaches to the task context of a call it runs: where the skill's reports
/// go, who answers its questions, and for an A2A task its conversation and references.
#[derive(Default)]
pub struct Attachments {
    /// Destinations of the skill's reports (progress, artifacts).
    pub sinks: Vec<Arc<dyn UpdateSink>>,
    /// Who answers the skill's questions; none: asking fails as unsupported.
    pub asker: Option<Arc<dyn Asker>>,
    /// The earlier tasks of the conversation (`ctx.history()`).
    pub conversation: Option<Arc<dyn Conversation>>,
    /// The tasks the request referred to.
    pub references: Vec<String>,
    /// The caller's quota, which the skill may charge more work to (`ctx.spend`).
    pub charge: Option<crate::quota::Charge>,
}

/// Runs skills of one agent. Shared by the A2A and MCP front-ends.
pub struct Dispatcher {
    skills: skills::Skills,
    state: Arc<dyn Any + Send + Sync>,
    /// Where the agent's calls are reported.
    meter: Meter,
}

impl Dispatcher {
    /// Runs the skills of `registry`, which never change (compiled skills), for the agent
    /// `about` with its `state`.
    pub fn new(about: AgentAbout, registry: Registry, state: Arc<dyn Any + Send + Sync>) -> Self {
        Self {
            skills: skills::Skills::Fixed(Arc::new(about), registry),
            state,
            meter: Meter::default(),
        }
    }

    /// Runs the skills of `registry` for the agent `about` until [`replace`](Self::replace)
    /// gives others (a remote's, whose card or list changes).
    pub fn changing(
        about: AgentAbout,
        registry: Registry,
        state: Arc<dyn Any + Send + Sync>,
    ) -> Self {
        Self {
            skills: skills::Skills::Changing(skills::Changing::new(about, registry)),
            state,
            meter: Meter::default(),
        }
    }

    /// Replaces the agent and skills of a dispatcher made with [`changing`](Self::changing):
    /// calls under way finish with the skill they started; `false` (nothing replaced) for one
    /// made with [`new`](Self::new).
    pub fn replace(&self, about: AgentAbout, registry: Registry) -> bool {
        self.skills.replace(about, registry)
    }

    /// What the agent says of itself, as it is now.
    pub fn about(&self) -> Arc<AgentAbout> {
        self.skills.about()
    }

    /// Whether its agent and skills may be replaced (made with [`changing`](Self::changing)):
    /// what front-ends declare as `listChanged`, asked without watching.
    pub fn is_changing(&self) -> bool {
        matches!(self.skills, skills::Skills::Changing(_))
    }

    /// How many times the registry was replaced, watched, for front-ends that cache what they
    /// derive from it; `None` when it never is.
    pub fn registry_replacements(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.skills.replacements()
    }

    /// The same dispatcher, reporting its agent's calls to `meter`.
    #[must_use]
    pub fn metered(mut self, meter: Meter) -> Self {
        self.meter = meter;
        self
    }

    /// Where the agent's calls, operations and tasks are reported.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// The skills, as they are now.
    pub fn registry(&self) -> RegistryRef<'_> {
        self.skills.current()
    }

    /// The skill `id`, as it is now.
    pub fn skill(&self, id: &str) -> Option<SkillRef<'_>> {
        self.skills.entry(id)
    }

    /// The agent's state, shared by every call (resources and prompts read it too).
    pub fn state(&self) -> &Arc<dyn Any + Send + Sync> {
        &self.state
    }

    /// Whether `caller` may call `skill`: every scope the skill declares must be granted.
    /// [`Call::new`] asks it for every call; listings and the MCP gate ask it too, to hide
    /// tools and answer 403 before a body reaches rmcp.
    pub fn authorize(skill: &SkillEntry, caller: &Caller) -> Result<(), MissingScope> {
        let needed = skill.scopes();
        let missing = caller.missing_scopes(needed);
        if missing.is_empty() {
            return Ok(());
        }
        Err(MissingScope {
            skill: skill.id(),
            needed: Arc::clone(needed),
            missing,
        })
    }

    /// Runs `call` in the task context its front-end `attachments` complete: the one place a
    /// task context is assembled, for every front-end (A2A tasks, MCP calls plain, parked or
    /// as tasks). The context runs for the call's caller, in its trace, over its protocol. Like
    /// [`run`](Self::run), `None` when cancellation outlasted `grace`.
    ///
    /// This, [`run`](Self::run) and [`invoke`](Self::invoke) do their synchronous part when
    /// called and return only what is awaited: as `async fn`s each kept its arguments twice
    /// (rust-lang/rust#62958) and the next one's future besides, a kilobyte-sized future for
    /// every call.
    pub fn execute(
        &self,
        call: Call,
        at: Placement,
        attachments: Attachments,
        grace: Duration,
    ) -> impl Future<Output = Option<SkillResult>> + Send + '_ {
        let mut context = call
            .context(at.task_id, at.context_id, at.cancel)
            .sinks(attachments.sinks)
            .asker(attachments.asker)
            .references(attachments.references)
            .charge(attachments.charge);
        if let Some(conversation) = attachments.conversation {
            context = context.conversation(conversation);
        }
        self.run(call, context.build(), grace)
    }

    /// Runs `call` like [`invoke`](Self::invoke), honouring cancellation: once the context's
    /// cancellation fires the skill gets `grace` to return, then its future is dropped and this
    /// returns `None`.
    pub fn run(
        &self,
        call: Call,
        context: TaskContext,
        grace: Duration,
    ) -> impl Future<Output = Option<SkillResult>> + Send + '_ {
        let cancel = context.cancel_token().clone();
        let run = self.invoke(call, context);
        async move {
            tokio::pin!(run);
            // The skill first: one that finishes on its first poll never registers a waiter on
            // the token (a lock taken and released on every call).
            tokio::select! {
                biased;
                result = &mut run => Some(result),
                () = cancel.cancelled() => tokio::time::timeout(grace, run).await.ok(),
            }
        }
    }

    /// Runs `call` (its input decoded by its skill's descriptor) with `context`, which
    /// [`Call::context`] started. A panic in the skill becomes an internal error; it never
    /// unwinds into the server.
    pub fn invoke(
        &self,
        call: Call,
        context: TaskContext,
    ) -> impl Future<Output = SkillResult> + Send + '_ {
        let id = call.skill;
        let prepared = self.skills.entry(id).map(|skill| {
            let invocation = Invocation {
                input: call.input,
                state: Arc::clone(&self.state),
                context,
                message: call.message.map(OnceLock::from).unwrap_or_default(),
                arguments: call.arguments,
            };
            let body = skill.body().clone();
            // The call's own trace, moved: the context holds a copy for the skill to read.
            let trace = call.trace;
            let log_sink = call.log_sink;
            // The spans of the requests the skill sends out, when this server reports traces.
            let spans = trace.as_ref().and_then(|_| self.meter().span_sink());
            let run = async move {
                let skill = body.call(invocation);
                // Only calls that came with a trace pay for carrying it.
                let skill: a2a_runtime_types::util::BoxFuture<'static, _> = match (trace, spans) {
                    (Some(trace), Some(spans)) => Box::pin(trace.scope_reporting(spans, skill)),
                    (Some(trace), None) => Box::pin(trace.scope(skill)),
                    (None, _) => skill,
                };
                match log_sink {
                    Some(sink) => crate::logging::forwarding(sink, skill).await,
                    None => skill.await,
                }
            };
            AssertUnwindSafe(run)
                .catch_unwind()
                .map(move |outcome| checked(&skill, outcome))
        });
        match prepared {
            Some(run) => futures::future::Either::Left(run),
            None => futures::future::Either::Right(std::future::ready(Err(SkillError::internal(
                format!("skill `{id}` is not registered"),
            )))),
        }
    }
}

/// What a skill's run came to: a panic is an internal error, and a structured result must be
/// what the skill's published schema promises, on both protocols; otherwise the call fails
/// naming the field.
fn checked(skill: &SkillEntry, outcome: std::thread::Result<SkillResult>) -> SkillResult {
    match outcome {
        Ok(Ok(SkillOutput::Data(value))) => match &skill.output_validator {
            Some(validator) => match validator.check(&value) {
                Ok(()) => Ok(SkillOutput::Data(value)),
                Err(reason) => {
                    tracing::error!(skill = skill.id(), %reason, "invalid skill output");
                    Err(SkillError::internal(reason))
                }
            },
            None => Ok(SkillOutput::Data(value)),
        },
        Ok(result) => result,
        Err(payload) => {
            let detail = a2a_runtime_types::util::panic_message(payload.as_ref());
            tracing::error!(skill = skill.id(), panic = detail, "skill panicked");
            Err(SkillError::internal(format!(
                "skill `{}` panicked",
                skill.id()
            )))
        }
    }
}
