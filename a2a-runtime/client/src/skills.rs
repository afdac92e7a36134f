//! [`SkillClient`]: a remote agent's skills called by id with a JSON input, over A2A or MCP,
//! answering with the skill's output as JSON. The typed clients `#[agent]` generates
//! (`CurrencyClient` for `Currency`, one async method per skill) are made of it.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::mcp::{McpCredential, McpSkills};
use super::{A2aClient, ClientError, SendResult, StreamEvent};
use a2a_runtime_types::model::{Message, Part, PartContent, Task, TaskState};
use a2a_runtime_types::util::BoxFuture;

/// The media type of the data part in which a question carries its answer's JSON Schema.
const SCHEMA_MEDIA_TYPE: &str = "application/schema+json";

/// How many questions one call answers before it gives up (a skill that keeps asking).
const MAX_QUESTIONS: usize = 32;

/// A question a skill asked its caller mid-call (A2A `TASK_STATE_INPUT_REQUIRED`, an MCP
/// elicitation).
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The skill's id.
    pub skill: String,
    /// What it asks.
    pub prompt: String,
    /// The JSON Schema an answer must match, when the agent sent one. Over MCP it is the form's
    /// schema: an object (a non-object answer is asked for as its `answer` property).
    pub schema: Option<Value>,
}

/// Answers questions: `Some(answer)`, or `None` to leave the question unanswered (the call then
/// ends in [`ClientError::InputRequired`]).
pub type Answerer = Arc<dyn Fn(Question) -> BoxFuture<'static, Option<Value>> + Send + Sync>;

/// How calls reach the agent.
#[derive(Clone)]
enum Transport {
    A2a(Arc<A2aClient>),
    Mcp(Arc<McpSkills>),
}

/// Calls a remote agent's skills by id, over A2A or MCP.
#[derive(Clone)]
pub struct SkillClient {
    transport: Transport,
    answerer: Option<Answerer>,
}

impl std::fmt::Debug for SkillClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match &self.transport {
            Transport::A2a(client) => format!("A2A {}", client.interface()),
            Transport::Mcp(mcp) => format!("MCP {}", mcp.url()),
        };
        f.debug_struct("SkillClient")
            .field("transport", &transport)
            .field("answers_questions", &self.answerer.is_some())
            .finish()
    }
}

impl SkillClient {
    /// Calls over A2A through `client`.
    pub fn a2a(client: Arc<A2aClient>) -> Self {
        Self {
            transport: Transport::A2a(client),
            answerer: None,
        }
    }

    /// Calls over A2A: connects to the agent at `base_url` (see [`A2aClient::connect`]).
    pub async fn connect(base_url: impl Into<String>) -> Result<Self, ClientError> {
        Ok(Self::a2a(Arc::new(A2aClient::connect(base_url).await?)))
    }

    /// Calls over MCP (streamable HTTP) at `url`, the agent's MCP endpoint (`…/mcp`).
    pub async fn connect_mcp(url: impl Into<String>) -> Result<Self, ClientError> {
        Self::mcp_session(url.into(), None).await
    }

    /// Like [`connect_mcp`](Self::connect_mcp), for an endpoint that asks who calls: every
    /// request carries `credential`.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), a2a_runtime_client::ClientError> {
    /// use a2a_runtime_client::{McpCredential, SkillClient};
    /// let key = McpCredential::Header("X-API-Key".into(), "ann-key-0123456789abcdef".into());
    /// let skills = SkillClient::connect_mcp_as("http://127.0.0.1:8080/mcp", key).await?;
    /// # let _ = skills;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_mcp_as(
        url: impl Into<String>,
        credential: McpCredential,
    ) -> Result<Self, ClientError> {
        Self::mcp_session(url.into(), Some(&credential)).await
    }

    async fn mcp_session(
        url: String,
        credential: Option<&McpCredential>,
    ) -> Result<Self, ClientError> {
        let skills = McpSkills::connect(url, credential).await?;
        Ok(Self {
            transport: Transport::Mcp(Arc::new(skills)),
            answerer: None,
        })
    }

    /// Answers the skills' questions with `answer`. Without one, a question ends the call in
    /// [`ClientError::InputRequired`].
    #[must_use]
    pub fn on_question<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Question) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Value>> + Send + 'static,
    {
        let answerer: Answerer = Arc::new(move |question| Box::pin(answer(question)));
        if let Transport::Mcp(mcp) = &self.transport {
            mcp.answer_with(Arc::clone(&answerer));
        }
        self.answerer = Some(answerer);
        self
    }

    /// Calls skill `skill` with `input` (its input object); the skill's output as JSON: a
    /// structured output's value, a text output as a string, `null` for none, and the items
    /// of a streamed output as an array.
    pub async fn call(&self, skill: &str, input: Map<String, Value>) -> Result<Value, ClientError> {
        match &self.transport {
            Transport::A2a(client) => self.call_a2a(client, skill, input).await,
            Transport::Mcp(mcp) => mcp.call(skill, input).await,
        }
    }

    async fn call_a2a(
        &self,
        client: &A2aClient,
        skill: &str,
        input: Map<String, Value>,
    ) -> Result<Value, ClientError> {
        let mut message = Message::user(vec![Part::data(Value::Object(input))]);
        message.metadata = Some(std::iter::once(("skill".to_owned(), json!(skill))).collect());
        for _ in 0..=MAX_QUESTIONS {
            let task = match run(client, message).await? {
                SendResult::Message(reply) => return Ok(output_of(&reply.parts)),
                SendResult::Task(task) => *task,
            };
            match task.status.state {
                // The output is the artifact named after the skill (others are the skill's
                // own `ctx.artifact`s); none for a skill that returns nothing.
                TaskState::Completed => {
                    let output = task
                        .artifacts
                        .iter()
                        .rev()
                        .find(|a| a.name.as_deref() == Some(skill));
                    return Ok(output.map_or(Value::Null, |a| output_of(&a.parts)));
                }
                TaskState::InputRequired => {
                    message = self.answer(skill, &task).await?;
                }
                state => {
                    let status = task.status.message.as_ref();
                    let why = status
                        .and_then(Message::text)
                        .unwrap_or_else(|| format!("the task ended {state:?}"));
                    let data = status.and_then(|m| {
                        m.parts.iter().find_map(|p| match &p.content {
                            PartContent::Data(data) => Some(data.clone()),
                            _ => None,
                        })
                    });
                    return Err(ClientError::SkillFailed {
                        skill: skill.to_owned(),
                        message: why,
                        data,
                    });
                }
            }
        }
        Err(ClientError::SkillFailed {
            skill: skill.to_owned(),
            message: format!("it asked more than {MAX_QUESTIONS} questions"),
            data: None,
        })
    }

    /// The message answering the question `task` waits on.
    async fn answer(&self, skill: &str, task: &Task) -> Result<Message, ClientError> {
        let asked = task.status.message.as_ref();
        let question = Question {
            skill: skill.to_owned(),
            prompt: asked.and_then(Message::text).unwrap_or_default(),
            schema: asked.and_then(|m| {
                m.parts.iter().find_map(|p| match &p.content {
                    PartContent::Data(schema)
                        if p.media_type.as_deref() == Some(SCHEMA_MEDIA_TYPE) =>
                    {
                        Some(schema.clone())
                    }
                    _ => None,
                })
            }),
        };
        let unanswered = |question: Question| ClientError::InputRequired {
            skill: question.skill,
            prompt: question.prompt,
            task_id: Some(task.id.clone()),
        };
        let Some(answerer) = &self.answerer else {
            return Err(unanswered(question));
        };
        let Some(answer) = answerer(question.clone()).await else {
            return Err(unanswered(question));
        };
        let part = match answer {
            Value::String(text) => Part::text(text),
            other => Part::data(other),
        };
        let mut message = Message::user(vec![part]);
        message.task_id = Some(task.id.clone());
        message.context_id = Some(task.context_id.clone());
        Ok(message)
    }
}

/// Sends `message` and waits until its task settles or asks: over a stream when the agent
/// streams, so that a skill that runs longer than the client's call timeout is still waited
/// for (streams have no timeout, and a cut one is renewed); the settled task is then read
/// whole. Otherwise a blocking send.
async fn run(client: &A2aClient, message: Message) -> Result<SendResult, ClientError> {
    use futures::StreamExt as _;
    if !client.card().capabilities.streaming {
        return client.send(message).await;
    }
    let mut events = client.send_streaming(message).await?;
    let mut task_id = None;
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::Message(reply) => return Ok(SendResult::Message(reply)),
            StreamEvent::Task(task) => task_id = Some(task.id),
            StreamEvent::Status(update) => task_id = Some(update.task_id),
            StreamEvent::Artifact(update) => task_id = Some(update.task_id),
        }
    }
    let task_id = task_id.ok_or_else(|| ClientError::InvalidResponse {
        field: String::new(),
        reason: "the stream ended before naming its task".into(),
    })?;
    Ok(SendResult::Task(Box::new(
        client.get_task(&task_id, None).await?,
    )))
}

/// A skill's output as JSON, from the parts it answered with.
fn output_of(parts: &[Part]) -> Value {
    let value = |part: &Part| match &part.content {
        PartContent::Data(value) => value.clone(),
        PartContent::Text(text) => Value::String(text.clone()),
        PartContent::Url(url) => Value::String(url.clone()),
        PartContent::Raw(bytes) => json!(bytes),
    };
    match parts {
        [] => Value::Null,
        [one] => value(one),
        many => Value::Array(many.iter().map(value).collect()),
    }
}

/// A typed client `#[agent]` generates (`{Agent}Client`): one method per skill over a
/// [`SkillClient`]. Code that connects for the caller (such as the test harness,
/// `a2a_runtime::testing`) builds any of them through it.
pub trait TypedClient: Sized {
    /// The typed client calling through `skills`.
    fn from_skills(skills: SkillClient) -> Self;
}

/// Reads a skill's output (see [`SkillClient::call`]) as a `T`: the value itself, else a
/// primitive MCP wraps as `{"result": …}`, else JSON text.
pub fn decode_output<T: serde::de::DeserializeOwned>(
    skill: &str,
    value: Value,
) -> Result<T, ClientError> {
    let first = match serde_json::from_value::<T>(value.clone()) {
        Ok(decoded) => return Ok(decoded),
        Err(error) => error,
    };
    if let Value::Object(object) = &value
        && object.len() == 1
        && let Some(inner) = object.get("result")
        && let Ok(decoded) = serde_json::from_value::<T>(inner.clone())
    {
        return Ok(decoded);
    }
    if let Value::String(text) = &value
        && let Ok(decoded) = serde_json::from_str::<T>(text)
    {
        return Ok(decoded);
    }
    Err(ClientError::InvalidResponse {
        field: format!("output of skill `{skill}`"),
        reason: format!("is not the skill's output type: {first}"),
    })
}
