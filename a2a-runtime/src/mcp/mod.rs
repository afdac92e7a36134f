//! The MCP front-end, built on rmcp. Every rmcp type stays inside this module: users never see
//! them, so an rmcp upgrade never breaks a user's build.

mod asking;
mod authorize;
mod content;
mod elicit;
mod endpoint;
mod error;
mod handler;
mod logging;
mod parked;
mod request_check;
mod results;
pub(crate) mod stdio;
mod subscriptions;
mod tools;
mod updates;

pub(crate) use endpoint::{McpEndpoint, RmcpService};
pub(crate) use handler::McpHandler;
pub(crate) use parked::MIN_STATE_KEY_BYTES;
pub(crate) use request_check::McpGate;
