//! What an unfinished task keeps so its skill can be run again after a restart: the call that
//! started it, the answers given so far, and the question it waits on.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ask::{Answer, Question, QuestionKind};
use crate::auth::Caller;
use a2a_runtime_types::model::{Message, Protocol};

/// The state a restart needs to resume a task's skill, kept in the task's record (and written
/// to the store with it) until the task finishes. Opaque: stores keep it through its `serde`
/// form (part of [`StoredTask::to_json`](super::StoredTask::to_json)'s), and only the runtime
/// reads it. It is never sent to clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The skill the task runs.
    pub skill: String,
    /// The skill's input as JSON, decoded again when the skill is run again.
    pub arguments: Value,
    /// The message that started the task (history may have dropped it since).
    pub request: Message,
    /// Who the skill runs for.
    pub caller: Caller,
    /// The answers to the skill's questions, in order. `None` stands for an authorization,
    /// whose credential is never stored.
    #[serde(default)]
    pub answers: Vec<Option<Answer>>,
    /// The question the task waits on, while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<Question>,
    /// The protocol the request came over (absent in checkpoints of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
}

impl Checkpoint {
    /// The checkpoint of a call that is about to start.
    pub fn new(
        skill: &str,
        arguments: Value,
        request: Message,
        caller: Caller,
        protocol: Protocol,
    ) -> Self {
        Self {
            skill: skill.to_owned(),
            arguments,
            request,
            caller,
            answers: Vec::new(),
            question: None,
            protocol: Some(protocol),
        }
    }

    /// Records `answer` to `question`, which the task waited on (and no longer does); an
    /// authorization is recorded without its credential. The answer to a question asked again
    /// because its earlier answer was unusable replaces that one: replayed, the usable answer
    /// alone gives the skill the same value, and the checkpoint stays the size of one answer
    /// however many unusable ones a client sends.
    pub fn answered(&mut self, question: &Question, answer: &Answer) {
        self.question = None;
        if question.supersedes {
            self.answers.pop();
        }
        self.answers.push(match question.kind {
            QuestionKind::Input => Some(answer.clone()),
            QuestionKind::Auth => None,
        });
    }
}

/// A checkpoint not built yet: a task whose skill resumes from its answers needs one only once
/// it asks its first question, which most never do. The request stays shared with the call
/// until then, so a task that never asks copies no message for it.
#[derive(Debug)]
pub struct PendingCheckpoint {
    skill: &'static str,
    arguments: Value,
    /// The request as the client sent it: the task's ids are set when the checkpoint is built.
    request: Arc<Message>,
    caller: Caller,
    protocol: Protocol,
}

impl PendingCheckpoint {
    /// The makings of the checkpoint of a call about to start.
    pub fn new(
        skill: &'static str,
        arguments: Value,
        request: Arc<Message>,
        caller: Caller,
        protocol: Protocol,
    ) -> Self {
        Self {
            skill,
            arguments,
            request,
            caller,
            protocol,
        }
    }

    /// The checkpoint of task `task_id` in context `context_id`.
    pub fn build(self, task_id: &str, context_id: &str) -> Checkpoint {
        let mut request = Arc::unwrap_or_clone(self.request);
        request.task_id = Some(task_id.to_owned());
        request.context_id = Some(context_id.to_owned());
        Checkpoint::new(
            self.skill,
            self.arguments,
            request,
            self.caller,
            self.protocol,
        )
    }
}
