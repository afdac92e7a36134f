//! The MCP front-end of [a2a-runtime](https://docs.rs/a2a-runtime), built on rmcp. Every rmcp
//! type stays inside this crate: users never see them, so an rmcp upgrade never breaks a user's
//! build. It never imports the A2A front-end; what both answer alike lives below them.
//!
//! Applications depend on `a2a-runtime`, which serves this front-end. The modules are shared
//! with the server and are not API.

#[doc(hidden)]
pub mod agent;
#[doc(hidden)]
pub mod asking;
#[doc(hidden)]
pub mod authorize;
mod call_stream;
#[doc(hidden)]
pub mod content;
#[doc(hidden)]
pub mod direct;
#[doc(hidden)]
pub mod elicit;
#[doc(hidden)]
pub mod endpoint;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod handler;
#[doc(hidden)]
pub mod keyed;
pub mod list_changes;
#[doc(hidden)]
pub mod logging;
#[doc(hidden)]
pub mod metering;
#[doc(hidden)]
pub mod mrtr;
#[doc(hidden)]
pub mod namespace;
#[doc(hidden)]
pub mod parked;
#[doc(hidden)]
pub mod prompts;
#[doc(hidden)]
pub mod request_check;
#[doc(hidden)]
pub mod results;
#[doc(hidden)]
pub mod service;
#[doc(hidden)]
pub mod sessions;
/// The Agent Skills extension (SEP-2640).
pub mod skills_ext;
#[doc(hidden)]
pub mod stdio;
#[doc(hidden)]
pub mod subscriptions;
#[doc(hidden)]
pub mod task_calls;
#[doc(hidden)]
pub mod tools;
#[doc(hidden)]
pub mod updates;

pub use endpoint::{McpEndpoint, RmcpService};
pub use handler::{Identity, McpHandler, Member};
pub use parked::MIN_STATE_KEY_BYTES;
pub use request_check::McpGate;
