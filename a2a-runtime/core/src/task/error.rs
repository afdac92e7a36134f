//! Why a task operation failed, in task-layer terms; each front-end maps these once
//! (`a2a/error.rs`, `mcp/error.rs`).

use super::durability::NotStored;
use super::store_error::StoreError;
use crate::ask::QuestionKind;
use crate::dispatch::MissingScope;
use crate::quota::Busy;
use a2a_runtime_types::model::TaskState;

/// Why a task operation failed. Mapped to protocol errors by the front-ends.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("task `{0}` not found")]
    NotFound(String),
    #[error("task `{id}` is {state:?} and accepts no more messages", state = .state)]
    Terminal { id: String, state: TaskState },
    #[error(
        "task `{id}` already ended ({state:?}); there is nothing to subscribe to, read it with GetTask",
        state = .state
    )]
    Ended { id: String, state: TaskState },
    #[error(
        "task `{0}` is not running on this server (it was left unfinished, for example by a restart)"
    )]
    NotRunning(String),
    #[error("task `{id}` is {state:?}; it cannot be canceled", state = .state)]
    NotCancelable { id: String, state: TaskState },
    #[error(
        "task `{0}` is still working and does not accept messages until it asks for input; wait for it or cancel it"
    )]
    Busy(String),
    #[error(
        "task `{0}` is waiting for authorization, which arrives out of band, not as a message; subscribe to the task or poll it"
    )]
    AwaitingAuth(String),
    #[error("task `{id}` is {state:?}, not waiting for authorization", state = .state)]
    NotAwaitingAuth { id: String, state: TaskState },
    #[error(
        "task `{id}` is not waiting for an answer to `{question}`; read the task for its current question"
    )]
    NoSuchQuestion { id: String, question: String },
    #[error("message.contextId `{given}` does not match task `{task}`'s contextId `{actual}`")]
    ContextMismatch {
        task: String,
        given: String,
        actual: String,
    },
    #[error("{0}")]
    Forbidden(MissingScope),
    #[error(
        "task `{id}` already has {limit} push configs, the most one task may hold; delete one first"
    )]
    PushConfigLimit { id: String, limit: usize },
    /// Resuming a task after a restart runs its skill again, which counts against the caller's
    /// quota like a new task.
    #[error(transparent)]
    Quota(#[from] Busy),
    /// A request under an idempotency key an earlier, different request of the caller holds.
    #[error(
        "idempotency key `{key}` was already used for a different request: repeat that \
         request unchanged to learn its outcome, or send a new key for a new request"
    )]
    KeyReused { key: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The task reached a state that could not be stored; reporting it would promise what a
    /// restart may undo.
    #[error(
        "task `{id}` reached {state:?} but that state is not stored ({reason}); it may be lost \
         if the server restarts: read the task again later",
        state = .state
    )]
    NotStored {
        id: String,
        state: TaskState,
        reason: NotStored,
    },
}

/// The error for an answer a task did not take.
pub(super) fn refused(id: &str, refusal: Refusal, offered: QuestionKind) -> TaskError {
    let id = id.to_owned();
    let state = match refusal {
        Refusal::Ended(state) => return TaskError::Terminal { id, state },
        Refusal::OtherQuestion(question) => return TaskError::NoSuchQuestion { id, question },
        Refusal::NotWaiting(state) => state,
        Refusal::WaitsFor(kind) => kind.state(),
    };
    match offered {
        QuestionKind::Auth => TaskError::NotAwaitingAuth { id, state },
        QuestionKind::Input if state == TaskState::AuthRequired => TaskError::AwaitingAuth(id),
        QuestionKind::Input => TaskError::Busy(id),
    }
}

/// Why a task took no answer.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// The task already ended.
    Ended(TaskState),
    /// The task is not waiting for anything.
    NotWaiting(TaskState),
    /// The task waits for the other kind of answer.
    WaitsFor(QuestionKind),
    /// The task waits on a question other than the one answered (named here).
    OtherQuestion(String),
}
