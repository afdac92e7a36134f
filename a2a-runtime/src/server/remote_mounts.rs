//! The declared remotes mounted beside the agents a host was built with (feature `remote`):
//! each kind made the `DefinedAgent` that fronts it, reached as its declaration says.

use super::mounts::Mounts;
use super::remotes::RemoteDecl;
#[cfg(feature = "remote")]
use super::remotes::RemoteTarget;
use a2a_runtime_core::error::Error;

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
                let settings = a2a_settings(remote)?;
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
fn a2a_settings(remote: &RemoteDecl) -> Result<crate::remote::RemoteA2aSettings, Error> {
    let mut settings = crate::remote::RemoteA2aSettings::default();
    remote.timeouts(&mut settings.timeout, &mut settings.connect_timeout);
    settings.headers = remote.headers.clone();
    settings.credential_source = token_source(remote)?;
    settings.identity = identity(remote)?;
    settings.scopes = remote.scopes.clone();
    Ok(settings)
}

/// The source of the tokens the host signs in to `remote` with, when it signs in.
#[cfg(feature = "remote")]
fn token_source(
    remote: &RemoteDecl,
) -> Result<Option<std::sync::Arc<dyn crate::client::CredentialSource>>, Error> {
    let Some(oauth) = &remote.oauth else {
        return Ok(None);
    };
    let credentials = crate::client::ClientCredentials::new(
        &oauth.token_url,
        oauth.client_id.clone(),
        oauth.client_secret.clone(),
    )
    .map_err(|e| Error::Config(format!("remote `{}`: oauth: {e}", remote.id)))?;
    let credentials = match &oauth.scope {
        Some(scope) => credentials.scope(scope.clone()),
        None => credentials,
    };
    let credentials = match &oauth.resource {
        Some(resource) => credentials.resource(resource.clone()),
        None => credentials,
    };
    Ok(Some(std::sync::Arc::new(credentials)))
}

/// The client certificate the host shows `remote`, read now.
#[cfg(feature = "remote")]
fn identity(remote: &RemoteDecl) -> Result<Option<crate::client::ClientIdentity>, Error> {
    remote
        .identity_pem
        .as_deref()
        .map(crate::client::ClientIdentity::from_pem)
        .transpose()
        .map_err(|e| Error::Config(format!("remote `{}`: {e}", remote.id)))
}

/// How a declared remote MCP server is reached: its one header as its credential.
#[cfg(feature = "remote")]
fn mcp_settings(remote: &RemoteDecl) -> Result<crate::remote::RemoteMcpSettings, Error> {
    let mut settings = crate::remote::RemoteMcpSettings::default();
    remote.timeouts(&mut settings.timeout, &mut settings.connect_timeout);
    settings.identity = identity(remote)?;
    let source = token_source(remote)?;
    settings.credential = match (remote.headers.as_slice(), source) {
        ([], None) => None,
        ([], Some(source)) => Some(crate::client::McpCredential::Source(source)),
        ([(name, value)], None) => Some(crate::client::McpCredential::Header(
            name.clone(),
            value.clone(),
        )),
        (_, Some(_)) => {
            return Err(Error::Config(format!(
                "remote `{}`: an MCP server is sent a header or the host's OAuth tokens, not both",
                remote.id
            )));
        }
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
