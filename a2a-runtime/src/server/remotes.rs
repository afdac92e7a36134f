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
    /// The host's sign-in at the remote's authorization server, whose tokens it sends as
    /// bearer tokens (instead of a fixed header).
    pub oauth: Option<UpstreamOAuth>,
    /// The client certificate chain and private key (one PEM) the host shows a remote whose
    /// TLS asks for one.
    pub identity_pem: Option<Vec<u8>>,
    /// OAuth scopes a caller needs, by the remote's skill id or tool name.
    pub scopes: BTreeMap<String, Vec<String>>,
}

/// The host signing in as a service at a remote's authorization server: the OAuth client
/// credentials grant at `token_url`, for tokens of `scope` for `resource` (RFC 8707).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpstreamOAuth {
    /// The authorization server's token endpoint.
    pub token_url: String,
    /// The host's client id there.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
    /// The scopes asked for (space-separated), if any.
    pub scope: Option<String>,
    /// The resource the tokens are for, if the server needs to be told.
    pub resource: Option<String>,
}

impl UpstreamOAuth {
    /// Signs in as `client_id` with `client_secret` at `token_url`.
    pub fn new(
        token_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            token_url: token_url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scope: None,
            resource: None,
        }
    }
}

impl std::fmt::Debug for UpstreamOAuth {
    /// Never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamOAuth")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
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
            .field("oauth", &self.oauth)
            .field("identity_pem", &self.identity_pem.as_ref().map(|_| ".."))
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl RemoteDecl {
    /// Sets `timeout` and `connect_timeout` (a kind of remote's defaults) to those declared.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) fn timeouts(&self, timeout: &mut Duration, connect_timeout: &mut Duration) {
        *timeout = self.timeout.unwrap_or(*timeout);
        *connect_timeout = self.connect_timeout.unwrap_or(*connect_timeout);
    }

    /// `target` as `id`, reached with the defaults.
    pub fn new(id: impl Into<String>, target: RemoteTarget) -> Self {
        Self {
            id: id.into(),
            target,
            timeout: None,
            connect_timeout: None,
            headers: Vec::new(),
            oauth: None,
            identity_pem: None,
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
