//! The flags that mount agents the host did not compile.

use clap::Args;

use super::super::remotes::{RemoteDecl, RemoteTarget};

/// Remote agents and MCP servers behind a host.
#[derive(Debug, Args)]
#[command(next_help_heading = "Remotes (a host's; the remote feature)")]
pub(super) struct RemoteArgs {
    /// Serve the remote A2A agent at URL (its base URL or its card's URL) as ID, at /ID/,
    /// its skills on every binding and as MCP tools (repeat, or comma separated)
    #[arg(
        long = "remote-agent",
        env = "A2A_REMOTE_AGENTS",
        value_delimiter = ',',
        value_name = "ID=URL",
        value_parser = remote_url
    )]
    remote_agents: Vec<(String, String)>,
    /// Serve the MCP server whose streamable HTTP endpoint is URL as ID: its tools at
    /// /ID/mcp and in /mcp, and as the skills of an A2A agent at /ID/ (repeat, or comma
    /// separated)
    #[arg(
        long = "remote-mcp",
        env = "A2A_REMOTE_MCP",
        value_delimiter = ',',
        value_name = "ID=URL",
        value_parser = remote_url
    )]
    remote_mcp: Vec<(String, String)>,
    /// Start COMMAND (split at spaces; a remotes file takes arguments with spaces) and serve
    /// the MCP server on its stdio as ID, as --remote-mcp does (repeat, or `;` separated)
    #[arg(
        long = "remote-mcp-stdio",
        env = "A2A_REMOTE_MCP_STDIO",
        value_delimiter = ';',
        value_name = "ID=COMMAND…",
        value_parser = remote_command
    )]
    remote_mcp_stdio: Vec<(String, Vec<String>)>,
    /// Serve the remotes FILE declares (TOML: each remote's address, the credential the host
    /// presents there, timeouts and scopes; see the host guide), after those the other flags
    /// name
    #[arg(
        long = "remotes",
        env = "A2A_REMOTES_FILE",
        value_name = "FILE",
        value_parser = remotes_file
    )]
    remotes_file: Option<Declared>,
}

/// The remotes a file declares.
#[derive(Debug, Clone)]
struct Declared(Vec<RemoteDecl>);

/// Reads the remotes file `path`.
fn remotes_file(path: &str) -> Result<Declared, String> {
    #[cfg(feature = "remote")]
    return super::remotes_file::read(path).map(Declared);
    #[cfg(not(feature = "remote"))]
    return Err(format!(
        "`{path}`: remotes need the `remote` feature of a2a-runtime"
    ));
}

impl RemoteArgs {
    pub(super) fn apply(self, remotes: &mut Vec<RemoteDecl>) {
        let agents = self.remote_agents.into_iter();
        remotes.extend(agents.map(|(id, url)| RemoteDecl::new(id, RemoteTarget::Agent(url))));
        let mcp = self.remote_mcp.into_iter();
        remotes.extend(mcp.map(|(id, url)| RemoteDecl::new(id, RemoteTarget::Mcp(url))));
        let stdio = self.remote_mcp_stdio.into_iter();
        remotes.extend(
            stdio.map(|(id, command)| RemoteDecl::new(id, RemoteTarget::McpStdio(command))),
        );
        remotes.extend(
            self.remotes_file
                .into_iter()
                .flat_map(|declared| declared.0),
        );
    }
}

/// `ID=URL`, with an `http` or `https` URL.
fn remote_url(item: &str) -> Result<(String, String), String> {
    let (id, url) = item
        .trim()
        .split_once('=')
        .ok_or_else(|| format!("`{item}` is not ID=URL"))?;
    http_url(url)?;
    Ok((id.to_owned(), url.to_owned()))
}

/// Refuses `url` unless it is an absolute `http` or `https` URL, saying why (the flags' and the
/// remotes file's one check).
pub(super) fn http_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|error| format!("`{url}`: {error}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}` is not an http or https URL"));
    }
    Ok(())
}

/// `ID=COMMAND ARGS…`: the command split at whitespace.
fn remote_command(item: &str) -> Result<(String, Vec<String>), String> {
    let (id, command) = item
        .trim()
        .split_once('=')
        .ok_or_else(|| format!("`{item}` is not ID=COMMAND"))?;
    let command: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    if command.is_empty() {
        return Err(format!("`{item}` names no command"));
    }
    Ok((id.to_owned(), command))
}
