//! The asking half of a call's context, shared by everything that may put questions to its
//! caller (a skill's `TaskContext`, a prompt's `PromptContext`): typed answers asked again
//! until usable, sets of questions, the caller's model and roots, all given up on cancel.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::batch::{Ask, QuestionSet, Reply, Round};
use super::question::{Answer, Asker, Question, roots_unsupported, sampling_unsupported};
use super::{Answered, AskError, Root, Sampled, Sampling};

/// Where one call's questions go, and the signal that abandons them.
pub struct Asking<'a> {
    asker: Option<&'a Arc<dyn Asker>>,
    cancel: &'a CancellationToken,
}

/// What a set of questions asks for, in errors.
const SEVERAL: &str = "several answers at once";

impl<'a> Asking<'a> {
    /// Questions put through `asker` (none: asking fails as unsupported) until `cancel` fires.
    pub fn new(asker: Option<&'a Arc<dyn Asker>>, cancel: &'a CancellationToken) -> Self {
        Self { asker, cancel }
    }

    /// Asks for a `T` (under `name`, the key of its MCP input request), again while the
    /// answer is not one.
    pub async fn input<T>(&self, name: Option<String>, prompt: String) -> Result<T, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        Ok(self.answered(name, prompt, false).await?.value)
    }

    /// [`input`](Self::input), with the message that gave the usable answer when `keep_message`
    /// (an A2A answer; an MCP one is a form's values, with no message).
    pub async fn answered<T>(
        &self,
        name: Option<String>,
        prompt: String,
        keep_message: bool,
    ) -> Result<Answered<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        let mut question = Question::input(prompt, crate::schema::answer::<T>());
        question.key = name.filter(|name| !name.is_empty());
        self.answered_to(question, keep_message).await
    }

    /// Asks `question` until its answer reads as a `T`; the message that gave it when
    /// `keep_message`.
    pub async fn answered_to<T>(
        &self,
        mut question: Question,
        keep_message: bool,
    ) -> Result<Answered<T>, AskError>
    where
        T: DeserializeOwned,
    {
        loop {
            let answer = self.put(&question).await?;
            let message = match &answer {
                Answer::Message(message) if keep_message => Some(message.clone()),
                Answer::Declined => {
                    return Err(AskError::Declined {
                        prompt: question.prompt,
                    });
                }
                _ => None,
            };
            match question.read::<T>(answer) {
                Ok(value) => return Ok(Answered { value, message }),
                Err(problem) => question = question.retry(problem),
            }
        }
    }

    /// Waits for the authorization `explanation` asks for; the credential it was given.
    pub async fn require_auth(&self, explanation: String) -> Result<serde_json::Value, AskError> {
        let question = Question::auth(explanation);
        match self.put(&question).await? {
            Answer::Value(credential) => Ok(credential),
            // Authorization is only granted through `Tasks::authorize`, with a value.
            Answer::Message(_) | Answer::Declined => Err(AskError::Declined {
                prompt: question.prompt,
            }),
        }
    }

    /// Asks every item of `set`, asking again for those whose answers cannot be read while
    /// keeping the usable ones.
    pub async fn ask_all<S: QuestionSet>(&self, set: S) -> Result<S::Output, AskError> {
        let Round {
            mut asks,
            check,
            read,
        } = set.round();
        if let Some(name) = duplicate_name(&asks) {
            return Err(AskError::Unsupported {
                what: SEVERAL,
                prompt: name.clone(),
                why: format!("two questions are named \"{name}\"; each name must be unique"),
            });
        }
        let first_prompt = |asks: &[Ask]| asks.first().map(Ask::prompt).unwrap_or_default();
        let Some(asker) = self.asker else {
            return Err(AskError::Unsupported {
                what: SEVERAL,
                prompt: first_prompt(&asks),
                why: "the caller has no way to answer questions".into(),
            });
        };
        let mut replies: Vec<Option<Reply>> = vec![None; asks.len()];
        loop {
            let pending: Vec<usize> = (0..asks.len())
                .filter(|&index| replies.get(index).is_some_and(Option::is_none))
                .collect();
            if pending.is_empty() {
                break;
            }
            let asking: Vec<Ask> = pending
                .iter()
                .filter_map(|&index| asks.get(index).cloned())
                .collect();
            let canceled = || AskError::Canceled {
                prompt: first_prompt(&asking),
            };
            if self.cancel.is_cancelled() {
                return Err(canceled());
            }
            let got = tokio::select! {
                got = asker.ask_all(&asking) => got?,
                () = self.cancel.cancelled() => return Err(canceled()),
            };
            for (index, reply) in pending.into_iter().zip(got) {
                let (Some(ask), Some(slot)) = (asks.get_mut(index), replies.get_mut(index)) else {
                    continue;
                };
                if matches!(reply, Reply::Answer(Answer::Declined)) {
                    return Err(AskError::Declined {
                        prompt: ask.prompt(),
                    });
                }
                match (check(index, ask, &reply), &*ask) {
                    (None, _) => *slot = Some(reply),
                    (Some(problem), Ask::Input(question)) => {
                        *ask = Ask::Input(question.again(problem));
                    }
                    (Some(problem), _) => {
                        return Err(AskError::Unsupported {
                            what: SEVERAL,
                            prompt: ask.prompt(),
                            why: problem,
                        });
                    }
                }
            }
        }
        let replies: Vec<Reply> = replies.into_iter().flatten().collect();
        read(&asks, &replies).map_err(|why| AskError::Unsupported {
            what: SEVERAL,
            prompt: first_prompt(&asks),
            why,
        })
    }

    /// A completion of the caller's model.
    pub async fn sample(&self, request: Sampling) -> Result<Sampled, AskError> {
        let Some(asker) = self.asker else {
            return Err(sampling_unsupported(
                &request,
                "the caller has no model to ask",
            ));
        };
        let canceled = || AskError::Canceled {
            prompt: request.summary(),
        };
        if self.cancel.is_cancelled() {
            return Err(canceled());
        }
        tokio::select! {
            sampled = asker.sample(&request) => sampled,
            () = self.cancel.cancelled() => Err(canceled()),
        }
    }

    /// The roots the caller shares.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        let Some(asker) = self.asker else {
            return Err(roots_unsupported("the caller shares no roots"));
        };
        tokio::select! {
            roots = asker.roots() => roots,
            () = self.cancel.cancelled() => Err(AskError::Canceled { prompt: "roots/list".into() }),
        }
    }

    async fn put(&self, question: &Question) -> Result<Answer, AskError> {
        let Some(asker) = self.asker else {
            return Err(AskError::Unsupported {
                what: question.kind.needs(),
                prompt: question.prompt.clone(),
                why: "the caller has no way to answer questions".into(),
            });
        };
        if self.cancel.is_cancelled() {
            return Err(AskError::Canceled {
                prompt: question.prompt.clone(),
            });
        }
        asker.ask(question).await
    }
}

/// The first name two items of a set share.
fn duplicate_name(asks: &[Ask]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    asks.iter()
        .filter_map(Ask::key)
        .find(|name| !seen.insert(*name))
        .map(str::to_owned)
}
