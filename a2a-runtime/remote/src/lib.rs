//! Agents [a2a-runtime](https://docs.rs/a2a-runtime) did not compile, fronted by its server as
//! its own: a remote A2A agent or MCP server, in any language, is a [`DefinedAgent`] whose skills
//! forward to it, so the host serves them on every binding and as MCP tools, with its own
//! authentication, ownership, limits, push and meters.
//!
//! Applications depend on `a2a-runtime` (feature `remote`), which re-exports what they use.

mod a2a_agent;
mod definition;
mod failure;
mod follow;
mod forward;
mod mcp;
mod upstream;

pub use a2a_agent::RemoteA2aAgent;
pub use a2a_runtime_core::defined_agent::DefinedAgent;
pub use mcp::{McpSource, RemoteMcpServer, RemoteMcpSettings};
pub use upstream::RemoteA2aSettings;
