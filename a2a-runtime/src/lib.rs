#![doc = include_str!("../../README.md")]

pub mod auth {
    //! Authentication and authorization: who is calling ([`Caller`]), how the schemes an agent
    //! declares are verified ([`Authenticator`]: API keys, bearer JWTs, client certificates, or
    //! an application's own). Skills name the scopes they need (`#[skill(scopes = [...])]`); a
    //! call is refused with 403 before any work when the caller lacks one. Tasks belong to the
    //! caller that created them.

    pub use a2a_runtime_core::auth::{
        ApiKeyLocation, ApiKeys, ApiKeysError, AuthError, Authenticator, Caller, ClientCertificate,
        DEFAULT_API_KEY_HEADER, JwtConfig, NamedScheme, OAuthFlow, SecurityScheme,
    };
}
#[cfg(feature = "client")]
pub mod client {
    //! A typed A2A client: resolve an agent's card, pick the best interface it offers, and call
    //! the agent with the core model's types ([`Message`](crate::Message),
    //! [`Task`](crate::Task)).
    //!
    //! ```no_run
    //! # async fn run() -> Result<(), a2a_runtime::client::ClientError> {
    //! use a2a_runtime::Message;
    //! use a2a_runtime::client::{A2aClient, SendResult};
    //!
    //! let agent = A2aClient::connect("http://127.0.0.1:8080").await?;
    //! match agent.send(Message::user_text("hello")).await? {
    //!     SendResult::Task(task) => println!("task {} is {:?}", task.id, task.status.state),
    //!     SendResult::Message(reply) => println!("{}", reply.text().unwrap_or_default()),
    //! }
    //! # Ok(())
    //! # }
    //! ```

    pub use a2a_runtime_client::*;
}
#[cfg(feature = "sqlite")]
pub mod records {
    //! An agent's own durable state, as JSON documents under a collection and a key, beside its
    //! tasks: in a SQLite file (by default under the data directory `serve()` uses) or in
    //! memory. For what an agent keeps across calls (a registry, a cache, bookings), not for
    //! task state, which the task store holds.

    pub use a2a_runtime_sql::records::{RecordError, Records};
}
mod server;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use a2a_macros::{agent, prompt, resource, skill};
pub use a2a_runtime_a2a::card::SKILL_SCHEMAS_EXTENSION;
pub use a2a_runtime_core::agent::Agent;
pub use a2a_runtime_core::ask::{
    Answered, AskError, Asks, Input, ListRoots, QuestionSet, Root, Sampled, Sampling,
};
pub use a2a_runtime_core::auth::Caller;
pub use a2a_runtime_core::call::{
    FromInvocation, IncomingMessage, InputError, IntoChunk, IntoSkillOutput, Invocation, Json,
    SkillOutput, SkillResult, State, TraceContext,
};
pub use a2a_runtime_core::content::{
    Argument, Completer, Completion, FromArgument, FromRead, IntoPromptMessages,
    IntoResourceContents, PromptContent, PromptContext, PromptDef, PromptDescriptor, PromptMessage,
    PromptRole, ReadRequest, ResourceBody, ResourceContent, ResourceDef, ResourceDescriptor,
    ResourceUpdates,
};
pub use a2a_runtime_core::context::{ArtifactWriter, TaskContext};
pub use a2a_runtime_core::descriptor::{
    AgentDescriptor, ExtensionDescriptor, Resume, SkillDef, SkillDescriptor, TaskSupport, ToolHints,
};
pub use a2a_runtime_core::error::Error;
pub use a2a_runtime_core::skill_error::{SkillError, SkillErrorKind};
pub use a2a_runtime_core::task::{
    Checkpoint, Coordination, InMemoryTaskStore, ListQuery, MemoryStoreLimits, Outbox, StoreError,
    StoredTask, TaskPage, TaskStore,
};
#[cfg(feature = "postgres")]
pub use a2a_runtime_sql::{PostgresStoreOptions, PostgresTaskStore};
#[cfg(feature = "sqlite")]
pub use a2a_runtime_sql::{SqliteStoreOptions, SqliteTaskStore};
pub use a2a_runtime_types::BoxFuture;
pub use a2a_runtime_types::model::{
    A2aVersion, Artifact, JsonObject, Message, ObservedTask, Part, PartContent, Protocol,
    PushAuthentication, PushConfig, PushWire, Role, Task, TaskArtifactUpdate, TaskEvent,
    TaskObserver, TaskState, TaskStatus, TaskStatusUpdate,
};
pub use server::{
    AgentServer, AuthSettings, DEFAULT_MAX_BODY_BYTES, Limits, PushOptions, ServeConfig,
    StoreLocation, Tasks, TasksError, TlsSettings,
};

/// Re-exported: [`AgentServer::router`] returns an axum `Router`.
pub use axum;
/// Re-exported for building the streams skills may return (`impl Stream<Item = String>`).
pub use futures;
/// Re-exported so skill input and output types can derive `JsonSchema` with the matching major.
pub use schemars;
/// Re-exported so skill input and output types can derive `Serialize`/`Deserialize`.
pub use serde;
/// Re-exported for building structured values.
pub use serde_json;
/// Re-exported: `#[tokio::main]` drives `serve()`.
pub use tokio;
/// Re-exported: [`AgentServer::shutdown_signal`] takes one.
pub use tokio_util::sync::CancellationToken;
/// Re-exported: `tracing` events inside a skill also reach the MCP client that called it
/// (`notifications/message`).
pub use tracing;

/// Everything a typical agent needs: `use a2a_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Agent, Artifact, Caller, Completion, IncomingMessage, Input, Json, ListRoots, Message,
        Part, PromptContent, PromptContext, PromptMessage, ResourceContent, Sampling, SkillError,
        SkillOutput, State, TaskContext, agent, prompt, resource, skill,
    };
    pub use futures::Stream;
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
