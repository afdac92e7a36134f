//! The remotes a host is told to front by its configuration (`--remote-agent`, `--remote-mcp`,
//! `--remote-mcp-stdio`, `--remotes FILE`), as declarations (mounted by `remote_mounts.rs`).

use std::collections::BTreeMap;
use std::time::Duration;

/// A remote the host serves as an agent of its own, at `/{id}/`.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct RemoteDecl {
    /// Its id on the host (its path and tenant).
    pub id: String,
    /// What it is and where.
    pub target: RemoteTarget,
    /// The longest one call may take (between two events or progress notifications).
    pub timeout: Option<Duration>,
    /// The longest reaching it may take.
    pub connect_timeout: Option<Duration>,
    /// Headers sent to it with every request: the host's credential there, never a caller's.
    pub headers: Vec<(String, String)>,
    /// OAuth scopes a caller needs, by the remote's skill id or tool name.
    pub scopes: BTreeMap<String, Vec<String>>,
}

impl std::fmt::Debug for RemoteDecl {
    /// Names the headers, never their values (credentials).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("RemoteDecl")
            .field("id", &self.id)
            .field("target", &self.target)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("headers", &headers)
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl RemoteDecl {
    /// `target` as `id`, reached with the defaults.
    pub fn new(id: impl Into<String>, target: RemoteTarget) -> Self {
        Self {
            id: id.into(),
            target,
            timeout: None,
            connect_timeout: None,
            headers: Vec::new(),
            scopes: BTreeMap::new(),
        }
    }
}

/// What a remote is, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteTarget {
    /// An A2A agent: its base URL or its card's URL.
    Agent(String),
    /// An MCP server over streamable HTTP: its endpoint's URL.
    Mcp(String),
    /// An MCP server started by the host: its command, program first.
    McpStdio(Vec<String>),
}

impl RemoteTarget {
    /// The flag that declares it, for messages.
    pub(crate) fn flag(&self) -> &'static str {
        match self {
            Self::Agent(_) => "--remote-agent",
            Self::Mcp(_) => "--remote-mcp",
            Self::McpStdio(_) => "--remote-mcp-stdio",
        }
    }
}
