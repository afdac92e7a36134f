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
    undeclared_roots, undeclared_sampling,
};
use super::elicit::{answer_of, input_requests};
use super::updates::{ArtifactCollector, ProgressRelay};
use a2a_runtime_core::ask::{
    Answer, AskError, Asker, ClientRequest, InputLimits, Question, QuestionKind, Root, Sampled,
    Sampling, roots_unsupported, sampling_unsupported,
};
use a2a_runtime_core::ask::{Ask, Reply};
use a2a_runtime_core::call::SkillResult;
use a2a_runtime_core::context::UpdateSink;
use a2a_runtime_core::dispatch::{Attachments, Call, Dispatcher, Placement};
use a2a_runtime_core::quota::TaskSlot;
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_types::model::new_id;
use a2a_runtime_types::util::BoxFuture;

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
struct Record {
    arguments: Value,
    answers: Mutex<Vec<Answer>>,
}

impl Record {
    fn answers(&self) -> MutexGuard<'_, Vec<Answer>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The questions of one input-required result: the items of an `ask_all` (or the one
/// question of an `ask`), those answered already (replayed, or sent with the call or an
/// earlier retry) beside those that wait.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Round {
    /// New for every round: the key of the parked call.
    id: String,
    questions: Vec<Question>,
    /// One per question: its answer once known.
    known: Vec<Option<Answer>>,
}

impl Round {
    /// The questions that still wait for an answer.
    fn pending(&self) -> impl Iterator<Item = &Question> {
        self.questions
            .iter()
            .zip(&self.known)
            .filter(|(_, known)| known.is_none())
            .map(|(question, _)| question)
    }

    /// Takes each waiting question's answer from `responses`, where it holds a usable one.
    fn answer(&mut self, responses: &mut InputResponses) {
        for (question, known) in self.questions.iter().zip(&mut self.known) {
            if known.is_none() {
                *known = responses
                    .remove(question.key())
                    .and_then(|response| answer_of(question, response));
            }
        }
    }

    /// Every answer, in the order asked, once all are known.
    fn answers(&self) -> Option<Vec<Answer>> {
        self.known.iter().cloned().collect()
    }

    /// What the first waiting question asks, to name the round in errors.
    fn prompt(&self) -> String {
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
    /// The call was parked by another process: make it again with these arguments, its
    /// questions answered with `answers` (the last ones answer the state's round) before any
    /// is asked.
    Rerun {
        arguments: Value,
        answers: Vec<Answer>,
    },
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

    /// Starts `call` detached, its questions answered through MRTR rounds; the first ones are
    /// answered with `replay` (a call made again from another process's state), and a question
    /// whose key `offered` holds (input responses sent with the call) with that response.
    pub fn start(
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
        (replay, offered): (Vec<Answer>, InputResponses),
        abilities: Abilities,
    ) -> (Arc<dyn Asker>, RerunAsked) {
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
        (name, owner): (&str, &str),
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
        (tool, owner): (&str, &str),
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
    pub fn open_handoff(&self, state: &str, (tool, owner): (&str, &str)) -> Option<String> {
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
        (tool, owner): (&str, &str),
        state: &str,
        responses: Option<InputResponses>,
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
                    Resumed::Rerun {
                        arguments: sealed.arguments,
                        answers: replay,
                    }
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
        // The skill may have been dropped meanwhile; the call then finishes with that.
        let _ = parked.answers.send(answers);
        parked.call.map(Resumed::Answered).ok_or(ResumeError::Gone)
    }

    fn insert(&self, tool: &'static str, round: &Round, answers: oneshot::Sender<Vec<Answer>>) {
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
    fn remove(&self, id: &str) -> bool {
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

/// How a round of questions reaches the client.
enum Client {
    /// The call waits, parked, for the client's retry.
    Parks(ParkingClient),
    /// The work stops and is done again on the retry, its answers replayed (a prompt: cheap
    /// and free of side effects).
    Reruns(Arc<RerunSlot>),
}

/// Parks a detached call on its round until the client's retry answers it.
struct ParkingClient {
    tool: &'static str,
    events: mpsc::Sender<CallEvent>,
    parked: Arc<ParkedCalls>,
    limits: InputLimits,
    cancel: CancellationToken,
}

impl ParkingClient {
    async fn ask(&self, round: Round) -> Result<Vec<Answer>, AskError> {
        let prompt = round.prompt();
        let _slot = self.limits.acquire(&prompt)?;
        let canceled = || AskError::Canceled {
            prompt: prompt.clone(),
        };
        let (sender, mut answers) = oneshot::channel();
        self.parked.insert(self.tool, &round, sender);
        let id = round.id.clone();
        if self.events.send(CallEvent::Asked(round)).await.is_err() {
            self.parked.remove(&id);
            return Err(canceled());
        }
        tokio::select! {
            answers = &mut answers => answers.map_err(|_| canceled()),
            () = tokio::time::sleep(self.limits.timeout()) => {
                if self.parked.remove(&id) {
                    // The client never came back: stop the skill if it ignores the error.
                    self.cancel.cancel();
                    Err(self.limits.expired(&prompt))
                } else {
                    answers.await.map_err(|_| canceled())
                }
            }
        }
    }
}

/// What rerun work asked, and the answers it had been given before.
pub struct RerunAsked {
    pub slot: Arc<RerunSlot>,
    record: Arc<Record>,
}

/// Where work that is done again on every retry leaves the round it asked.
#[derive(Default)]
pub struct RerunSlot {
    round: Mutex<Option<Round>>,
    asked: tokio::sync::Notify,
}

impl RerunSlot {
    fn hold(&self, round: Round) {
        *self.round.lock().unwrap_or_else(PoisonError::into_inner) = Some(round);
        self.asked.notify_one();
    }

    /// The round asked, once one is.
    pub async fn asked(&self) -> Round {
        loop {
            let notified = self.asked.notified();
            if let Some(round) = self
                .round
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
            {
                return round;
            }
            notified.await;
        }
    }
}

/// Puts a detached call's questions to the client as input-required results.
struct MrtrAsker {
    /// How a round reaches the client.
    client: Client,
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
    /// Answers every question, in order: from the answers being replayed, else from the
    /// responses sent with the call, else in one input-required round for all the rest.
    async fn wait(&self, questions: Vec<Question>) -> Result<Vec<Answer>, AskError> {
        let known: Vec<Option<Answer>> = {
            let mut replay = self.replay.lock().unwrap_or_else(PoisonError::into_inner);
            let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
            questions
                .iter()
                .map(|question| {
                    replay.pop_front().or_else(|| {
                        let response = offered.remove(question.key())?;
                        answer_of(question, response)
                    })
                })
                .collect()
        };
        let round = Round {
            id: new_id(),
            questions,
            known,
        };
        let answers = match round.answers() {
            Some(answers) => answers,
            None => self.ask_client(round).await?,
        };
        self.record.answers().extend(answers.iter().cloned());
        Ok(answers)
    }

    /// Puts the unanswered questions of `round` to the client (authorization never reaches
    /// here: [`question`](Self::question) refuses it).
    async fn ask_client(&self, round: Round) -> Result<Vec<Answer>, AskError> {
        match &self.client {
            Client::Parks(client) => client.ask(round).await,
            Client::Reruns(slot) => {
                slot.hold(round);
                // The request returns the round; the work that asked is dropped with this.
                std::future::pending().await
            }
        }
    }

    /// The question that puts `ask` to the client, if it declared it can answer it.
    #[allow(deprecated)] // Sampling and roots: see `asking.rs`.
    fn question(&self, ask: &Ask) -> Result<Question, AskError> {
        match ask {
            Ask::Input(question) if question.kind == QuestionKind::Auth => {
                Err(auth_unsupported(question))
            }
            Ask::Input(question) if !self.abilities.forms => Err(NoAnswers::refusal(question)),
            Ask::Input(question) => Ok(question.clone()),
            Ask::Sample(request) => {
                if !self.abilities.sampling {
                    return Err(undeclared_sampling(request));
                }
                let params = serde_json::to_value(create_message_params(request))
                    .map_err(|e| sampling_unsupported(request, &e.to_string()))?;
                Ok(Self::request(
                    request.summary(),
                    request.key.clone(),
                    ClientRequest::Sampling(params),
                ))
            }
            Ask::Roots(key) => {
                if !self.abilities.roots {
                    return Err(undeclared_roots());
                }
                Ok(Self::request(
                    "roots/list".into(),
                    key.clone(),
                    ClientRequest::Roots,
                ))
            }
        }
    }

    /// A question for the client's model or roots, answered like any other.
    fn request(prompt: String, key: Option<String>, request: ClientRequest) -> Question {
        Question {
            key,
            request,
            ..Question::input(prompt, Value::Null)
        }
    }

    /// The client's answer to `ask`, as the skill reads it.
    #[allow(deprecated)] // Sampling and roots: see `asking.rs`.
    fn reply(ask: &Ask, answer: Answer) -> Result<Reply, AskError> {
        match (ask, answer) {
            (Ask::Input(_), answer) => Ok(Reply::Answer(answer)),
            (Ask::Sample(request), Answer::Value(value)) => {
                serde_json::from_value::<CreateMessageResult>(value)
                    .map(|result| Reply::Sampled(sampled_of(result)))
                    .map_err(|e| sampling_unsupported(request, &e.to_string()))
            }
            (Ask::Sample(request), _) => Err(sampling_unsupported(
                request,
                "the client sent no completion",
            )),
            (Ask::Roots(_), Answer::Value(value)) => {
                serde_json::from_value::<ListRootsResult>(value)
                    .map(|listed| Reply::Roots(roots_of(listed)))
                    .map_err(|e| roots_unsupported(&e.to_string()))
            }
            (Ask::Roots(_), _) => Err(roots_unsupported("the client sent no roots")),
        }
    }

    async fn ask_round(&self, asks: &[Ask]) -> Result<Vec<Reply>, AskError> {
        let questions = asks
            .iter()
            .map(|ask| self.question(ask))
            .collect::<Result<Vec<_>, _>>()?;
        let answers = self.wait(questions).await?;
        asks.iter()
            .zip(answers)
            .map(|(ask, answer)| Self::reply(ask, answer))
            .collect()
    }

    async fn ask_one(&self, ask: Ask) -> Result<Reply, AskError> {
        let prompt = ask.prompt();
        self.ask_round(std::slice::from_ref(&ask))
            .await?
            .pop()
            .ok_or(AskError::Canceled { prompt })
    }
}

impl Asker for MrtrAsker {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        Box::pin(async move {
            match self.ask_one(Ask::Input(question.clone())).await? {
                Reply::Answer(answer) => Ok(answer),
                _ => Err(NoAnswers::refusal(question)),
            }
        })
    }

    fn sample<'a>(&'a self, request: &'a Sampling) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(async move {
            match self.ask_one(Ask::Sample(request.clone())).await? {
                Reply::Sampled(sampled) => Ok(sampled),
                _ => Err(sampling_unsupported(
                    request,
                    "the client sent no completion",
                )),
            }
        })
    }

    fn roots(&self) -> BoxFuture<'_, Result<Vec<Root>, AskError>> {
        Box::pin(async move {
            match self.ask_one(Ask::Roots(None)).await? {
                Reply::Roots(roots) => Ok(roots),
                _ => Err(roots_unsupported("the client sent no roots")),
            }
        })
    }

    fn ask_all<'a>(&'a self, asks: &'a [Ask]) -> BoxFuture<'a, Result<Vec<Reply>, AskError>> {
        Box::pin(self.ask_round(asks))
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
            client: Client::Parks(ParkingClient {
                tool: "t",
                events,
                parked: Arc::clone(parked),
                limits: limits.clone(),
                cancel: CancellationToken::new(),
            }),
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
        let waiting = tokio::spawn(async move { asker.wait(vec![question]).await });
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
            round: asked,
            arguments: serde_json::json!({}),
            answers: Vec::new(),
        };
        let state = parked.input_required(&sealed, "t", "anonymous", Duration::from_secs(1));
        let state = state.request_state.expect("sealed state");
        assert!(matches!(
            parked.resume(("t", "anonymous"), &state, None, Duration::from_secs(1)),
            Err(ResumeError::Gone)
        ));
        // Sealed to its caller: another one cannot even learn that it is gone.
        assert!(matches!(
            parked.resume(
                ("t", "bearer:mallory"),
                &state,
                None,
                Duration::from_secs(1)
            ),
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
        let _waiting = tokio::spawn(async move { first.wait(vec![held]).await });
        assert!(events.recv().await.is_some());
        let (second, _events) = asker(&parked, &limits);
        let refused = second.wait(vec![question]).await;
        assert!(
            matches!(refused, Err(AskError::Capacity { limit: 1, .. })),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn a_retry_that_answers_part_of_a_round_is_asked_for_the_rest() {
        let parked = Arc::new(ParkedCalls::new(None));
        let limits = InputLimits::new(Duration::from_secs(60), 4);
        let (asker, mut events) = asker(&parked, &limits);
        let named = |name: &str| Question {
            key: Some(name.into()),
            ..Question::input(name.into(), serde_json::json!({"type": "string"}))
        };
        let questions = vec![named("first"), named("second")];
        let waiting = tokio::spawn(async move { asker.wait(questions).await });
        let Some(CallEvent::Asked(round)) = events.recv().await else {
            panic!("the round is announced");
        };
        let sealed = SealedState {
            origin: parked.origin.clone(),
            round,
            arguments: serde_json::json!({}),
            answers: Vec::new(),
        };
        let ttl = Duration::from_secs(60);
        let result = parked.input_required(&sealed, "t", "anonymous", ttl);
        let keys: Vec<&String> = result
            .input_requests
            .iter()
            .flatten()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["first", "second"]);
        // Parked calls need a call attached before a retry reaches them.
        let (_, events_rx) = mpsc::channel(1);
        let call = DetachedCall {
            skill: "t",
            owner: Arc::from("anonymous"),
            events: events_rx,
            published: Arc::default(),
            progress: Arc::default(),
            cancel: CancellationToken::new(),
            record: Arc::new(Record {
                arguments: serde_json::json!({}),
                answers: Mutex::new(Vec::new()),
            }),
        };
        assert!(parked.park(sealed.round.clone(), call, ttl).is_ok());
        let accept =
            |value: &str| serde_json::json!({"action": "accept", "content": {"answer": value}});
        let state = result.request_state.expect("state");
        let partial = InputResponses::from([("first".to_owned(), accept("one"))]);
        let Ok(Resumed::Unanswered(again)) =
            parked.resume(("t", "anonymous"), &state, Some(partial), ttl)
        else {
            panic!("the rest is asked for");
        };
        let keys: Vec<&String> = again
            .input_requests
            .iter()
            .flatten()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["second"], "only what is missing");
        let rest = InputResponses::from([("second".to_owned(), accept("two"))]);
        let state = again.request_state.expect("a new state");
        assert!(matches!(
            parked.resume(("t", "anonymous"), &state, Some(rest), ttl),
            Ok(Resumed::Answered(_))
        ));
        let answers = waiting.await.expect("asker task").expect("answers");
        assert_eq!(
            answers,
            [
                Answer::Value(serde_json::json!("one")),
                Answer::Value(serde_json::json!("two"))
            ]
        );
    }
}
