//! Where a remote MCP server is, and how the host reaches it.

use std::collections::BTreeMap;
use std::time::Duration;

use a2a_runtime_client::{ClientIdentity, McpCredential};

/// Where a remote MCP server is.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpSource {
    /// Its streamable HTTP endpoint.
    Http(String),
    /// The command that starts it (program first), its stdin and stdout the session.
    Stdio(Vec<String>),
}

/// How the host reaches a remote MCP server.
#[derive(Debug, Clone)]
pub struct RemoteMcpSettings {
    /// The longest one call may go without an answer or a progress notification.
    pub timeout: Duration,
    /// The longest opening a session may take (a process started and initialized).
    pub connect_timeout: Duration,
    /// The largest message read from a stdio server (one line).
    pub max_message_bytes: usize,
    /// The credential sent to an HTTP server with every request, never the caller's (a fixed
    /// header, or a token from a source such as OAuth client credentials).
    pub credential: Option<McpCredential>,
    /// The client certificate shown to an HTTP server whose TLS asks for one.
    pub identity: Option<ClientIdentity>,
    /// OAuth scopes a caller needs, by the remote's tool name.
    pub scopes: BTreeMap<String, Vec<String>>,
}

impl Default for RemoteMcpSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            max_message_bytes: 4 << 20,
            credential: None,
            identity: None,
            scopes: BTreeMap::new(),
        }
    }
}
