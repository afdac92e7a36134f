//! Running a task's skill: the task context it gets, the states it moves through, and how its
//! result lands on the task.

use std::sync::Arc;

use super::conversation::ContextHistory;
use super::handle::TaskHandle;
use super::live::{LiveTask, Shape};
use super::manager::TaskManager;
use super::replay::ReplayAsker;
use super::resume::Replay;
use super::waiting::TaskAsker;
use crate::ask::{Asker, Question};
use crate::call::{SkillOutput, SkillResult};
use crate::context::UpdateSink;
use crate::dispatch::{Attachments, Call, Placement};
use crate::observe::CallOutcome;
use crate::registry::SkillEntry;
use crate::skill_error::{SkillError, SkillErrorKind};
use a2a_runtime_types::model::{Artifact, ByteSize, Message, Part, Role, TaskState, new_id};

impl TaskManager {
    /// Runs `call` as the created task, in the background.
    pub fn run(self: &Arc<Self>, task: &TaskHandle, call: Call, sinks: Vec<Arc<dyn UpdateSink>>) {
        let run = Arc::clone(self).execute(Arc::clone(&task.live), call, sinks, None);
        tokio::spawn(run);
    }

    /// Like [`run`](Self::run), for a caller that waits for the task to settle anyway (a
    /// blocking send): the run is handed back, for the caller to drive on its own task with
    /// [`Driven::until_settled`]. Never for a caller that answers first (a stream,
    /// `returnImmediately`, an MCP task), which a skill blocking its first step would hold up.
    pub fn run_here(
        self: &Arc<Self>,
        task: &TaskHandle,
        call: Call,
        sinks: Vec<Arc<dyn UpdateSink>>,
    ) -> Driven {
        let run = Arc::clone(self).execute(Arc::clone(&task.live), call, sinks, None);
        Driven {
            run: Some(Box::pin(run)),
        }
    }

    /// Runs `call`'s skill on `live`. `replay` holds what a skill run again after a restart is
    /// handed first (see `resume.rs`); a resumed task is already WORKING on its answer.
    pub(super) async fn execute(
        self: Arc<Self>,
        live: Arc<LiveTask>,
        call: Call,
        extra_sinks: Vec<Arc<dyn UpdateSink>>,
        replay: Option<Box<Replay>>,
    ) {
        let registry = self.dispatcher.registry();
        let Some(skill) = registry.get(call.skill) else {
            return;
        };
        if !self.start_working(&live, replay.as_deref()) {
            // Canceled before the skill started: it never runs.
            live.release_quota();
            self.settle(live).await;
            return;
        }
        let (at, attachments) = self.attachments(&live, extra_sinks, replay.map(|r| *r));
        let skill_run = self
            .dispatcher
            .execute(call, at, attachments, self.config.cancel_grace);
        tokio::pin!(skill_run);
        // A skill that is done on its first poll needs no separate WORKING write: the write
        // of its result carries it.
        let result = match futures::poll!(&mut skill_run) {
            std::task::Poll::Ready(result) => result,
            std::task::Poll::Pending => {
                self.persist_working(&live);
                skill_run.await
            }
        };
        if self.record_result(skill, &live, result).is_none() {
            // The skill replied with a message: the task was forgotten unstored.
            return;
        }
        live.release_quota();
        self.settle(live).await;
    }

    /// Sets the task WORKING (a task resumed on its answer already is); `false` if it was
    /// canceled first.
    fn start_working(&self, live: &LiveTask, replay: Option<&Replay>) -> bool {
        if replay.is_some_and(|r| r.pending.is_some()) {
            return !live.state.borrow().is_terminal();
        }
        live.record(
            live.status_event(TaskState::Working, None, None),
            None,
            self.config.max_history,
        )
    }

    /// Stores WORKING in the background: the skill does not wait for it, and a quick skill's
    /// later write (its result) often carries it, so this one is then skipped. A task whose
    /// creation was deferred is first written only if it is still running a moment later.
    fn persist_working(self: &Arc<Self>, live: &Arc<LiveTask>) {
        let writer = Arc::clone(self);
        let working = Arc::clone(live);
        let deferred = live
            .persist
            .try_lock()
            .is_ok_and(|stored| stored.version == 0);
        tokio::spawn(async move {
            if deferred {
                // A task that may yet be a reply is none until the skill shows otherwise.
                if let Shape::Reply(_) = working.decided().await {
                    return;
                }
                tokio::time::sleep(DEFERRED_FIRST_WRITE).await;
                if working.state.borrow().is_terminal() {
                    return;
                }
            }
            writer.persist(&working).await;
        });
    }

    /// Where the skill of `live` runs and what its context is attached to: the task itself
    /// (and `extra_sinks`) for its reports, the task's asker, the conversation's history.
    fn attachments(
        self: &Arc<Self>,
        live: &Arc<LiveTask>,
        extra_sinks: Vec<Arc<dyn UpdateSink>>,
        replay: Option<Replay>,
    ) -> (Placement, Attachments) {
        let (created_at, references) = live.origin();
        let at = Placement {
            task_id: live.id.clone(),
            context_id: live.context_id.clone(),
            cancel: live.cancel.clone(),
        };
        let mut sinks = vec![Arc::clone(live) as Arc<dyn UpdateSink>];
        sinks.extend(extra_sinks);
        let attachments = Attachments {
            sinks,
            asker: Some(asker(self, live, replay)),
            conversation: Some(Arc::new(ContextHistory::new(
                Arc::clone(&self.store),
                live,
                created_at,
                self.config.max_history,
            ))),
            references,
            charge: live.charge(),
        };
        (at, attachments)
    }

    /// Records what the skill returned: its output as the task's artifact and COMPLETED, its
    /// error as FAILED (or REJECTED), nothing after a cancel outlasted the grace period (the
    /// task is already CANCELED). `None` when the skill's message reply was the answer and the
    /// task is gone.
    fn record_result(
        &self,
        skill: &SkillEntry,
        live: &LiveTask,
        result: Option<SkillResult>,
    ) -> Option<()> {
        let max_history = self.config.max_history;
        match result {
            Some(Ok(output)) => {
                let output = match output {
                    SkillOutput::Message(message) => self.replied(live, message)?,
                    output => output,
                };
                if let Some(artifact) = output_artifact(skill, output) {
                    live.record(
                        live.artifact_event(artifact, false, true),
                        None,
                        max_history,
                    );
                }
                live.record(
                    live.status_event(TaskState::Completed, None, None),
                    None,
                    max_history,
                );
            }
            Some(Err(error)) => {
                live.end_turn(error.outcome(), 0, Some(error.message().to_owned()));
                let event = live.status_event(failed_state(&error), Some(failure(&error)), None);
                let message = event.status_message();
                live.record(event, message, max_history);
            }
            None => {}
        }
        Some(())
    }

    /// The skill answered with `message`. While the task is undecided the message is the
    /// answer: the task is forgotten unstored and `None` returned. Otherwise the output to
    /// record on the task.
    fn replied(&self, live: &LiveTask, mut message: Message) -> Option<SkillOutput> {
        message.role = Role::Agent;
        message.task_id = None;
        message
            .context_id
            .get_or_insert_with(|| live.context_id.clone());
        if message.message_id.is_empty() {
            message.message_id = new_id();
        }
        let size = message.byte_size();
        if live.reply(message.clone()) {
            live.end_turn(CallOutcome::Completed, size, None);
            live.release_quota();
            self.live_map().remove(&live.id);
            return None;
        }
        Some(SkillOutput::Message(message))
    }

    /// With a store replicas share: joins them, and settles the unfinished tasks of replicas
    /// whose lease ran out, every lease, until `stop`.
    pub fn join_replicas(self: &Arc<Self>, stop: tokio_util::sync::CancellationToken) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        cluster.start(self);
        let manager = Arc::clone(self);
        let period = cluster.lease();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(period) => {}
                    () = stop.cancelled() => return,
                }
                if let Err(error) = manager.recover().await {
                    tracing::warn!(%error, "settling the tasks of departed replicas failed");
                }
            }
        });
    }

    /// Forgets finished tasks past the store's retention, every `period` until `stop`.
    pub fn sweep_periodically(
        self: &Arc<Self>,
        period: std::time::Duration,
        stop: tokio_util::sync::CancellationToken,
    ) {
        let manager = Arc::clone(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = ticks.tick() => {}
                    () = stop.cancelled() => return,
                }
                match manager.store.sweep().await {
                    Ok(0) => {}
                    Ok(swept) => tracing::debug!(swept, "finished tasks past retention forgotten"),
                    Err(error) => tracing::warn!(%error, "sweeping finished tasks failed"),
                }
            }
        });
    }

    /// Whether any task is still working (not waiting for an answer): a graceful shutdown lets
    /// those finish.
    pub fn has_working_tasks(&self) -> bool {
        self.live_map().values().any(|live| {
            let state = *live.state.borrow();
            !state.is_terminal() && !state.is_interrupted()
        })
    }

    /// Ends every task still live (working, or waiting for an answer) as FAILED with `reason`,
    /// and stops its skill: the server is going away and will not finish them. Subscribers get
    /// the final status event.
    pub async fn shut_down(&self, reason: &str) -> usize {
        self.end_where(reason, |_| true).await
    }

    /// Ends the live tasks waiting for an answer (input or auth required) as FAILED with
    /// `reason`, as [`shut_down`](Self::shut_down) would: a draining server does not wait for
    /// answers that may never come, and their subscribers get the final event at once instead
    /// of holding the drain open until its timeout.
    pub async fn end_waiting(&self, reason: &str) -> usize {
        self.end_where(reason, |state| state.is_interrupted()).await
    }

    /// Ends the live tasks whose state `which` picks.
    async fn end_where(&self, reason: &str, which: impl Fn(&TaskState) -> bool) -> usize {
        let live: Vec<Arc<LiveTask>> = self
            .live_map()
            .values()
            .filter(|live| which(&live.state.borrow()))
            .cloned()
            .collect();
        let mut ended = 0;
        for live in live {
            let reason = Message::agent_text(reason).runtime_failure();
            let event = live.status_event(TaskState::Failed, Some(reason), None);
            let message = event.status_message();
            if live.record(event, message, self.config.max_history) {
                ended += 1;
            }
            live.cancel.cancel();
            self.persist(&live).await;
        }
        ended
    }

    /// Fails a task whose question waited too long, and stops its skill.
    pub(super) async fn expire(&self, live: &LiveTask, question: &Question) {
        let reason = Message::agent_text(format!(
            "No answer to \"{}\" within {:?}; the task was closed.",
            question.prompt,
            self.input.timeout()
        ));
        let event = live.status_event(TaskState::Failed, Some(reason), None);
        let message = event.status_message();
        live.record(event, message, self.config.max_history);
        live.cancel.cancel();
        self.persist(live).await;
    }
}

/// How long a task whose creation was deferred may run before it is written anyway (so a
/// running task is listed, and failed as interrupted if the server stops).
pub(super) const DEFERRED_FIRST_WRITE: std::time::Duration = std::time::Duration::from_millis(100);

/// Where a task's skill puts its questions: to the client, after the recorded answers for a
/// skill run again.
fn asker(
    manager: &Arc<TaskManager>,
    live: &Arc<LiveTask>,
    replay: Option<Replay>,
) -> Arc<dyn Asker> {
    let asker = TaskAsker::new(Arc::clone(manager), Arc::clone(live));
    match replay {
        None => Arc::new(asker),
        Some(replay) => Arc::new(ReplayAsker::new(
            Arc::clone(live),
            asker,
            replay.answers,
            replay.pending,
        )),
    }
}

/// The artifact holding a skill's returned value, if it returned any.
fn output_artifact(skill: &SkillEntry, output: SkillOutput) -> Option<Artifact> {
    let name = skill.id();
    match output {
        SkillOutput::Empty => None,
        SkillOutput::Text(text) => Some(
            Artifact::new(vec![Part {
                media_type: Some("text/plain".into()),
                ..Part::text(text)
            }])
            .with_name(name),
        ),
        SkillOutput::Data(value) => Some(Artifact::new(vec![Part::data(value)]).with_name(name)),
        SkillOutput::Parts(parts) | SkillOutput::Message(Message { parts, .. })
            if parts.is_empty() =>
        {
            None
        }
        // A reply to a task whose id was already told: its parts are the task's result.
        SkillOutput::Parts(parts) | SkillOutput::Message(Message { parts, .. }) => {
            Some(Artifact::new(parts).with_name(name))
        }
        SkillOutput::Artifact(artifact) => Some(artifact),
    }
}

/// The state a skill's error ends its task in.
fn failed_state(error: &SkillError) -> TaskState {
    match error.kind() {
        SkillErrorKind::Rejected => TaskState::Rejected,
        _ => TaskState::Failed,
    }
}

/// The status message of a failed task: the error's message and data; a runtime failure (a
/// panic, an internal error) is marked as one.
fn failure(error: &SkillError) -> Message {
    let mut parts = vec![Part::text(error.message())];
    parts.extend(error.data().cloned().map(Part::data));
    let reason = Message::agent(parts);
    match error.kind() {
        SkillErrorKind::Internal => reason.runtime_failure(),
        _ => reason,
    }
}

/// A task's run that its waiting caller drives on its own task (see
/// [`TaskManager::run_here`]): a skill done at once, or done after a store write, is recorded
/// and stored without a spawn, a timer or a woken waiter. Whatever is left of the run when the
/// caller stops driving it (the task settled waiting for an answer, or the caller went away)
/// goes on in a task of its own, so the skill never depends on its caller staying.
pub struct Driven {
    run: Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Driven {
    /// Drives the run until it ends or the task settles (terminal or interrupted), whichever
    /// comes first; the rest of the run goes on by itself.
    pub async fn until_settled(mut self, task: &TaskHandle) {
        let settled = task.settle();
        tokio::pin!(settled);
        std::future::poll_fn(|cx| {
            let Some(run) = self.run.as_mut() else {
                return std::task::Poll::Ready(());
            };
            if run.as_mut().poll(cx).is_ready() {
                self.run = None;
                return std::task::Poll::Ready(());
            }
            settled.as_mut().poll(cx)
        })
        .await;
    }
}

impl Drop for Driven {
    fn drop(&mut self) {
        // Without a runtime (it is being torn down) nothing could run it: it ends here.
        if let Some(run) = self.run.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(run);
        }
    }
}
