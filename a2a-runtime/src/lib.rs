#![doc = include_str!("../../README.md")]

mod a2a;
mod agent;
mod app;
mod ask;
pub mod auth;
mod body;
mod call;
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
mod content;
mod context;
mod data_dir;
#[cfg(feature = "client")]
mod delegate;
mod descriptor;
mod dispatch;
mod error;
mod limits;
mod logging;
mod mcp;
mod push;
mod quota;
pub mod records;
mod registry;
mod schema;
mod server;
mod skill_error;
mod task;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use a2a::card::SKILL_SCHEMAS_EXTENSION;
pub use a2a_macros::{agent, prompt, resource, skill};
pub use a2a_runtime_types::BoxFuture;
pub use a2a_runtime_types::model::{
    A2aVersion, Artifact, JsonObject, Message, ObservedTask, Part, PartContent, Protocol,
    PushAuthentication, PushConfig, PushWire, Role, Task, TaskArtifactUpdate, TaskEvent,
    TaskObserver, TaskState, TaskStatus, TaskStatusUpdate,
};
pub use agent::Agent;
pub use ask::{Answered, AskError, Asks, Input, ListRoots, QuestionSet, Root, Sampled, Sampling};
pub use auth::Caller;
pub use call::{
    FromInvocation, IncomingMessage, InputError, IntoChunk, IntoSkillOutput, Invocation, Json,
    SkillOutput, SkillResult, State, TraceContext,
};
pub use content::{
    Argument, Completer, Completion, FromArgument, FromRead, IntoPromptMessages,
    IntoResourceContents, PromptContent, PromptContext, PromptDef, PromptDescriptor, PromptMessage,
    PromptRole, ReadRequest, ResourceBody, ResourceContent, ResourceDef, ResourceDescriptor,
    ResourceUpdates,
};
pub use context::{ArtifactWriter, TaskContext};
pub use descriptor::{
    AgentDescriptor, ExtensionDescriptor, Resume, SkillDef, SkillDescriptor, TaskSupport, ToolHints,
};
pub use error::Error;
pub use server::{
    AgentServer, AuthSettings, DEFAULT_MAX_BODY_BYTES, Limits, PushOptions, ServeConfig,
    StoreLocation, Tasks, TasksError, TlsSettings,
};
pub use skill_error::{SkillError, SkillErrorKind};
pub use task::{
    Checkpoint, Coordination, InMemoryTaskStore, ListQuery, MemoryStoreLimits, Outbox,
    PostgresStoreOptions, PostgresTaskStore, SqliteStoreOptions, SqliteTaskStore, StoreError,
    StoredTask, TaskPage, TaskStore,
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
