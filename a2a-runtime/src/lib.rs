#![doc = include_str!("../../README.md")]

#[cfg(feature = "server")]
pub mod a2a;
#[cfg(feature = "server")]
pub mod ask;
#[cfg(feature = "server")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
pub mod mcp;
pub mod model;
#[cfg(feature = "oauth-server")]
pub mod oauth;
#[cfg(feature = "server")]
pub mod observe;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod records;
#[cfg(feature = "remote")]
pub mod remote;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod skills;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(feature = "server")]
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use model::{Message, Part, Task, TaskState};

#[cfg(feature = "server")]
pub use a2a_macros::{agent, main, prompt, resource, skill};
#[cfg(feature = "server")]
pub use server::{AgentServer, Error};
#[cfg(feature = "server")]
pub use skills::{Agent, SkillError, SkillOutput, TaskContext};

/// Re-exported: [`AgentServer::router`] returns an axum `Router`.
#[cfg(feature = "server")]
pub use axum;
/// Re-exported for building the streams skills may return (`impl Stream<Item = String>`).
pub use futures;
/// Re-exported so skill input and output types can derive `JsonSchema` with the matching major.
#[cfg(feature = "server")]
pub use schemars;
/// Re-exported so skill input and output types can derive `Serialize`/`Deserialize`.
pub use serde;
/// Re-exported for building structured values.
pub use serde_json;
/// Re-exported: `#[a2a_runtime::main]` (or `#[tokio::main]`) drives `serve()`.
pub use tokio;
/// Re-exported: `tracing` events inside a skill also reach the MCP client that called it
/// (`notifications/message`).
#[cfg(feature = "server")]
pub use tracing;

/// Everything a typical agent needs: `use a2a_runtime::prelude::*;`.
#[cfg(feature = "server")]
pub mod prelude {
    pub use crate::ask::{Input, ListRoots, Sampling};
    pub use crate::auth::Caller;
    pub use crate::mcp::{
        Completion, PromptContent, PromptContext, PromptMessage, ResourceContent,
    };
    pub use crate::model::{Artifact, Message, Part};
    pub use crate::skills::{
        Agent, IncomingMessage, Json, SkillError, SkillOutput, State, TaskContext,
    };
    pub use crate::{agent, prompt, resource, skill};
    pub use futures::Stream;
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
