//! The protocol-neutral engine of [a2a-runtime](https://docs.rs/a2a-runtime): skills and their
//! descriptors, calls and their extractors, the dispatcher, tasks and questions, authentication
//! and quotas, the task store contract, push delivery. It knows no wire format and no server:
//! the A2A and MCP front-ends sit above it, the SQL stores beside them.
//!
//! Applications depend on `a2a-runtime`, which re-exports what they use from here. The modules
//! are shared with the crates above this one and are not API.

#[doc(hidden)]
pub mod about;
#[doc(hidden)]
pub mod agent;
#[doc(hidden)]
pub mod app;
#[doc(hidden)]
pub mod ask;
#[doc(hidden)]
pub mod auth;
#[doc(hidden)]
pub mod body;
#[doc(hidden)]
pub mod call;
#[doc(hidden)]
pub mod content;
#[doc(hidden)]
pub mod context;
#[doc(hidden)]
pub mod data_dir;
#[doc(hidden)]
pub mod defined_agent;
#[cfg(feature = "client")]
mod delegate;
#[doc(hidden)]
pub mod descriptor;
#[doc(hidden)]
pub mod dispatch;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod intern;
#[doc(hidden)]
pub mod limits;
#[doc(hidden)]
pub mod logging;
#[doc(hidden)]
pub mod observe;
#[doc(hidden)]
pub mod push;
#[doc(hidden)]
pub mod quota;
#[doc(hidden)]
pub mod registry;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod schema_check;
#[doc(hidden)]
pub mod skill_error;
#[doc(hidden)]
pub mod task;
