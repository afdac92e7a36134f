//! Answers: an answer, a grouped question's parts or an authorization reaching a task that
//! waits (live here, on another replica, or left by an earlier run and resumed), and the
//! question a task waits on.

use std::sync::Arc;

use super::error::{TaskError, refused};
use super::handle::TaskHandle;
use super::live::{LiveTask, Subscribed};
use super::manager::{TaskManager, check_context};
use crate::ask::{Answer, Question, QuestionKind};
use crate::auth::Caller;
use crate::dispatch::Dispatcher;
use crate::quota::CallerId;
use a2a_runtime_types::model::{Message, Part, Role, Task};

/// The question an answer is for: its kind, and its id when the answerer named one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Addressed<'a> {
    pub(super) kind: QuestionKind,
    pub(super) question: Option<&'a str>,
}

impl TaskManager {
    /// Answers the question task `task_id` waits on with `message`. Checked before anything is
    /// written (a2a-spec.md §11.1): an unknown task, a contextId mismatch, a finished task and a
    /// task not waiting for input are refused. A task an earlier run of the server left waiting
    /// is resumed: its skill runs again, the answers so far replayed (see `resume.rs`).
    pub async fn resume(
        self: &Arc<Self>,
        task_id: &str,
        message: Message,
        caller: &CallerId,
    ) -> Result<TaskHandle, TaskError> {
        let owner = caller.owner();
        let (live, revived) = match self.live(task_id, owner) {
            Some(live) => (live, None),
            None => {
                if let Some(handle) = self
                    .resume_remote(task_id, &message, caller.caller())
                    .await?
                {
                    return Ok(handle);
                }
                let stored = self.found(task_id, owner).await?;
                check_context(task_id, &stored.task.context_id, &message)?;
                let refusal = unresumable(&stored.task);
                self.revive(stored, QuestionKind::Input, None, Some(caller))
                    .await?
                    .ok_or(refusal)?
            }
        };
        self.may_answer(&live, caller.caller())?;
        check_context(task_id, &live.context_id, &message)?;
        let answer = Answer::Message(message.clone());
        let delivered = self
            .deliver(&live, QuestionKind::Input, None, answer, Some(message))
            .await;
        if let Some(revived) = revived {
            self.run_revived(&live, revived);
        }
        Ok(TaskHandle::here(live, Some(delivered?)))
    }

    /// Answers question `question_id` of task `task_id` with an MCP client's input response;
    /// an accepted value is kept in history as a data message.
    pub async fn answer(
        self: &Arc<Self>,
        task_id: &str,
        question_id: &str,
        answer: Answer,
        caller: &CallerId,
    ) -> Result<(), TaskError> {
        let history = match &answer {
            Answer::Value(value) => Some(Message {
                role: Role::User,
                ..Message::agent(vec![Part::data(value.clone())])
            }),
            Answer::Message(_) | Answer::Declined => None,
        };
        let to = Addressed {
            kind: QuestionKind::Input,
            question: Some(question_id),
        };
        self.answer_with(task_id, to, answer, history, Some(caller), caller.owner())
            .await
    }

    /// Tells task `task_id`, waiting in AUTH_REQUIRED, that its authorization arrived; the
    /// credential goes to the skill and is not kept in the task.
    pub async fn authorize(
        self: &Arc<Self>,
        task_id: &str,
        credential: serde_json::Value,
        owner: &str,
    ) -> Result<(), TaskError> {
        let answer = Answer::Value(credential);
        let to = Addressed {
            kind: QuestionKind::Auth,
            question: None,
        };
        self.answer_with(task_id, to, answer, None, None, owner)
            .await
    }

    /// Delivers an answer of `kind` (to question `id`, when given) to the live task, or resumes
    /// the task an earlier run left waiting. `caller` is who answers; `None` for the
    /// application (an authorization), which charges no quota and needs no scope.
    async fn answer_with(
        self: &Arc<Self>,
        task_id: &str,
        to: Addressed<'_>,
        answer: Answer,
        history: Option<Message>,
        caller: Option<&CallerId>,
        owner: &str,
    ) -> Result<(), TaskError> {
        let Addressed { kind, question } = to;
        let (live, revived) = match self.live(task_id, owner) {
            Some(live) => (live, None),
            None => {
                let remote = self
                    .answer_remote(
                        task_id,
                        owner,
                        to,
                        answer.clone(),
                        history.clone(),
                        caller.map(CallerId::caller),
                    )
                    .await?;
                if remote.is_some() {
                    return Ok(());
                }
                let stored = self.found(task_id, owner).await?;
                let refusal = unresumable(&stored.task);
                self.revive(stored, kind, question, caller)
                    .await?
                    .ok_or(refusal)?
            }
        };
        if let Some(caller) = caller {
            self.may_answer(&live, caller.caller())?;
        }
        let delivered = self.deliver(&live, kind, question, answer, history).await;
        if let Some(revived) = revived {
            self.run_revived(&live, revived);
        }
        delivered.map(drop)
    }

    /// An answer resumes the skill, so its caller must still hold the skill's scopes (a token
    /// may have lost them since the task started).
    pub(super) fn may_answer(&self, live: &LiveTask, caller: &Caller) -> Result<(), TaskError> {
        match self.dispatcher.registry().get(live.skill) {
            Some(skill) => Dispatcher::authorize(skill, caller).map_err(TaskError::Forbidden),
            None => Ok(()),
        }
    }

    /// Hands a waiting task its answer and records the resumed task.
    pub(super) async fn deliver(
        &self,
        live: &LiveTask,
        kind: QuestionKind,
        question: Option<&str>,
        answer: Answer,
        history: Option<Message>,
    ) -> Result<Subscribed, TaskError> {
        let resumed = live
            .answer(kind, question, answer, history, self.config.max_history)
            .map_err(|refusal| refused(&live.id, refusal, kind))?;
        self.persist(live).await;
        Ok(resumed)
    }

    /// Keeps `answers` for parts of the grouped question `question_id` of `task`, live on this
    /// process; once every part has one, the answer to the whole question is handed over.
    /// `Ok(false)` while parts still wait; `NotRunning` when the task runs elsewhere (or an
    /// earlier run left it waiting), where only a complete set of answers can be given.
    pub async fn answer_parts(
        self: &Arc<Self>,
        task_id: &str,
        question_id: &str,
        answers: Vec<(String, serde_json::Value)>,
        caller: &CallerId,
    ) -> Result<bool, TaskError> {
        let Some(live) = self.live(task_id, caller.owner()) else {
            return Err(TaskError::NotRunning(task_id.to_owned()));
        };
        self.may_answer(&live, caller.caller())?;
        let combined = live
            .answer_parts(question_id, answers)
            .map_err(|refusal| refused(&live.id, refusal, QuestionKind::Input))?;
        match combined {
            Some(answer) => {
                self.answer(task_id, question_id, answer, caller).await?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The skill running task `id` of `owner`, when it runs on this process.
    pub fn skill_of(&self, id: &str, owner: &str) -> Option<&'static str> {
        self.live(id, owner).map(|live| live.skill)
    }

    /// The question task `id` of `owner` waits on, when its skill runs on this process.
    pub fn live_question(&self, id: &str, owner: &str) -> Option<Question> {
        self.live(id, owner)?.question()
    }

    /// Like [`get`](Self::get), with the question the task waits on, if it waits: asked by its
    /// running skill, or, for a task an earlier run left waiting, the one recorded in its
    /// checkpoint.
    pub async fn get_waiting(
        &self,
        id: &str,
        owner: &str,
    ) -> Result<(Task, Option<Question>), TaskError> {
        if let Some(live) = self.live(id, owner) {
            let question = live.question();
            return Ok((self.get(id, owner, None).await?, question));
        }
        let stored = self.found(id, owner).await?;
        let question = match stored.task.status.state.is_interrupted() {
            true => stored.checkpoint.as_ref().and_then(|c| c.question.clone()),
            false => None,
        };
        Ok((stored.into_task(), question))
    }
}

/// Why an answer for `task`, which is not live here and cannot be resumed, is refused.
fn unresumable(task: &Task) -> TaskError {
    if task.status.state.is_terminal() {
        TaskError::Terminal {
            id: task.id.clone(),
            state: task.status.state,
        }
    } else {
        TaskError::NotRunning(task.id.clone())
    }
}
