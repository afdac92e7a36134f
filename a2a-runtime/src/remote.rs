//! Agents the server did not compile, fronted by a [`Host`](crate::server::Host) as its own
//! (feature `remote`).
//!
//! A remote A2A agent, written in any language and speaking any binding the client speaks, is
//! mounted at `/{id}` with [`Host::remote_agent`](crate::server::Host::remote_agent) (or
//! `--remote-agent ID=URL`): its card is read and republished with the host's URL, interfaces
//! and security; each of its skills is served on every A2A binding and as an MCP tool, each call
//! forwarded to the remote through the runtime's client, under the host's authentication,
//! ownership, limits, push and meters. The remote sees the host's credential, never the
//! caller's.
//!
//! A remote MCP server, over streamable HTTP or started as a child process, is mounted the
//! same way with [`Host::remote_mcp`](crate::server::Host::remote_mcp) (or `--remote-mcp
//! ID=URL`, `--remote-mcp-stdio ID=COMMAND…`): its tools are the skills of an agent the host
//! serves over MCP and every A2A binding, each call forwarded with its progress, cancellation
//! and questions relayed.

pub use a2a_runtime_remote::{
    DefinedAgent, McpSource, RemoteA2aAgent, RemoteA2aSettings, RemoteMcpServer, RemoteMcpSettings,
};
