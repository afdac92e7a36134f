//! Tasks an earlier run of the server left unfinished in a durable store. At startup
//! ([`TaskManager::recover`]) each is settled as its skill's [`Resume`] policy says: failed as
//! interrupted, run again, or left waiting for its answer. An answer to a task left waiting
//! (`TaskManager::revive`) runs the skill again from the start with the answers it was given
//! before replayed into `ctx.ask` (`replay.rs`), up to the question the task waits on.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use super::checkpoint::Checkpoint;
use super::error::Refusal;
use super::error::{TaskError, refused};
use super::live::LiveTask;
use super::manager::TaskManager;
use super::record::StoredTask;
use super::store::StoreError;
use crate::ask::{Answer, Question, QuestionKind};
use crate::call::DecodedInput;
use crate::descriptor::Resume;
use crate::dispatch::Call;
use crate::quota::{Busy, BusyKind, CallerId};
use crate::registry::SkillEntry;
use a2a_runtime_types::model::{Message, Task, TaskState, TaskStatus};

/// The status message of a task a restart interrupted.
pub const INTERRUPTED: &str = "interrupted by a restart: the server stopped while this task \
     was running or waiting for an answer; send the request again";

/// A resumed task's skill, ready to run once the answer that resumed it is delivered.
pub(super) struct Revived {
    call: Call,
    replay: Replay,
}

/// What a resumed skill is handed before it asks live: the answers recorded before the restart,
/// then the answer to the question the task waits on.
pub(super) struct Replay {
    pub(super) answers: Vec<Option<Answer>>,
    pub(super) pending: Option<(Question, oneshot::Receiver<Answer>)>,
}

/// What a restart does with one unfinished task.
enum Settle {
    /// Leave it waiting for its answer.
    Wait,
    /// Run its skill again now.
    Rerun,
    /// Fail it with this reason.
    Fail(String),
}

impl TaskManager {
    /// Makes `stored`, a task an earlier run left waiting, live again to take an answer of
    /// `kind` (to question `question`, when given) from `caller` (`None`: the application);
    /// start its skill with [`run_revived`](Self::run_revived) once the answer is delivered.
    /// `None` when the task does not wait for anything it could be resumed for. A task that can
    /// no longer be resumed (its skill is gone or opted out, its input no longer decodes, its
    /// question waited too long) is failed and refused as finished.
    pub(super) async fn revive(
        self: &Arc<Self>,
        stored: StoredTask,
        kind: QuestionKind,
        question: Option<&str>,
        caller: Option<&CallerId>,
    ) -> Result<Option<(Arc<LiveTask>, Option<Revived>)>, TaskError> {
        let task = &stored.task;
        let Some((checkpoint, pending)) = waiting_on(&stored, kind, question)? else {
            return Ok(None);
        };
        if let Settle::Fail(reason) = self.settle_waiting(task, &checkpoint, &pending) {
            return Err(self.fail_stored(stored, reason).await);
        }
        let Some(skill) = self.skill(&checkpoint.skill) else {
            return Ok(None);
        };
        let decoded = match skill.decode_input(&checkpoint.arguments) {
            Ok(decoded) => decoded,
            Err(error) => {
                let reason = format!(
                    "could not resume after a restart: the skill's input no longer decodes \
                     ({error}); send the request again"
                );
                return Err(self.fail_stored(stored, reason).await);
            }
        };
        let call = recorded_call(&skill, decoded, &checkpoint, caller)?
            .keyed(stored.idempotency_key.as_deref());
        // The skill runs again, so it counts as a task of the caller that resumes it.
        let quota = caller.map(|c| self.quotas.start_task(c)).transpose()?;
        let snapshot = stored.clone();
        let live = self.live_task(stored, skill.id(), checkpoint.caller.clone(), quota, None);
        {
            let mut map = self.live_map();
            if let Some(current) = map.get(&live.id) {
                // Another answer resumed it first; this one is delivered to that run.
                return Ok(Some((Arc::clone(current), None)));
            }
            map.insert(live.id.clone(), Arc::clone(&live));
        }
        if !self.claim(&live, &snapshot).await? {
            return Err(TaskError::Quota(Busy::new(
                BusyKind::Contended,
                format!(
                    "task `{}` is being resumed by another replica; retry",
                    live.id
                ),
                Duration::from_secs(1),
            )));
        }
        live.set_replaying(true);
        // The answer on its way starts the call's next turn.
        live.begin_turn(self.dispatcher.meter().waiting(|| call.record()));
        let answer = live.rewait(pending.clone());
        let replay = Replay {
            answers: checkpoint.answers,
            pending: Some((pending, answer)),
        };
        Ok(Some((live, Some(Revived { call, replay }))))
    }

    /// Starts the skill of a task [`revive`](Self::revive) made live.
    pub(super) fn run_revived(self: &Arc<Self>, live: &Arc<LiveTask>, revived: Revived) {
        let manager = Arc::clone(self);
        let live = Arc::clone(live);
        tokio::spawn(async move {
            manager
                .execute(
                    live,
                    revived.call,
                    Vec::new(),
                    Some(Box::new(revived.replay)),
                )
                .await;
        });
    }

    /// Settles what an earlier run of the server left unfinished in a durable store (see the
    /// module docs); finished tasks are untouched, and a task another writer changed meanwhile
    /// is left to it. How many tasks were failed or run again.
    pub async fn recover(self: &Arc<Self>) -> Result<usize, StoreError> {
        let (mut failed, mut rerun) = (0, 0);
        for stored in self.store.unfinished().await? {
            let task = &stored.task;
            // Another agent's manager on this store settles its own tasks.
            if *stored.agent != *self.agent || self.live_map().contains_key(&task.id) {
                continue;
            }
            let settle = match (&stored.checkpoint, task.status.state.is_interrupted()) {
                (Some(checkpoint), true) => match &checkpoint.question {
                    Some(question) => self.settle_waiting(task, checkpoint, question),
                    None => Settle::Fail(INTERRUPTED.to_owned()),
                },
                (Some(checkpoint), false) => self.settle_working(checkpoint),
                (None, _) => Settle::Fail(INTERRUPTED.to_owned()),
            };
            match settle {
                // With replicas, a survivor takes the waiting task over (the store records it
                // as this replica's), so it is not looked at again every lease; its answer
                // resumes it wherever it arrives.
                Settle::Wait if self.cluster.is_some() => match self.store.update(&stored).await {
                    Ok(()) | Err(StoreError::Conflict { .. } | StoreError::Missing(_)) => {}
                    Err(error) => return Err(error),
                },
                Settle::Wait => {}
                Settle::Rerun => {
                    if self.rerun(stored) {
                        rerun += 1;
                    }
                }
                Settle::Fail(reason) => match self.fail(stored, reason).await {
                    Ok(true) => failed += 1,
                    Ok(false) => {}
                    Err(error) => return Err(error),
                },
            }
        }
        if failed + rerun > 0 {
            tracing::warn!(
                failed,
                rerun,
                "tasks left unfinished by an earlier run were failed or run again"
            );
        }
        Ok(failed + rerun)
    }

    /// Whether a task left waiting on `question` may wait on.
    fn settle_waiting(&self, task: &Task, checkpoint: &Checkpoint, question: &Question) -> Settle {
        match self.skill(&checkpoint.skill).map(|s| s.resume()) {
            None | Some(Resume::Never) => return Settle::Fail(INTERRUPTED.to_owned()),
            Some(Resume::Answers | Resume::Rerun) => {}
        }
        let waited = chrono::Utc::now() - task.status.timestamp;
        let timeout = self.input.timeout();
        if waited.to_std().is_ok_and(|waited| waited > timeout) {
            return Settle::Fail(format!(
                "No answer to \"{}\" within {timeout:?}; the task was closed.",
                question.prompt
            ));
        }
        Settle::Wait
    }

    /// Whether a task that was working when the server stopped is run again.
    fn settle_working(&self, checkpoint: &Checkpoint) -> Settle {
        match self.skill(&checkpoint.skill).map(|s| s.resume()) {
            Some(Resume::Rerun) => Settle::Rerun,
            _ => Settle::Fail(INTERRUPTED.to_owned()),
        }
    }

    /// Runs the skill of `task` again from the start, with its recorded answers replayed; it
    /// starts over, so the artifacts of the interrupted run are dropped. `false` when its input
    /// no longer decodes (the task is then left to be failed by the next start).
    fn rerun(self: &Arc<Self>, mut stored: StoredTask) -> bool {
        let Some(checkpoint) = stored.checkpoint.clone() else {
            return false;
        };
        let Some(skill) = self.skill(&checkpoint.skill) else {
            return false;
        };
        let Ok(decoded) = skill.decode_input(&checkpoint.arguments) else {
            let manager = Arc::clone(self);
            let reason = "could not run again after a restart: the skill's input no longer \
                          decodes; send the request again"
                .to_owned();
            tokio::spawn(async move { manager.fail(stored, reason).await });
            return false;
        };
        let Ok(call) = Call::new(
            &skill,
            decoded,
            checkpoint.arguments.clone(),
            Some(checkpoint.request.clone()),
            checkpoint.caller.clone(),
            None,
        ) else {
            return false;
        };
        let call = call
            .over_recorded(checkpoint.protocol)
            .keyed(stored.idempotency_key.as_deref());
        let task = stored.task_mut();
        task.artifacts.clear();
        task.status = TaskStatus::now(TaskState::Submitted, None);
        let snapshot = stored.clone();
        let turn = self.dispatcher.meter().start(|| call.record());
        let live = self.live_task(stored, skill.id(), checkpoint.caller, None, None);
        live.begin_turn(turn);
        self.live_map().insert(live.id.clone(), Arc::clone(&live));
        let replay = Replay {
            answers: checkpoint.answers,
            pending: None,
        };
        let manager = Arc::clone(self);
        tokio::spawn(async move {
            // Another survivor may be settling the same task: whoever stores it first runs it.
            match manager.claim(&live, &snapshot).await {
                Ok(true) => {
                    manager
                        .execute(live, call, Vec::new(), Some(Box::new(replay)))
                        .await;
                }
                Ok(false) | Err(_) => {
                    manager.live_map().remove(&live.id);
                }
            }
        });
        true
    }

    /// Makes a task left by an earlier run this process's before its skill runs again: a write
    /// conditional on the version it was read at, so of two replicas resuming it at once only
    /// one runs it. `false` (and the task is no longer live here) if another one won.
    async fn claim(&self, live: &LiveTask, task: &StoredTask) -> Result<bool, TaskError> {
        let mut stored = live.persist.lock().await;
        match self.store.update(task).await {
            Ok(()) => {
                stored.version = task.version + 1;
                Ok(true)
            }
            Err(error) => {
                drop(stored);
                self.live_map().remove(&live.id);
                match error {
                    StoreError::Conflict { .. } | StoreError::Missing(_) => Ok(false),
                    error => Err(error.into()),
                }
            }
        }
    }

    /// Fails a stored task with `reason` unless another writer changed it first; whether it did.
    async fn fail(&self, mut stored: StoredTask, reason: String) -> Result<bool, StoreError> {
        let task = stored.task_mut();
        let reason = Message {
            task_id: Some(task.id.clone()),
            context_id: Some(task.context_id.clone()),
            ..Message::agent_text(reason)
        };
        task.history.push(reason.clone());
        task.status = TaskStatus::now(TaskState::Failed, Some(reason));
        stored.checkpoint = None;
        match self.store.update(&stored).await {
            Ok(()) => {
                self.announce(&stored);
                Ok(true)
            }
            Err(StoreError::Conflict { .. } | StoreError::Missing(_)) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Fails a task an answer could not resume; the answer is refused as for a finished task.
    async fn fail_stored(&self, stored: StoredTask, reason: String) -> TaskError {
        let id = stored.task.id.clone();
        match self.fail(stored, reason).await {
            Ok(_) => TaskError::Terminal {
                id,
                state: TaskState::Failed,
            },
            Err(error) => TaskError::Store(error),
        }
    }
}

/// The checkpoint and the question of `stored`, a task an earlier run left waiting, when an
/// answer of `kind` (to `question`, when named) is one it takes; `None` when it waits for
/// nothing it could be resumed for; an error when it waits for another answer.
fn waiting_on(
    stored: &StoredTask,
    kind: QuestionKind,
    question: Option<&str>,
) -> Result<Option<(Checkpoint, Question)>, TaskError> {
    let task = &stored.task;
    if !task.status.state.is_interrupted() {
        return Ok(None);
    }
    let Some(checkpoint) = stored.checkpoint.clone() else {
        return Ok(None);
    };
    let Some(pending) = checkpoint.question.clone() else {
        return Ok(None);
    };
    // An answer the task would not take is refused before anything runs.
    if pending.kind != kind {
        return Err(refused(&task.id, Refusal::WaitsFor(pending.kind), kind));
    }
    if let Some(id) = question
        && id != pending.id
    {
        return Err(refused(
            &task.id,
            Refusal::OtherQuestion(id.to_owned()),
            kind,
        ));
    }
    Ok(Some((checkpoint, pending)))
}

/// The call `checkpoint` recorded, made again for the caller that resumes it (`None`: the
/// application, for whom it runs as its first caller) over the protocol it first came over.
fn recorded_call(
    skill: &SkillEntry,
    decoded: DecodedInput,
    checkpoint: &Checkpoint,
    caller: Option<&CallerId>,
) -> Result<Call, TaskError> {
    let runs_for = caller.map_or_else(|| checkpoint.caller.clone(), |c| c.caller().clone());
    let call = Call::new(
        skill,
        decoded,
        checkpoint.arguments.clone(),
        Some(checkpoint.request.clone()),
        runs_for,
        caller.and_then(|c| c.trace().cloned()),
    )
    .map_err(TaskError::Forbidden)?;
    Ok(call.over_recorded(checkpoint.protocol))
}
