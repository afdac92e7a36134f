//! `--remotes FILE`: the remotes a host fronts, in TOML, each with its address, the credential
//! the host presents there (read from the environment or a file, never written in the file
//! itself), its timeouts and the scopes its skills or tools need:
//!
//! ```toml
//! [[remote]]
//! id = "py"
//! agent = "http://127.0.0.1:9000/"          # or mcp = "https://…/mcp", or command = ["uvx", …]
//! timeout = "60s"
//! connect_timeout = "5s"
//! credential = { bearer_env = "PY_AGENT_TOKEN" }
//! scopes = { echo = ["echo:use"] }
//!
//! [[remote]]
//! id = "billing"
//! mcp = "https://billing.internal/mcp"
//! # The host signs in there as a service (OAuth client credentials) instead of a fixed header,
//! # and shows a client certificate when its TLS asks for one.
//! oauth = { token_url = "https://login.internal/token", client_id = "agent-host",
//!           client_secret_env = "BILLING_SECRET", scope = "billing:read" }
//! tls_identity_file = "host-client.pem"
//! ```
//!
//! A field the file may not have, a remote naming no address or two, an unset variable or an
//! unreadable file is refused naming the remote and the field.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::super::remotes::{RemoteDecl, RemoteTarget, UpstreamOAuth};

/// The file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemotesFile {
    #[serde(default)]
    remote: Vec<RemoteEntry>,
}

/// One `[[remote]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoteEntry {
    id: String,
    agent: Option<String>,
    mcp: Option<String>,
    command: Option<Vec<String>>,
    timeout: Option<String>,
    connect_timeout: Option<String>,
    credential: Option<Credential>,
    oauth: Option<OAuth>,
    /// A PEM holding the client certificate chain and its key.
    tls_identity_file: Option<String>,
    #[serde(default)]
    scopes: BTreeMap<String, Vec<String>>,
}

/// The host's sign-in at the remote's authorization server (client credentials).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuth {
    token_url: String,
    client_id: String,
    client_secret_env: Option<String>,
    client_secret_file: Option<String>,
    scope: Option<String>,
    resource: Option<String>,
}

/// Where the credential the host presents to the remote comes from.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credential {
    /// The header it goes in (`Authorization` for a bearer token).
    header: Option<String>,
    bearer_env: Option<String>,
    bearer_file: Option<String>,
    value_env: Option<String>,
    value_file: Option<String>,
}

/// Reads the remotes `path` declares.
pub(super) fn read(path: &str) -> Result<Vec<RemoteDecl>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("`{path}`: {e}"))?;
    let file: RemotesFile = toml_edit::de::from_str(&text).map_err(|e| format!("`{path}`: {e}"))?;
    let base = Path::new(path).parent().unwrap_or(Path::new("."));
    file.remote
        .into_iter()
        .map(|entry| {
            let id = entry.id.clone();
            declared(entry, base).map_err(|e| format!("`{path}`, remote `{id}`: {e}"))
        })
        .collect()
}

/// One entry as a declaration.
fn declared(entry: RemoteEntry, base: &Path) -> Result<RemoteDecl, String> {
    let target = match (entry.agent, entry.mcp, entry.command) {
        (Some(url), None, None) => RemoteTarget::Agent(http_url("agent", url)?),
        (None, Some(url), None) => RemoteTarget::Mcp(http_url("mcp", url)?),
        (None, None, Some(command)) if !command.is_empty() => RemoteTarget::McpStdio(command),
        (None, None, Some(_)) => return Err("`command` is empty".into()),
        _ => return Err("name exactly one of `agent`, `mcp` and `command`".into()),
    };
    let mut remote = RemoteDecl::new(entry.id, target);
    let duration = |field: &str, text: Option<String>| {
        text.map(|text| super::args::duration(&text).map_err(|e| format!("`{field}`: {e}")))
            .transpose()
    };
    remote.timeout = duration("timeout", entry.timeout)?;
    remote.connect_timeout = duration("connect_timeout", entry.connect_timeout)?;
    match (entry.credential, entry.oauth) {
        (Some(_), Some(_)) => return Err("name `credential` or `oauth`, not both".into()),
        (Some(credential), None) => remote.headers.push(credential.header(base)?),
        (None, Some(oauth)) => remote.oauth = Some(oauth.read(base)?),
        (None, None) => {}
    }
    if let Some(file) = entry.tls_identity_file {
        let path = base.join(&file);
        let pem = std::fs::read(&path)
            .map_err(|e| format!("`tls_identity_file`: `{}`: {e}", path.display()))?;
        remote.identity_pem = Some(pem);
    }
    remote.scopes = entry.scopes;
    Ok(remote)
}

impl OAuth {
    /// The sign-in, its secret read now.
    fn read(self, base: &Path) -> Result<UpstreamOAuth, String> {
        http_url("oauth.token_url", self.token_url.clone())?;
        let secret = match (self.client_secret_env, self.client_secret_file) {
            (Some(name), None) => from_env("oauth", "client_secret_env", &name)?,
            (None, Some(file)) => from_file("oauth", "client_secret_file", &file, base)?,
            _ => {
                return Err("`oauth` names exactly one of `client_secret_env` and \
                            `client_secret_file`"
                    .into());
            }
        };
        let mut oauth = UpstreamOAuth::new(self.token_url, self.client_id, secret);
        oauth.scope = self.scope;
        oauth.resource = self.resource;
        Ok(oauth)
    }
}

/// `url`, the value of `field`, when it is an `http` or `https` URL.
fn http_url(field: &str, url: String) -> Result<String, String> {
    super::remote_args::http_url(&url).map_err(|why| format!("`{field}`: {why}"))?;
    Ok(url)
}

impl Credential {
    /// The header and its value, read now.
    fn header(self, base: &Path) -> Result<(String, String), String> {
        let (value, bearer) = match (
            self.bearer_env,
            self.bearer_file,
            self.value_env,
            self.value_file,
        ) {
            (Some(name), None, None, None) => (from_env(CREDENTIAL, "bearer_env", &name)?, true),
            (None, Some(file), None, None) => {
                (from_file(CREDENTIAL, "bearer_file", &file, base)?, true)
            }
            (None, None, Some(name), None) => (from_env(CREDENTIAL, "value_env", &name)?, false),
            (None, None, None, Some(file)) => {
                (from_file(CREDENTIAL, "value_file", &file, base)?, false)
            }
            _ => {
                return Err(
                    "`credential` names exactly one of `bearer_env`, `bearer_file`, \
                            `value_env` and `value_file`"
                        .into(),
                );
            }
        };
        match (self.header, bearer) {
            (None, true) => Ok(("Authorization".into(), format!("Bearer {value}"))),
            (Some(header), true) => Ok((header, format!("Bearer {value}"))),
            (Some(header), false) => Ok((header, value)),
            (None, false) => Err("`credential.header` names the header a value goes in".into()),
        }
    }
}

/// The table a fixed credential is in.
const CREDENTIAL: &str = "credential";

/// The secret in the environment variable `name`, named by field `field` of `table`.
fn from_env(table: &str, field: &str, name: &str) -> Result<String, String> {
    let value =
        std::env::var(name).map_err(|_| format!("`{table}.{field}`: `{name}` is not set"))?;
    nonempty(table, field, value.trim().to_owned())
}

/// The secret in `file` (relative to the remotes file), its surrounding whitespace dropped.
fn from_file(table: &str, field: &str, file: &str, base: &Path) -> Result<String, String> {
    let path = base.join(file);
    let value = std::fs::read_to_string(&path)
        .map_err(|e| format!("`{table}.{field}`: `{}`: {e}", path.display()))?;
    nonempty(table, field, value.trim().to_owned())
}

fn nonempty(table: &str, field: &str, value: String) -> Result<String, String> {
    if value.is_empty() {
        return Err(format!("`{table}.{field}` is empty"));
    }
    Ok(value)
}
