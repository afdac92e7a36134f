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

pub use a2a_runtime_remote::{DefinedAgent, RemoteA2aAgent, RemoteA2aSettings};
