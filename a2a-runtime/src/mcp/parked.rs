//! Calls suspended between MRTR rounds (protocol 2026-07-28). A skill that asks makes its call
//! return an input-required result while the skill keeps waiting, detached from any request,
//! until the client retries with the answer and the sealed `requestState`, or the question
//! expires. The state is HMAC-sealed to the tool and to the caller that made the call, so a
//! client can neither forge one nor replay it against another tool, and another caller holding
//! it cannot answer; on the process that made it, it is single-use.
//!
//! The state also carries what it takes to make the call again: the process that parked it,
//! the question, the call's arguments and the answers given so far. A retry that reaches
//! another process (another replica sharing the sealing key, or this server after a restart)
//! runs the call again there, the answers so far replayed into `ctx.ask`, and the new answer
//! for the question the state names.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use rmcp::model::{InputRequiredResult, InputResponses, RequestStateCodec, SealOptions};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

#[allow(deprecated)] // Sampling and roots: see `asking.rs`.
use rmcp::model::{CreateMessageResult, ListRootsResult};

use super::asking::{
    Abilities, NoAnswers, auth_unsupported, create_message_params, roots_of, sampled_of,
};
use super::elicit::{answer_of, input_requests};
use super::updates::{ArtifactCollector, ProgressRelay};
use crate::ask::{
    Answer, AskError, Asker, ClientRequest, InputLimits, Question, QuestionKind, Root, Sampled,
    Sampling, roots_unsupported, sampling_unsupported,
};
use crate::call::SkillResult;
use crate::context::UpdateSink;
use crate::dispatch::{Call, Dispatcher};
use crate::model::new_id;
use crate::quota::TaskSlot;
use crate::skill_error::SkillError;
use crate::util::BoxFuture;

/// What a detached call tells the request driving it.
pub(crate) enum CallEvent {
    /// The skill asked a question and waits (it is parked under the question's id).
    Asked(Question),
    /// The skill returned.
    Finished(SkillResult),
}

/// A skill call running apart from the requests that drive it from one round to the next.
pub(crate) struct DetachedCall {
    pub(crate) skill: &'static str,
    /// The owner key of the caller the call runs for.
    pub(crate) owner: Arc<str>,
    pub(crate) events: mpsc::Receiver<CallEvent>,
    pub(crate) published: Arc<ArtifactCollector>,
    pub(crate) progress: Arc<ProgressRelay>,
    pub(crate) cancel: CancellationToken,
    /// The call's arguments and the answers its questions got so far, sealed into the state of
    /// its next question.
    record: Arc<Record>,
}

/// What makes a detached call again.
#[derive(Debug)]
struct Record {
    arguments: Value,
    answers: Mutex<Vec<Answer>>,
}

impl Record {
    fn answers(&self) -> MutexGuard<'_, Vec<Answer>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sealed content of a `requestState`.
#[derive(Debug, Serialize, Deserialize)]
struct SealedState {
    /// The process that parked the call.
    origin: String,
    question: Question,
    arguments: Value,
    answers: Vec<Answer>,
}

/// A question waiting for a client's retry.
struct Parked {
    tool: &'static str,
    question: Question,
    answer: oneshot::Sender<Answer>,
    /// Attached by the request that returned the input-required result.
    call: Option<DetachedCall>,
}

/// Why a retry could not resume a call.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResumeError {
    #[error(
        "requestState failed verification: it was altered, or it belongs to another tool or caller; call the tool again without it"
    )]
    Forged,
    #[error(
        "requestState names no waiting call: it was already answered, or its question expired; call the tool again without it"
    )]
    Gone,
}

/// What a retry found.
pub(crate) enum Resumed {
    /// The answer was handed over; drive the call on.
    Answered(DetachedCall),
    /// The retry carried no usable answer; the question still waits, under the same state.
    Unanswered(Question),
    /// The call was parked by another process: make it again with these arguments, its
    /// questions answered with `answers` (the last one answers the state's question) before any
    /// is asked.
    Rerun {
        arguments: Value,
        answers: Vec<Answer>,
    },
}

/// The calls waiting for MRTR retries, and the key that seals their request states.
pub(crate) struct ParkedCalls {
    calls: Mutex<HashMap<String, Parked>>,
    codec: RequestStateCodec,
    /// This process, as the origin of the states it seals.
    origin: String,
}

/// The shortest sealing key accepted.
pub(crate) const MIN_STATE_KEY_BYTES: usize = 32;

impl ParkedCalls {
    /// A registry sealing with `key` (at least [`MIN_STATE_KEY_BYTES`]; every replica given
    /// the same key can open the others' states), or with a key random to this process.
    pub(crate) fn new(key: Option<&[u8]>) -> Self {
        let key = match key {
            Some(key) if key.len() >= MIN_STATE_KEY_BYTES => key.to_vec(),
            _ => {
                let mut key = Vec::with_capacity(32);
                key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
                key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
                key
            }
        };
        Self {
            calls: Mutex::new(HashMap::new()),
            codec: RequestStateCodec::try_new(key)
                .expect("a 32-byte key meets the codec's minimum length"),
            origin: uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Parked>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `call` detached, its questions answered through MRTR rounds; the first ones are
    /// answered with `replay` (a call made again from another process's state), and a question
    /// whose key `offered` holds (input responses sent with the call) with that response.
    pub(crate) fn start(
        self: &Arc<Self>,
        dispatcher: &Arc<Dispatcher>,
        call: Call,
        (limits, grace): (InputLimits, std::time::Duration),
        quota: TaskSlot,
        (replay, offered): (Vec<Answer>, InputResponses),
        abilities: Abilities,
    ) -> DetachedCall {
        let record = Arc::new(Record {
            arguments: call.arguments.clone(),
            answers: Mutex::new(Vec::new()),
        });
        let (sender, events) = mpsc::channel(1);
        let published = Arc::new(ArtifactCollector::default());
        let progress = Arc::new(ProgressRelay::default());
        let cancel = CancellationToken::new();
        let skill = call.skill;
        let owner: Arc<str> = Arc::from(call.caller.owner());
        let asker = MrtrAsker {
            tool: skill,
            events: sender.clone(),
            parked: Arc::clone(self),
            limits,
            cancel: cancel.clone(),
            record: Arc::clone(&record),
            replay: Mutex::new(replay.into()),
            offered: Mutex::new(offered),
            abilities,
        };
        let call_id = new_id();
        let context = call
            .context(call_id.clone(), call_id, cancel.clone())
            .sink(Arc::clone(&published) as Arc<dyn UpdateSink>)
            .sink(Arc::clone(&progress) as Arc<dyn UpdateSink>)
            .asker(Some(Arc::new(asker)))
            .build();
        let dispatcher = Arc::clone(dispatcher);
        tokio::spawn(async move {
            // The call counts against its caller's quota until the skill ends.
            let _quota = quota;
            let result = dispatcher
                .run(call, context, grace)
                .await
                .unwrap_or_else(|| Err(SkillError::new("the call was canceled")));
            // Nobody listening means the call was abandoned (its question expired).
            let _ = sender.send(CallEvent::Finished(result)).await;
        });
        DetachedCall {
            skill,
            owner,
            events,
            published,
            progress,
            cancel,
            record,
        }
    }

    /// Leaves `call` waiting on `question` and returns what tells the client to answer it.
    pub(crate) fn park(
        &self,
        question: &Question,
        call: DetachedCall,
        ttl: std::time::Duration,
    ) -> Result<InputRequiredResult, DetachedCall> {
        let (tool, owner, record) = (
            call.skill,
            Arc::clone(&call.owner),
            Arc::clone(&call.record),
        );
        match self.lock().get_mut(&question.id) {
            Some(parked) => parked.call = Some(call),
            // It expired before it could be parked; the call finishes with the error.
            None => return Err(call),
        }
        let sealed = SealedState {
            origin: self.origin.clone(),
            question: question.clone(),
            arguments: record.arguments.clone(),
            answers: record.answers().clone(),
        };
        Ok(self.input_required(&sealed, tool, &owner, ttl))
    }

    /// What tells the client to answer the question of `sealed` and retry with the state.
    fn input_required(
        &self,
        sealed: &SealedState,
        tool: &str,
        owner: &str,
        ttl: std::time::Duration,
    ) -> InputRequiredResult {
        // Serializing plain data cannot fail.
        let content = serde_json::to_vec(sealed).unwrap_or_default();
        let state = self.codec.seal_with(
            &content,
            &SealOptions::new()
                .associated_data(&sealed_to(tool, owner))
                .ttl(ttl),
        );
        InputRequiredResult::new(Some(input_requests(&sealed.question)), Some(state))
    }

    /// Resumes the call `state` names with the client's answer to its question; only the
    /// caller (`owner`) that made the call can. A call another process parked is made again
    /// ([`Resumed::Rerun`]); one this process parked and no longer holds (answered, expired) is
    /// [`ResumeError::Gone`].
    pub(crate) fn resume(
        &self,
        tool: &str,
        owner: &str,
        state: &str,
        responses: Option<InputResponses>,
    ) -> Result<Resumed, ResumeError> {
        let sealed: SealedState = self
            .codec
            .open_with(state, &sealed_to(tool, owner))
            .ok()
            .and_then(|content| serde_json::from_slice(&content).ok())
            .ok_or(ResumeError::Forged)?;
        let id = sealed.question.id.clone();
        let answer = responses
            .and_then(|mut responses| responses.remove(sealed.question.key()))
            .and_then(|response| answer_of(&sealed.question, response));
        if sealed.origin != self.origin {
            return Ok(match answer {
                None => Resumed::Unanswered(sealed.question),
                Some(answer) => {
                    let mut answers = sealed.answers;
                    answers.push(answer);
                    Resumed::Rerun {
                        arguments: sealed.arguments,
                        answers,
                    }
                }
            });
        }
        let mut calls = self.lock();
        let parked = calls
            .get(&id)
            .filter(|p| p.tool == tool && p.call.is_some())
            .ok_or(ResumeError::Gone)?;
        let Some(answer) = answer else {
            return Ok(Resumed::Unanswered(parked.question.clone()));
        };
        let parked = calls.remove(&id).ok_or(ResumeError::Gone)?;
        drop(calls);
        // The skill may have been dropped meanwhile; the call then finishes with that.
        let _ = parked.answer.send(answer);
        parked.call.map(Resumed::Answered).ok_or(ResumeError::Gone)
    }

    fn insert(&self, tool: &'static str, question: &Question, answer: oneshot::Sender<Answer>) {
        self.lock().insert(
            question.id.clone(),
            Parked {
                tool,
                question: question.clone(),
                answer,
                call: None,
            },
        );
    }

    /// Drops the question `id` (it expired); `false` if a retry took it first.
    fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// How many calls wait for retries.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// What a request state is sealed to: the tool and the owner of the call. A NUL cannot occur
/// in a tool name, so the pair is unambiguous.
fn sealed_to(tool: &str, owner: &str) -> Vec<u8> {
    let mut data = Vec::with_capacity(tool.len() + 1 + owner.len());
    data.extend_from_slice(tool.as_bytes());
    data.push(0);
    data.extend_from_slice(owner.as_bytes());
    data
}

/// Puts a detached call's questions to the client as input-required results.
struct MrtrAsker {
    tool: &'static str,
    events: mpsc::Sender<CallEvent>,
    parked: Arc<ParkedCalls>,
    limits: InputLimits,
    cancel: CancellationToken,
    /// Where the answers are recorded, for the states of later questions.
    record: Arc<Record>,
    /// Answers given before, for a call made again: handed out before anything is asked.
    replay: Mutex<VecDeque<Answer>>,
    /// Responses the client sent with the call, by input request key; each answers the first
    /// question asked under its key (unusable ones are ignored, and the question is asked).
    offered: Mutex<InputResponses>,
    /// What the client may be asked.
    abilities: Abilities,
}

impl MrtrAsker {
    async fn wait(&self, question: &Question) -> Result<Answer, AskError> {
        let replayed = self
            .replay
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        let offered = || {
            let response = self
                .offered
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(question.key())?;
            answer_of(question, response)
        };
        let answer = match replayed.or_else(offered) {
            Some(answer) => answer,
            None => self.ask_client(question).await?,
        };
        self.record.answers().push(answer.clone());
        Ok(answer)
    }

    async fn ask_client(&self, question: &Question) -> Result<Answer, AskError> {
        if question.kind == QuestionKind::Auth {
            return Err(auth_unsupported(question));
        }
        let _slot = self.limits.acquire(&question.prompt)?;
        let canceled = || AskError::Canceled {
            prompt: question.prompt.clone(),
        };
        let (sender, mut answer) = oneshot::channel();
        self.parked.insert(self.tool, question, sender);
        if self
            .events
            .send(CallEvent::Asked(question.clone()))
            .await
            .is_err()
        {
            self.parked.remove(&question.id);
            return Err(canceled());
        }
        tokio::select! {
            answer = &mut answer => answer.map_err(|_| canceled()),
            () = tokio::time::sleep(self.limits.timeout()) => {
                if self.parked.remove(&question.id) {
                    // The client never came back: stop the skill if it ignores the error.
                    self.cancel.cancel();
                    Err(self.limits.expired(&question.prompt))
                } else {
                    answer.await.map_err(|_| canceled())
                }
            }
        }
    }
}

impl MrtrAsker {
    /// A question for the client's model or roots, answered like any other.
    fn request(prompt: String, key: Option<String>, request: ClientRequest) -> Question {
        Question {
            key,
            request,
            ..Question::input(prompt, Value::Null)
        }
    }
}

#[allow(deprecated)] // Sampling and roots: see `asking.rs`.
impl Asker for MrtrAsker {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        if self.abilities.forms || question.kind == QuestionKind::Auth {
            Box::pin(self.wait(question))
        } else {
            NoAnswers.ask(question)
        }
    }

    fn sample<'a>(&'a self, request: &'a Sampling) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(async move {
            if !self.abilities.sampling {
                return Err(sampling_unsupported(
                    request,
                    "the MCP client did not declare the sampling capability",
                ));
            }
            let params = serde_json::to_value(create_message_params(request))
                .map_err(|e| sampling_unsupported(request, &e.to_string()))?;
            let question = Self::request(
                request.summary(),
                request.key.clone(),
                ClientRequest::Sampling(params),
            );
            match self.wait(&question).await? {
                Answer::Value(value) => serde_json::from_value::<CreateMessageResult>(value)
                    .map(sampled_of)
                    .map_err(|e| sampling_unsupported(request, &e.to_string())),
                _ => Err(sampling_unsupported(
                    request,
                    "the client sent no completion",
                )),
            }
        })
    }

    fn roots(&self) -> BoxFuture<'_, Result<Vec<Root>, AskError>> {
        Box::pin(async move {
            if !self.abilities.roots {
                return Err(roots_unsupported(
                    "the MCP client did not declare the roots capability",
                ));
            }
            let question = Self::request("roots/list".into(), None, ClientRequest::Roots);
            match self.wait(&question).await? {
                Answer::Value(value) => serde_json::from_value::<ListRootsResult>(value)
                    .map(roots_of)
                    .map_err(|e| roots_unsupported(&e.to_string())),
                _ => Err(roots_unsupported("the client sent no roots")),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn asker(
        parked: &Arc<ParkedCalls>,
        limits: &InputLimits,
    ) -> (MrtrAsker, mpsc::Receiver<CallEvent>) {
        let (events, receiver) = mpsc::channel(1);
        let asker = MrtrAsker {
            tool: "t",
            events,
            parked: Arc::clone(parked),
            limits: limits.clone(),
            cancel: CancellationToken::new(),
            record: Arc::new(Record {
                arguments: serde_json::json!({}),
                answers: Mutex::new(Vec::new()),
            }),
            replay: Mutex::new(VecDeque::new()),
            offered: Mutex::default(),
            abilities: Abilities {
                forms: true,
                sampling: false,
                roots: false,
            },
        };
        (asker, receiver)
    }

    fn question() -> Question {
        Question::input("How many?".into(), serde_json::json!({"type": "integer"}))
    }

    #[tokio::test]
    async fn an_expired_question_is_reaped_and_frees_its_slot() {
        let parked = Arc::new(ParkedCalls::new(None));
        let limits = InputLimits::new(Duration::from_millis(20), 4);
        let (asker, mut events) = asker(&parked, &limits);
        let question = question();
        let waiting = tokio::spawn(async move { asker.wait(&question).await });
        let Some(CallEvent::Asked(asked)) = events.recv().await else {
            panic!("the question is announced");
        };
        assert_eq!(parked.len(), 1);
        assert_eq!(limits.waiting(), 1);
        let outcome = waiting.await.expect("asker task");
        assert!(
            matches!(outcome, Err(AskError::Expired { .. })),
            "{outcome:?}"
        );
        assert_eq!(parked.len(), 0, "reaped");
        assert_eq!(limits.waiting(), 0, "slot freed");
        let sealed = SealedState {
            origin: parked.origin.clone(),
            question: asked,
            arguments: serde_json::json!({}),
            answers: Vec::new(),
        };
        let state = parked.input_required(&sealed, "t", "anonymous", Duration::from_secs(1));
        let state = state.request_state.expect("sealed state");
        assert!(matches!(
            parked.resume("t", "anonymous", &state, None),
            Err(ResumeError::Gone)
        ));
        // Sealed to its caller: another one cannot even learn that it is gone.
        assert!(matches!(
            parked.resume("t", "bearer:mallory", &state, None),
            Err(ResumeError::Forged)
        ));
    }

    #[tokio::test]
    async fn questions_beyond_the_limit_are_refused() {
        let parked = Arc::new(ParkedCalls::new(None));
        let limits = InputLimits::new(Duration::from_secs(60), 1);
        let (first, mut events) = asker(&parked, &limits);
        let question = question();
        let held = question.clone();
        let _waiting = tokio::spawn(async move { first.wait(&held).await });
        assert!(events.recv().await.is_some());
        let (second, _events) = asker(&parked, &limits);
        let refused = second.wait(&question).await;
        assert!(
            matches!(refused, Err(AskError::Capacity { limit: 1, .. })),
            "{refused:?}"
        );
    }
}
