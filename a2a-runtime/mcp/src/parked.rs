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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use rmcp::model::{InputRequiredResult, InputResponses, RequestStateCodec, SealOptions};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::asking::Abilities;
use super::elicit::{answer_of, input_requests};
use super::mrtr::{Client, MrtrAsker, ParkingClient, RerunAsked, RerunSlot};
use super::updates::{ArtifactCollector, ProgressForwarder, ProgressRelay};
use a2a_runtime_core::ask::{Answer, Asker, InputLimits, Question};
use a2a_runtime_core::call::SkillResult;
use a2a_runtime_core::context::UpdateSink;
use a2a_runtime_core::dispatch::{Attachments, Call, Dispatcher, Placement};
use a2a_runtime_core::quota::TaskSlot;
use a2a_runtime_core::skill_error::SkillError;

/// What a detached call tells the request driving it.
pub enum CallEvent {
    /// The skill asked and waits (it is parked under the round's id).
    Asked(Round),
    /// The skill returned.
    Finished(SkillResult),
}

/// A skill call running apart from the requests that drive it from one round to the next.
pub struct DetachedCall {
    pub skill: &'static str,
    /// The owner key of the caller the call runs for.
    pub owner: Arc<str>,
    pub events: mpsc::Receiver<CallEvent>,
    pub published: Arc<ArtifactCollector>,
    pub progress: Arc<ProgressRelay>,
    pub cancel: CancellationToken,
    /// The call's arguments and the answers its questions got so far, sealed into the state of
    /// its next question.
    record: Arc<Record>,
}

/// What makes a detached call again.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) arguments: Value,
    pub(crate) answers: Mutex<Vec<Answer>>,
}

impl Record {
    pub(crate) fn answers(&self) -> MutexGuard<'_, Vec<Answer>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The questions of one input-required result: the items of an `ask_all` (or the one
/// question of an `ask`), those answered already (replayed, or sent with the call or an
/// earlier retry) beside those that wait.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Round {
    /// New for every round: the key of the parked call.
    pub(crate) id: String,
    pub(crate) questions: Vec<Question>,
    /// One per question: its answer once known.
    pub(crate) known: Vec<Option<Answer>>,
}

impl Round {
    /// The questions that still wait for an answer.
    pub(crate) fn pending(&self) -> impl Iterator<Item = &Question> {
        self.questions
            .iter()
            .zip(&self.known)
            .filter(|(_, known)| known.is_none())
            .map(|(question, _)| question)
    }

    /// Takes each waiting question's answer from `responses`, where it holds a usable one.
    pub(crate) fn answer(&mut self, responses: &mut InputResponses) {
        for (question, known) in self.questions.iter().zip(&mut self.known) {
            if known.is_none() {
                *known = responses
                    .remove(question.key())
                    .and_then(|response| answer_of(question, response));
            }
        }
    }

    /// Every answer, in the order asked, once all are known.
    pub(crate) fn answers(&self) -> Option<Vec<Answer>> {
        self.known.iter().cloned().collect()
    }

    /// What the first waiting question asks, to name the round in errors.
    pub(crate) fn prompt(&self) -> String {
        self.pending()
            .next()
            .map(|question| question.prompt.clone())
            .unwrap_or_default()
    }
}

/// The sealed content of a `requestState`.
#[derive(Debug, Serialize, Deserialize)]
struct SealedState {
    /// The process that parked the call.
    origin: String,
    round: Round,
    arguments: Value,
    /// The answers of the call's earlier rounds.
    answers: Vec<Answer>,
}

/// A round waiting for a client's retry.
struct Parked {
    tool: &'static str,
    /// Takes every answer of the round, in the order asked.
    answers: oneshot::Sender<Vec<Answer>>,
    /// Attached by the request that returned the input-required result.
    call: Option<DetachedCall>,
}

/// Why a retry could not resume a call.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
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
pub enum Resumed {
    /// The answer was handed over; drive the call on.
    Answered(DetachedCall),
    /// The retry did not answer every question: ask again for those it left (answers it did
    /// give are kept in the new state).
    Unanswered(InputRequiredResult),
    /// The call was parked by another process: make it again.
    Rerun(Rerun),
}

/// A call to make again: its arguments, its questions answered with `answers` (the last ones
/// answer the state's round) before any is asked.
pub struct Rerun {
    pub arguments: Value,
    pub answers: Vec<Answer>,
}

/// The answers a call starts with: those a call made again replays, in order, then the input
/// responses sent with the call, by key.
#[derive(Default)]
pub struct Prior {
    pub replay: Vec<Answer>,
    pub offered: InputResponses,
}

/// How a detached call waits: its questions' limits, its cancellation grace, what the client
/// can answer, and where its progress goes from the start.
pub struct Detached {
    pub limits: InputLimits,
    pub grace: std::time::Duration,
    pub abilities: Abilities,
    pub progress: Option<Arc<ProgressForwarder>>,
}

/// The calls waiting for MRTR retries, and the key that seals their request states.
pub struct ParkedCalls {
    calls: Mutex<HashMap<String, Parked>>,
    codec: RequestStateCodec,
    /// This process, as the origin of the states it seals.
    origin: String,
}

/// The shortest sealing key accepted.
pub const MIN_STATE_KEY_BYTES: usize = 32;

impl ParkedCalls {
    /// A registry sealing with `key` (at least [`MIN_STATE_KEY_BYTES`]; every replica given
    /// the same key can open the others' states), or with a key random to this process.
    pub fn new(key: Option<&[u8]>) -> Self {
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

    /// Starts `call` detached, its questions answered through MRTR rounds: first from `prior`
    /// (the answers of a call made again from another process's state, then the input
    /// responses sent with the call), the rest parked as `detached` says.
    pub fn start(
        self: &Arc<Self>,
        dispatcher: &Arc<Dispatcher>,
        call: Call,
        quota: TaskSlot,
        prior: Prior,
        detached: Detached,
    ) -> DetachedCall {
        let Prior { replay, offered } = prior;
        let Detached {
            limits,
            grace,
            abilities,
            progress,
        } = detached;
        let record = Arc::new(Record {
            arguments: call.arguments.clone(),
            answers: Mutex::new(Vec::new()),
        });
        let (sender, events) = mpsc::channel(1);
        let published = Arc::new(ArtifactCollector::default());
        // Set before the skill starts: its first report may come at its first poll.
        let relay = Arc::new(ProgressRelay::default());
        relay.set(progress);
        let progress = relay;
        let cancel = CancellationToken::new();
        let skill = call.skill;
        let owner: Arc<str> = Arc::from(call.caller.owner());
        let asker = MrtrAsker {
            client: Client::Parks(ParkingClient {
                tool: skill,
                events: sender.clone(),
                parked: Arc::clone(self),
                limits,
                cancel: cancel.clone(),
            }),
            record: Arc::clone(&record),
            replay: Mutex::new(replay.into()),
            offered: Mutex::new(offered),
            abilities,
        };
        let attachments = Attachments {
            sinks: vec![
                Arc::clone(&published) as Arc<dyn UpdateSink>,
                Arc::clone(&progress) as Arc<dyn UpdateSink>,
            ],
            asker: Some(Arc::new(asker)),
            charge: Some(quota.charge()),
            ..Attachments::default()
        };
        let at = Placement::untracked(cancel.clone());
        let dispatcher = Arc::clone(dispatcher);
        tokio::spawn(async move {
            // The call counts against its caller's quota until the skill ends.
            let _quota = quota;
            let result = dispatcher
                .execute(call, at, attachments, grace)
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

    /// An asker for work done again on every retry (a prompt) rather than parked: it answers
    /// from `replay`, then from `offered`, and leaves the first round it cannot answer in the
    /// returned slot (the work then never resumes). `arguments` are sealed with the round.
    pub fn rerun_asker(
        arguments: Value,
        prior: Prior,
        abilities: Abilities,
    ) -> (Arc<dyn Asker>, RerunAsked) {
        let Prior { replay, offered } = prior;
        let slot = Arc::new(RerunSlot::default());
        let record = Arc::new(Record {
            arguments,
            answers: Mutex::new(Vec::new()),
        });
        let asker = MrtrAsker {
            client: Client::Reruns(Arc::clone(&slot)),
            record: Arc::clone(&record),
            replay: Mutex::new(replay.into()),
            offered: Mutex::new(offered),
            abilities,
        };
        (Arc::new(asker), RerunAsked { slot, record })
    }

    /// What tells the client to answer the round the rerun work `asked` and retry, under a
    /// state sealed to `name` (`prompts/get:` and the prompt) and `owner`.
    pub fn rerun_input_required(
        &self,
        asked: &RerunAsked,
        round: Round,
        name: &str,
        owner: &str,
        ttl: std::time::Duration,
    ) -> InputRequiredResult {
        let sealed = SealedState {
            // Never this process: a retry always does the work again.
            origin: String::new(),
            round,
            arguments: asked.record.arguments.clone(),
            answers: asked.record.answers().clone(),
        };
        self.input_required(&sealed, name, owner, ttl)
    }

    /// A `requestState` handing the client task `task_id`, created by a call of `tool` for
    /// `owner` and waiting for the answers of an input-required result before it is announced.
    pub fn seal_handoff(
        &self,
        task_id: &str,
        tool: &str,
        owner: &str,
        ttl: std::time::Duration,
    ) -> String {
        let content = serde_json::to_vec(&Handoff {
            task: task_id.to_owned(),
        })
        .unwrap_or_default();
        self.codec.seal_with(
            &content,
            &SealOptions::new()
                .associated_data(&sealed_to(&handoff_scope(tool), owner))
                .ttl(ttl),
        )
    }

    /// The task a handoff `state` names, if it is one sealed here for `tool` and `owner`.
    pub fn open_handoff(&self, state: &str, tool: &str, owner: &str) -> Option<String> {
        let content = self
            .codec
            .open_with(state, &sealed_to(&handoff_scope(tool), owner))
            .ok()?;
        serde_json::from_slice::<Handoff>(&content)
            .ok()
            .map(|handoff| handoff.task)
    }

    /// Leaves `call` waiting on `round` and returns what tells the client to answer it.
    pub fn park(
        &self,
        round: Round,
        call: DetachedCall,
        ttl: std::time::Duration,
    ) -> Result<InputRequiredResult, DetachedCall> {
        let (tool, owner, record) = (
            call.skill,
            Arc::clone(&call.owner),
            Arc::clone(&call.record),
        );
        match self.lock().get_mut(&round.id) {
            Some(parked) => parked.call = Some(call),
            // It expired before it could be parked; the call finishes with the error.
            None => return Err(call),
        }
        let sealed = SealedState {
            origin: self.origin.clone(),
            round,
            arguments: record.arguments.clone(),
            answers: record.answers().clone(),
        };
        Ok(self.input_required(&sealed, tool, &owner, ttl))
    }

    /// What tells the client to answer the waiting questions of `sealed` and retry with the
    /// state.
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
        InputRequiredResult::new(Some(input_requests(sealed.round.pending())), Some(state))
    }

    /// Resumes the call `state` names with the client's answers to its round; only the caller
    /// (`owner`) that made the call can. A retry that leaves questions unanswered gets them
    /// asked again, under a new state that keeps the answers it gave (sealed for `ttl`). A call
    /// another process parked is made again ([`Resumed::Rerun`]); one this process parked and
    /// no longer holds (answered, expired) is [`ResumeError::Gone`].
    pub fn resume(
        &self,
        tool: &str,
        owner: &str,
        state: &str,
        responses: Option<InputResponses>,
        progress: Option<Arc<ProgressForwarder>>,
        ttl: std::time::Duration,
    ) -> Result<Resumed, ResumeError> {
        let mut sealed: SealedState = self
            .codec
            .open_with(state, &sealed_to(tool, owner))
            .ok()
            .and_then(|content| serde_json::from_slice(&content).ok())
            .ok_or(ResumeError::Forged)?;
        sealed.round.answer(&mut responses.unwrap_or_default());
        let answers = sealed.round.answers();
        if sealed.origin != self.origin {
            return Ok(match answers {
                None => Resumed::Unanswered(self.input_required(&sealed, tool, owner, ttl)),
                Some(answers) => {
                    let mut replay = sealed.answers;
                    replay.extend(answers);
                    Resumed::Rerun(Rerun {
                        arguments: sealed.arguments,
                        answers: replay,
                    })
                }
            });
        }
        let mut calls = self.lock();
        calls
            .get(&sealed.round.id)
            .filter(|p| p.tool == tool && p.call.is_some())
            .ok_or(ResumeError::Gone)?;
        let Some(answers) = answers else {
            drop(calls);
            return Ok(Resumed::Unanswered(
                self.input_required(&sealed, tool, owner, ttl),
            ));
        };
        let parked = calls.remove(&sealed.round.id).ok_or(ResumeError::Gone)?;
        drop(calls);
        // Its reports go to this request from before the answer resumes the skill.
        if let Some(call) = &parked.call {
            call.progress.set(progress);
        }
        // The skill may have been dropped meanwhile; the call then finishes with that.
        let _ = parked.answers.send(answers);
        parked.call.map(Resumed::Answered).ok_or(ResumeError::Gone)
    }

    pub(crate) fn insert(
        &self,
        tool: &'static str,
        round: &Round,
        answers: oneshot::Sender<Vec<Answer>>,
    ) {
        self.lock().insert(
            round.id.clone(),
            Parked {
                tool,
                answers,
                call: None,
            },
        );
    }

    /// Drops the round `id` (it expired); `false` if a retry took it first.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// How many calls wait for retries.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// The sealed content of a handoff `requestState`: the task the retry continues.
#[derive(Serialize, Deserialize)]
struct Handoff {
    task: String,
}

/// What a handoff state is sealed to, apart from the states of parked calls of the same tool.
fn handoff_scope(tool: &str) -> String {
    format!("tasks/{tool}")
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

#[cfg(test)]
mod tests;
