//! A question, the answers that can come back, and how an answer becomes the asked-for type.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::error::Category;

use super::AskError;
use a2a_runtime_types::model::{Message, Part, PartContent, TaskState, new_id};
use a2a_runtime_types::util::BoxFuture;

/// The media type of the data part that carries an answer's JSON Schema.
pub const SCHEMA_MEDIA_TYPE: &str = "application/schema+json";

/// What a question waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QuestionKind {
    /// More input from the caller (`TASK_STATE_INPUT_REQUIRED`).
    Input,
    /// Authorization, which arrives out of band (`TASK_STATE_AUTH_REQUIRED`).
    Auth,
}

impl QuestionKind {
    /// The state a task waits in for an answer of this kind.
    pub fn state(self) -> TaskState {
        match self {
            Self::Input => TaskState::InputRequired,
            Self::Auth => TaskState::AuthRequired,
        }
    }

    /// What a question of this kind needs, for error messages.
    pub fn needs(self) -> &'static str {
        match self {
            Self::Input => "more input",
            Self::Auth => "authorization",
        }
    }
}

/// One question from a skill to its caller. Serialized into a waiting task's checkpoint, so the
/// question is still known (and answerable) after a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// New for every asking, so an answer meant for an earlier question cannot be taken for
    /// this one (MCP input request keys).
    pub id: String,
    pub kind: QuestionKind,
    pub prompt: String,
    /// The JSON Schema an answer must match; `None` for authorization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Why the previous answer could not be used, when this is the question asked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The name the skill gave the question (`ctx.ask_named`): the key of its MCP input
    /// request instead of the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// What is asked of the client: an answer (the default), or, from an MCP client, a
    /// completion of its model or its roots.
    #[serde(default, skip_serializing_if = "ClientRequest::is_answer")]
    pub request: ClientRequest,
    /// The questions of a set asked as one (`ctx.ask_all` over a task): its answer is an object
    /// holding each one's answer under its key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Question>,
    /// Whether this question's answer replaces the one given to the question before it (the
    /// same question asked again because that answer could not be used): a task's checkpoint
    /// keeps only the usable answer, so a client sending unusable ones again and again grows
    /// nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub supersedes: bool,
}

/// What a question asks the client for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ClientRequest {
    /// An answer to the prompt (an A2A message, an MCP form).
    #[default]
    Answer,
    /// A completion of the client's model: the MCP `sampling/createMessage` params.
    Sampling(Value),
    /// The roots the client shares (MCP `roots/list`).
    Roots,
}

impl ClientRequest {
    fn is_answer(&self) -> bool {
        matches!(self, Self::Answer)
    }
}

/// What came back. Input answers are kept in a task's checkpoint, to be replayed after a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Answer {
    /// An A2A message from the caller.
    Message(Message),
    /// A structured value: an MCP form's content, or the credential handed to the runtime.
    Value(Value),
    /// The caller declined or dismissed the question.
    Declined,
}

/// Puts questions to the caller of one call and waits for the answer.
pub trait Asker: Send + Sync {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>>;

    /// Asks the caller's model; only MCP clients that declared sampling can answer.
    fn sample<'a>(
        &'a self,
        request: &'a super::Sampling,
    ) -> BoxFuture<'a, Result<super::Sampled, AskError>> {
        Box::pin(std::future::ready(Err(sampling_unsupported(
            request,
            "only an MCP client that declares the sampling capability has a model to ask; \
             this caller has none (A2A has no sampling)",
        ))))
    }

    /// Lists the roots the caller shares; only MCP clients that declared roots can.
    fn roots(&self) -> BoxFuture<'_, Result<Vec<super::Root>, AskError>> {
        Box::pin(std::future::ready(Err(roots_unsupported(
            "only an MCP client that declares the roots capability shares roots; this caller \
             has none (A2A has no roots)",
        ))))
    }

    /// Asks everything in `asks` and returns one reply per item, in order. Callers that can
    /// only take one question at a time get them one after another; an MCP client on protocol
    /// 2026-07-28 gets them in one input-required round, a task one grouped question.
    fn ask_all<'a>(
        &'a self,
        asks: &'a [super::Ask],
    ) -> BoxFuture<'a, Result<Vec<super::Reply>, AskError>> {
        Box::pin(ask_each(self, asks))
    }
}

/// Asks the items of `asks` one after another.
pub async fn ask_each<A: Asker + ?Sized>(
    asker: &A,
    asks: &[super::Ask],
) -> Result<Vec<super::Reply>, AskError> {
    let mut replies = Vec::with_capacity(asks.len());
    for ask in asks {
        replies.push(match ask {
            super::Ask::Input(question) => super::Reply::Answer(asker.ask(question).await?),
            super::Ask::Sample(request) => super::Reply::Sampled(asker.sample(request).await?),
            super::Ask::Roots(_) => super::Reply::Roots(asker.roots().await?),
        });
    }
    Ok(replies)
}

/// Asks a set of plain questions as one grouped question (a task waits on one question at a
/// time), and anything else one item after another.
pub async fn ask_grouped<A: Asker + ?Sized>(
    asker: &A,
    asks: &[super::Ask],
) -> Result<Vec<super::Reply>, AskError> {
    let questions: Option<Vec<&Question>> = asks
        .iter()
        .map(|ask| match ask {
            super::Ask::Input(question) if question.kind == QuestionKind::Input => Some(question),
            _ => None,
        })
        .collect();
    match questions {
        Some(questions) if questions.len() > 1 => {
            let group = Question::group(questions.into_iter().cloned().collect());
            let answer = asker.ask(&group).await?;
            Ok(group
                .split(answer)
                .into_iter()
                .map(super::Reply::Answer)
                .collect())
        }
        _ => ask_each(asker, asks).await,
    }
}

/// Why the caller's roots cannot be listed.
pub fn roots_unsupported(why: &str) -> AskError {
    AskError::Unsupported {
        what: "the caller's roots",
        prompt: "roots/list".into(),
        why: why.into(),
    }
}

/// The client did not declare `capability`, which `what` (asked as `prompt`) needs.
pub fn undeclared(capability: &'static str, what: &'static str, prompt: String) -> AskError {
    AskError::MissingCapability {
        capability,
        what,
        prompt,
    }
}

/// Why a sampling request cannot be made.
pub fn sampling_unsupported(request: &super::Sampling, why: &str) -> AskError {
    AskError::Unsupported {
        what: "a completion from the caller's model",
        prompt: request.summary(),
        why: why.into(),
    }
}

impl Question {
    /// A question whose answer must match `schema`.
    pub fn input(prompt: String, schema: Value) -> Self {
        Self {
            id: new_id(),
            kind: QuestionKind::Input,
            prompt,
            schema: Some(schema),
            problem: None,
            key: None,
            request: ClientRequest::Answer,
            parts: Vec::new(),
            supersedes: false,
        }
    }

    /// The questions `parts` as one: its prompt lists theirs, and its answer is an object
    /// holding each one's answer under its key.
    pub fn group(parts: Vec<Question>) -> Self {
        let prompt = parts
            .iter()
            .map(|part| format!("{}: {}", part.key(), part.prompt))
            .collect::<Vec<_>>()
            .join("\n");
        let properties: serde_json::Map<String, Value> = parts
            .iter()
            .map(|part| {
                let schema = part.schema.clone().unwrap_or(Value::Null);
                (part.key().to_owned(), schema)
            })
            .collect();
        let required: Vec<&str> = parts.iter().map(Question::key).collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
        });
        Self {
            parts,
            ..Self::input(prompt, schema)
        }
    }

    /// The answer of each part of a grouped question, in order: its entry in the object the
    /// caller answered with (`null` where it has none, which the part's reading refuses, so
    /// the part is asked again).
    pub fn split(&self, answer: Answer) -> Vec<Answer> {
        let object = match answer {
            Answer::Declined => return vec![Answer::Declined; self.parts.len()],
            Answer::Value(value) => value,
            Answer::Message(message) => {
                let data = message.parts.iter().find_map(|part| match &part.content {
                    PartContent::Data(value) => Some(value.clone()),
                    _ => None,
                });
                data.or_else(|| serde_json::from_str(&message.text()?).ok())
                    .unwrap_or(Value::Null)
            }
        };
        self.parts
            .iter()
            .map(|part| Answer::Value(object.get(part.key()).cloned().unwrap_or(Value::Null)))
            .collect()
    }

    /// The key of the question's MCP input request: its name, else its id.
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.id)
    }

    /// A request for authorization, explained by `explanation`.
    pub fn auth(explanation: String) -> Self {
        Self {
            id: new_id(),
            kind: QuestionKind::Auth,
            prompt: explanation,
            schema: None,
            problem: None,
            key: None,
            request: ClientRequest::Answer,
            parts: Vec::new(),
            supersedes: false,
        }
    }

    /// The same question, asked again because its answer could not be used.
    pub fn again(&self, problem: String) -> Self {
        Self {
            id: new_id(),
            problem: Some(problem),
            supersedes: false,
            ..self.clone()
        }
    }

    /// [`again`](Self::again), for a question nothing else depends on the earlier answer of
    /// (a lone `ask`): its answer replaces that one in a task's checkpoint.
    pub fn retry(&self, problem: String) -> Self {
        Self {
            supersedes: true,
            ..self.again(problem)
        }
    }

    /// The question as shown to a person: the prompt, after the problem with the last answer.
    pub fn text(&self) -> String {
        match &self.problem {
            Some(problem) => format!("Could not use that answer ({problem}). {}", self.prompt),
            None => self.prompt.clone(),
        }
    }

    /// The question as an agent message: its text, and the answer's JSON Schema as a data part.
    pub fn message(&self) -> Message {
        let mut parts = vec![Part::text(self.text())];
        if let Some(schema) = &self.schema {
            parts.push(Part {
                media_type: Some(SCHEMA_MEDIA_TYPE.into()),
                ..Part::data(schema.clone())
            });
        }
        Message::agent(parts)
    }

    /// Reads `answer` as a `T`, or says why it cannot be one. A message's first data part is
    /// read as JSON; otherwise its text is read as a JSON string, then as JSON (so `3`, `true`
    /// and `{"a":1}` work as text too).
    pub fn read<T: DeserializeOwned>(&self, answer: Answer) -> Result<T, String> {
        match answer {
            Answer::Message(message) => {
                let data = message.parts.iter().find_map(|part| match &part.content {
                    PartContent::Data(value) => Some(value.clone()),
                    _ => None,
                });
                match (data, message.text()) {
                    (Some(value), _) => from_value(value),
                    (None, Some(text)) => from_text(&text),
                    (None, None) => Err("the answer holds neither text nor data".into()),
                }
            }
            Answer::Value(Value::String(text)) => from_text(&text),
            Answer::Value(value) => from_value(value),
            Answer::Declined => Err("the question was declined".into()),
        }
    }
}

fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Text is first taken as a string; if `T` is not a string type, as JSON. The error reported is
/// the one from the reading the text was evidently meant for.
fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let text = text.trim();
    let as_string = match serde_json::from_value::<T>(Value::String(text.to_owned())) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    match serde_json::from_str::<T>(text) {
        Ok(value) => Ok(value),
        Err(error) if error.classify() == Category::Data => Err(error.to_string()),
        Err(_) => Err(as_string.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn question() -> Question {
        Question::input("How many?".into(), serde_json::json!({"type": "integer"}))
    }

    fn text(text: &str) -> Answer {
        Answer::Message(Message {
            role: a2a_runtime_types::model::Role::User,
            ..Message::agent_text(text)
        })
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Confirm {
        Yes,
        No,
    }

    #[test]
    fn text_answers_read_as_strings_first_then_as_json() {
        let q = question();
        assert_eq!(q.read::<String>(text(" Paris ")).unwrap(), "Paris");
        assert_eq!(q.read::<u32>(text("3")).unwrap(), 3);
        assert_eq!(q.read::<Confirm>(text("yes")).unwrap(), Confirm::Yes);
        assert_eq!(
            q.read::<Vec<u8>>(text("[1, 2]")).unwrap(),
            vec![1_u8, 2],
            "JSON text"
        );
    }

    #[test]
    fn unreadable_text_names_what_was_expected() {
        let q = question();
        let error = q.read::<u32>(text("three")).unwrap_err();
        assert!(error.contains("expected u32"), "{error}");
        let error = q.read::<Confirm>(text("maybe")).unwrap_err();
        assert!(error.contains("unknown variant `maybe`"), "{error}");
        let error = q.read::<u32>(text("-5")).unwrap_err();
        assert!(
            error.contains("-5"),
            "data errors from JSON text win: {error}"
        );
    }

    #[test]
    fn a_data_part_is_read_as_json() {
        let answer = Answer::Message(Message {
            role: a2a_runtime_types::model::Role::User,
            ..Message::agent(vec![
                Part::text("ignored"),
                Part::data(serde_json::json!(7)),
            ])
        });
        assert_eq!(question().read::<u32>(answer).unwrap(), 7);
    }

    #[test]
    fn asking_again_keeps_the_prompt_and_shows_the_problem() {
        let again = question().again("not a number".into());
        assert_eq!(
            again.text(),
            "Could not use that answer (not a number). How many?"
        );
        assert_ne!(again.id, question().id);
        assert_eq!(again.message().parts.len(), 2);
    }
}
