//! The asker of a call on protocol 2026-07-28, which has no server-to-client requests: a
//! question (a form, a sampling request, a roots request) becomes a round of input-required
//! results. A parked call waits for the client's retry (`ParkingClient`); a prompt stops and is
//! done again on the retry with its answers replayed (`RerunSlot`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::InputResponses;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

#[allow(deprecated)] // Sampling and roots: see `asking.rs`.
use rmcp::model::{CreateMessageResult, ListRootsResult};

use super::asking::{
    Abilities, NoAnswers, auth_unsupported, create_message_params, roots_of, sampled_of,
    undeclared_roots, undeclared_sampling,
};
use super::elicit::answer_of;
use super::parked::{CallEvent, ParkedCalls, Record, Round};
use a2a_runtime_core::ask::{
    Answer, AskError, Asker, ClientRequest, InputLimits, Question, QuestionKind, Root, Sampled,
    Sampling, roots_unsupported, sampling_unsupported,
};
use a2a_runtime_core::ask::{Ask, Reply};
use a2a_runtime_types::model::new_id;
use a2a_runtime_types::util::BoxFuture;

/// How a round of questions reaches the client.
pub(crate) enum Client {
    /// The call waits, parked, for the client's retry.
    Parks(ParkingClient),
    /// The work stops and is done again on the retry, its answers replayed (a prompt: cheap
    /// and free of side effects).
    Reruns(Arc<RerunSlot>),
}

/// Parks a detached call on its round until the client's retry answers it.
pub(crate) struct ParkingClient {
    pub(crate) tool: &'static str,
    pub(crate) events: mpsc::Sender<CallEvent>,
    pub(crate) parked: Arc<ParkedCalls>,
    pub(crate) limits: InputLimits,
    pub(crate) cancel: CancellationToken,
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
    pub(crate) record: Arc<Record>,
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
pub(crate) struct MrtrAsker {
    /// How a round reaches the client.
    pub(crate) client: Client,
    /// Where the answers are recorded, for the states of later questions.
    pub(crate) record: Arc<Record>,
    /// Answers given before, for a call made again: handed out before anything is asked.
    pub(crate) replay: Mutex<VecDeque<Answer>>,
    /// Responses the client sent with the call, by input request key; each answers the first
    /// question asked under its key (unusable ones are ignored, and the question is asked).
    pub(crate) offered: Mutex<InputResponses>,
    /// What the client may be asked.
    pub(crate) abilities: Abilities,
}

impl MrtrAsker {
    /// Answers every question, in order: from the answers being replayed, else from the
    /// responses sent with the call, else in one input-required round for all the rest.
    pub(crate) async fn wait(&self, questions: Vec<Question>) -> Result<Vec<Answer>, AskError> {
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
