//! How a skill's questions reach an MCP client that cannot be answered through MRTR: an
//! `elicitation/create` request on a legacy session, or a clear refusal.

use rmcp::RoleServer;
use rmcp::service::{Peer, ServiceError};

use super::elicit::Form;
use crate::ask::{Answer, AskError, Asker, InputLimits, Question, QuestionKind};
use crate::util::BoxFuture;

/// Asks a legacy-session client with `elicitation/create` while the call stays open.
pub(crate) struct ElicitAsker {
    peer: Peer<RoleServer>,
    limits: InputLimits,
}

impl ElicitAsker {
    pub(crate) fn new(peer: Peer<RoleServer>, limits: InputLimits) -> Self {
        Self { peer, limits }
    }

    async fn elicit(&self, question: &Question) -> Result<Answer, AskError> {
        if question.kind == QuestionKind::Auth {
            return Err(auth_unsupported(question));
        }
        let _slot = self.limits.acquire(&question.prompt)?;
        let form = Form::new(question);
        let request = self
            .peer
            .create_elicitation_with_timeout(form.params.clone(), Some(self.limits.timeout()));
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
        Box::pin(self.elicit(question))
    }
}

/// Refuses every question, saying why this client cannot answer.
pub(crate) struct NoAnswers;

impl Asker for NoAnswers {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        let error = match question.kind {
            QuestionKind::Auth => auth_unsupported(question),
            QuestionKind::Input => AskError::Unsupported {
                what: QuestionKind::Input.needs(),
                prompt: question.prompt.clone(),
                why: "the MCP client did not declare the elicitation capability, so it cannot be asked"
                    .into(),
            },
        };
        Box::pin(std::future::ready(Err(error)))
    }
}

/// Authorization arrives out of band, which a plain call cannot wait for.
pub(crate) fn auth_unsupported(question: &Question) -> AskError {
    AskError::Unsupported {
        what: QuestionKind::Auth.needs(),
        prompt: question.prompt.clone(),
        why: "a plain MCP tools/call cannot wait for authorization that arrives out of band; \
              call the tool as a task (MCP tasks extension) or over A2A"
            .into(),
    }
}
