//! The remotes a host is told to front by its configuration (`--remote-agent`, `--remote-mcp`,
//! `--remote-mcp-stdio`, `--remotes FILE`), as declarations, and their mounting beside the
//! agents the host was built with (feature `remote`).

use std::collections::BTreeMap;
use std::time::Duration;

use super::mounts::Mounts;
use a2a_runtime_core::error::Error;

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
    fn flag(&self) -> &'static str {
        match self {
            Self::Agent(_) => "--remote-agent",
            Self::Mcp(_) => "--remote-mcp",
            Self::McpStdio(_) => "--remote-mcp-stdio",
        }
    }
}

impl Mounts {
    /// Mounts the remotes the configuration names, after the agents the host was built with;
    /// a server of one agent mounts none.
    pub(crate) fn mount_remotes(&mut self, remotes: &[RemoteDecl]) -> Result<(), Error> {
        let Some(first) = remotes.first() else {
            return Ok(());
        };
        if self.hosting.is_none() {
            return Err(Error::Config(format!(
                "{}: only a host (`Host`) serves remotes; this server serves one agent",
                first.target.flag()
            )));
        }
        #[cfg(feature = "remote")]
        for remote in remotes {
            self.mount_remote(remote)?;
        }
        #[cfg(not(feature = "remote"))]
        return Err(Error::Config(format!(
            "{} needs the `remote` feature of a2a-runtime",
            first.target.flag()
        )));
        #[cfg(feature = "remote")]
        Ok(())
    }

    #[cfg(feature = "remote")]
    fn mount_remote(&mut self, remote: &RemoteDecl) -> Result<(), Error> {
        use crate::remote::{McpSource, RemoteA2aAgent, RemoteMcpServer};
        use std::sync::Arc;
        let id = remote.id.clone();
        let agent: Arc<dyn a2a_runtime_core::defined_agent::DefinedAgent> = match &remote.target {
            RemoteTarget::Agent(url) => {
                let settings = a2a_settings(remote);
                Arc::new(RemoteA2aAgent::new(id.clone(), url.clone(), settings))
            }
            RemoteTarget::Mcp(url) => {
                let settings = mcp_settings(remote)?;
                Arc::new(RemoteMcpServer::new(
                    id.clone(),
                    McpSource::Http(url.clone()),
                    settings,
                ))
            }
            RemoteTarget::McpStdio(command) => {
                let settings = mcp_settings(remote)?;
                let source = McpSource::Stdio(command.clone());
                Arc::new(RemoteMcpServer::new(id.clone(), source, settings))
            }
        };
        self.mount_defined(id, agent);
        Ok(())
    }
}

/// How a declared remote A2A agent is reached.
#[cfg(feature = "remote")]
fn a2a_settings(remote: &RemoteDecl) -> crate::remote::RemoteA2aSettings {
    let mut settings = crate::remote::RemoteA2aSettings::default();
    if let Some(timeout) = remote.timeout {
        settings.timeout = timeout;
    }
    if let Some(timeout) = remote.connect_timeout {
        settings.connect_timeout = timeout;
    }
    settings.headers = remote.headers.clone();
    settings.scopes = remote.scopes.clone();
    settings
}

/// How a declared remote MCP server is reached: its one header as its credential.
#[cfg(feature = "remote")]
fn mcp_settings(remote: &RemoteDecl) -> Result<crate::remote::RemoteMcpSettings, Error> {
    let mut settings = crate::remote::RemoteMcpSettings::default();
    if let Some(timeout) = remote.timeout {
        settings.timeout = timeout;
    }
    if let Some(timeout) = remote.connect_timeout {
        settings.connect_timeout = timeout;
    }
    settings.credential = match remote.headers.as_slice() {
        [] => None,
        [(name, value)] => Some(crate::client::McpCredential::Header(
            name.clone(),
            value.clone(),
        )),
        _ => {
            return Err(Error::Config(format!(
                "remote `{}`: an MCP server is sent one credential header, not {}",
                remote.id,
                remote.headers.len()
            )));
        }
    };
    settings.scopes = remote.scopes.clone();
    Ok(settings)
}
