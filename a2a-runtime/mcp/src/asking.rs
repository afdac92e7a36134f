//! How a skill's questions reach an MCP client that cannot be answered through MRTR: an
//! `elicitation/create` request on a legacy session, or a clear refusal.
//!
//! rmcp marks sampling deprecated (SEP-2577 replaces server-to-client requests with
//! input-required results in the 2026-07-28 era); 2025-era sessions, served here, still use it.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ErrorData,
    ListRootsRequest, ListRootsResult, RequestId, Role, SamplingMessage,
    SamplingMessageContentBlock, ServerRequest,
};

use super::elicit::Form;
use a2a_runtime_core::ask::{
    Answer, AskError, Asker, InputLimits, Question, QuestionKind, Root, Sampled, Sampling,
    roots_unsupported, sampling_unsupported, undeclared,
};
use a2a_runtime_core::content::{PromptContent, PromptMessage, PromptRole, ResourceBody};
use a2a_runtime_types::util::BoxFuture;

/// What a client declared it can be asked: forms, its model, its roots.
#[derive(Debug, Clone, Copy, Default)]
pub struct Abilities {
    pub forms: bool,
    pub sampling: bool,
    pub roots: bool,
}

impl Abilities {
    pub fn of(capabilities: Option<&ClientCapabilities>) -> Self {
        Self {
            forms: super::elicit::supports_forms(capabilities),
            sampling: capabilities.is_some_and(|c| c.sampling.is_some()),
            roots: capabilities.is_some_and(|c| c.roots.is_some()),
        }
    }

    /// Whether the client can be asked anything at all.
    pub fn any(self) -> bool {
        self.forms || self.sampling || self.roots
    }
}

/// Asks a legacy-session client while the call stays open: questions with
/// `elicitation/create` (when it declared forms), its model with `sampling/createMessage` (when
/// it declared sampling).
pub struct ElicitAsker {
    peer: Peer<RoleServer>,
    /// The client request the questions are asked for: they ride its stream.
    origin: RequestId,
    limits: InputLimits,
    abilities: Abilities,
}

impl ElicitAsker {
    /// What the client declared (`abilities`) decides what it is asked.
    pub fn new(
        peer: Peer<RoleServer>,
        origin: RequestId,
        limits: InputLimits,
        abilities: Abilities,
    ) -> Self {
        Self {
            peer,
            origin,
            limits,
            abilities,
        }
    }

    /// Sends `request` to the client on the stream of the call it is asked for, and waits at
    /// most `timeout` for the answer.
    async fn ask_client(
        &self,
        mut request: ServerRequest,
        timeout: Option<Duration>,
    ) -> Result<ClientResult, ServiceError> {
        crate::sessions::asked_for(&mut request, &self.origin);
        let options = timeout.map_or_else(PeerRequestOptions::no_options, |timeout| {
            PeerRequestOptions::with_timeout(timeout)
        });
        let sent = self.peer.send_request_with_option(request, options).await?;
        sent.await_response().await
    }

    async fn roots_list(&self) -> Result<ListRootsResult, ServiceError> {
        let request = ListRootsRequest {
            method: Default::default(),
            extensions: Default::default(),
        };
        match self
            .ask_client(ServerRequest::ListRootsRequest(request), None)
            .await?
        {
            ClientResult::ListRootsResult(listed) => Ok(listed),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    async fn sampling(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ServiceError> {
        params
            .validate()
            .map_err(|e| ServiceError::McpError(ErrorData::invalid_params(e, None)))?;
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        match self.ask_client(request, None).await? {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    async fn elicitation(
        &self,
        params: ElicitRequestParams,
        timeout: Duration,
    ) -> Result<ElicitResult, ServiceError> {
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match self.ask_client(request, Some(timeout)).await? {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    async fn list_roots(&self) -> Result<Vec<Root>, AskError> {
        if !self.abilities.roots {
            return Err(undeclared_roots());
        }
        match tokio::time::timeout(self.limits.timeout(), self.roots_list()).await {
            Ok(Ok(listed)) => Ok(roots_of(listed)),
            Ok(Err(error)) => Err(roots_unsupported(&format!(
                "the client did not answer roots/list: {error}"
            ))),
            Err(_) => Err(self.limits.expired("roots/list")),
        }
    }

    async fn create_message(&self, request: &Sampling) -> Result<Sampled, AskError> {
        if !self.abilities.sampling {
            return Err(undeclared_sampling(request));
        }
        let params = create_message_params(request);
        let sampled = tokio::time::timeout(self.limits.timeout(), self.sampling(params));
        match sampled.await {
            Ok(Ok(result)) => Ok(sampled_of(result)),
            Ok(Err(error)) => Err(sampling_unsupported(
                request,
                &format!("the client did not complete the sampling request: {error}"),
            )),
            Err(_) => Err(self.limits.expired(&request.summary())),
        }
    }

    async fn elicit(&self, question: &Question) -> Result<Answer, AskError> {
        if question.kind == QuestionKind::Auth {
            return Err(auth_unsupported(question));
        }
        let _slot = self.limits.acquire(&question.prompt)?;
        let form = Form::new(question);
        let request = self.elicitation(form.params.clone(), self.limits.timeout());
        match request.await {
            Ok(result) => Ok(form.answer(result)),
            Err(ServiceError::Timeout { .. }) => Err(self.limits.expired(&question.prompt)),
            Err(error) => Err(AskError::Unsupported {
                what: QuestionKind::Input.needs(),
                prompt: question.prompt.clone(),
                why: format!("the client did not answer the elicitation request: {error}"),
            }),
        }
    }
}

impl Asker for ElicitAsker {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        if self.abilities.forms {
            Box::pin(self.elicit(question))
        } else {
            NoAnswers.ask(question)
        }
    }

    fn sample<'a>(&'a self, request: &'a Sampling) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(self.create_message(request))
    }

    fn roots(&self) -> BoxFuture<'_, Result<Vec<Root>, AskError>> {
        Box::pin(self.list_roots())
    }
}

/// The `sampling/createMessage` params of a request.
pub fn create_message_params(request: &Sampling) -> CreateMessageRequestParams {
    let messages = request.messages.iter().map(sampling_message).collect();
    let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
    params.system_prompt.clone_from(&request.system_prompt);
    params.temperature = request.temperature;
    params
}

/// What the client's model answered.
pub fn sampled_of(result: CreateMessageResult) -> Sampled {
    Sampled {
        text: result
            .message
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default(),
        model: result.model,
        stop_reason: result.stop_reason,
    }
}

/// The roots of a `roots/list` answer.
pub fn roots_of(listed: ListRootsResult) -> Vec<Root> {
    listed
        .roots
        .into_iter()
        .map(|root| Root {
            uri: root.uri,
            name: root.name,
        })
        .collect()
}

/// An image or audio block (built from its wire form: rmcp's structs are non-exhaustive).
fn media(kind: &str, data: &[u8], mime_type: &str) -> SamplingMessageContentBlock {
    let block = serde_json::json!({
        "type": kind,
        "data": STANDARD.encode(data),
        "mimeType": mime_type,
    });
    serde_json::from_value(block)
        .unwrap_or_else(|_| SamplingMessageContentBlock::text(format!("[{kind}: {mime_type}]")))
}

/// One message of a sampling request, in MCP's shape.
fn sampling_message(message: &PromptMessage) -> SamplingMessage {
    let role = match message.role {
        PromptRole::User => Role::User,
        PromptRole::Assistant => Role::Assistant,
    };
    let content = match &message.content {
        PromptContent::Text(text) => SamplingMessageContentBlock::text(text.clone()),
        PromptContent::Image { data, mime_type } => media("image", data, mime_type),
        PromptContent::Audio { data, mime_type } => media("audio", data, mime_type),
        PromptContent::Resource(resource) => {
            SamplingMessageContentBlock::text(match &resource.body {
                ResourceBody::Text(text) => text.clone(),
                ResourceBody::Blob(_) => format!("[{}]", resource.uri),
            })
        }
    };
    SamplingMessage::new(role, content)
}

/// Refuses every question, saying why this client cannot answer.
pub struct NoAnswers;

impl NoAnswers {
    /// Why `question` cannot be put to this client.
    pub fn refusal(question: &Question) -> AskError {
        match question.kind {
            QuestionKind::Auth => auth_unsupported(question),
            QuestionKind::Input => undeclared(
                "elicitation",
                QuestionKind::Input.needs(),
                question.prompt.clone(),
            ),
        }
    }
}

impl Asker for NoAnswers {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        Box::pin(std::future::ready(Err(Self::refusal(question))))
    }
}

/// The client did not declare sampling, which `request` needs.
pub fn undeclared_sampling(request: &Sampling) -> AskError {
    undeclared(
        "sampling",
        "a completion from the caller's model",
        request.summary(),
    )
}

/// The client did not declare roots.
pub fn undeclared_roots() -> AskError {
    undeclared("roots", "the caller's roots", "roots/list".into())
}

/// Authorization arrives out of band, which a plain call cannot wait for.
pub fn auth_unsupported(question: &Question) -> AskError {
    AskError::Unsupported {
        what: QuestionKind::Auth.needs(),
        prompt: question.prompt.clone(),
        why: "a plain MCP tools/call cannot wait for authorization that arrives out of band; \
              call the tool as a task (MCP tasks extension) or over A2A"
            .into(),
    }
}
