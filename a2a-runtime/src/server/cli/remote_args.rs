//! The flags that mount agents the host did not compile.

use clap::Args;

/// Remote agents behind a host.
#[derive(Debug, Args)]
#[command(next_help_heading = "Remote agents (a host's; the remote feature)")]
pub(super) struct RemoteArgs {
    /// Serve the remote A2A agent at URL (its base URL or its card's URL) as ID, at /ID/,
    /// its skills on every binding and as MCP tools (repeat, or comma separated)
    #[arg(
        long = "remote-agent",
        env = "A2A_REMOTE_AGENTS",
        value_delimiter = ',',
        value_name = "ID=URL",
        value_parser = remote
    )]
    pub(super) remote_agents: Vec<(String, String)>,
}

impl RemoteArgs {
    pub(super) fn apply(self, remotes: &mut Vec<(String, String)>) {
        remotes.extend(self.remote_agents);
    }
}

/// `ID=URL`, with an `http` or `https` URL.
fn remote(item: &str) -> Result<(String, String), String> {
    let (id, url) = item
        .trim()
        .split_once('=')
        .ok_or_else(|| format!("`{item}` is not ID=URL"))?;
    let parsed = url::Url::parse(url).map_err(|error| format!("`{url}`: {error}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}` is not an http or https URL"));
    }
    Ok((id.to_owned(), url.to_owned()))
}
