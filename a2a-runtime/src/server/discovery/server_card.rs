//! An MCP endpoint as the documents that describe it before a client connects: its server card
//! (SEP-2127, the `io.modelcontextprotocol/server-card` extension) and its MCP Registry entry
//! (`server.json`, schema 2025-12-11), both from the same identity and remote.

use serde_json::{Map, Value, json};

use a2a_runtime_core::auth::{ApiKeyLocation, Security, SecurityScheme};
use a2a_runtime_core::descriptor::Package;

/// The server card schema the cards declare.
pub(crate) const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// The `server.json` schema the registry entries declare.
pub(crate) const SERVER_JSON_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// Who an MCP endpoint is, as both documents say it.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    /// Reverse-DNS `namespace/name`.
    pub(crate) name: String,
    /// Display name, at most 100 characters.
    pub(crate) title: String,
    /// At most 100 characters.
    pub(crate) description: String,
    pub(crate) version: String,
    pub(crate) website: Option<String>,
    pub(crate) icon: Option<String>,
    pub(crate) package: Package,
}

/// Where an MCP endpoint is reached, and what a connection to it carries.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// The streamable HTTP URL (a template when `variables` name its parts).
    pub(crate) url: String,
    /// The credential headers, as `KeyValueInput`s.
    pub(crate) headers: Vec<Value>,
    /// The URL's template variables, as `Input`s by name.
    pub(crate) variables: Map<String, Value>,
}

impl Remote {
    fn json(&self, versions: Option<Vec<String>>) -> Value {
        let mut remote = json!({ "type": "streamable-http", "url": self.url });
        if !self.headers.is_empty() {
            remote["headers"] = Value::Array(self.headers.clone());
        }
        if !self.variables.is_empty() {
            remote["variables"] = Value::Object(self.variables.clone());
        }
        if let Some(versions) = versions {
            remote["supportedProtocolVersions"] = json!(versions);
        }
        remote
    }
}

impl Identity {
    /// The members both documents share.
    fn common(&self, schema: &str) -> Map<String, Value> {
        let mut common = Map::new();
        common.insert("$schema".into(), json!(schema));
        common.insert("name".into(), json!(self.name));
        common.insert("title".into(), json!(self.title));
        common.insert("description".into(), json!(self.description));
        common.insert("version".into(), json!(self.version));
        if let Some(website) = &self.website {
            common.insert("websiteUrl".into(), json!(website));
        }
        if let Some(repository) = repository(self.package.repository) {
            common.insert("repository".into(), repository);
        }
        if let Some(icon) = &self.icon {
            common.insert("icons".into(), json!([{ "src": icon }]));
        }
        common
    }
}

/// The endpoint's server card.
pub(crate) fn server_card(identity: &Identity, remote: &Remote) -> Value {
    let mut card = identity.common(SERVER_CARD_SCHEMA);
    let versions = a2a_runtime_mcp::handler::methods::protocol_versions();
    card.insert("remotes".into(), json!([remote.json(Some(versions))]));
    Value::Object(card)
}

/// The endpoint's MCP Registry entry: the deployed remote and, when the agent's crate can be
/// installed from crates.io, the crate itself run over stdio (`cargo install`, then
/// `{crate} --stdio`). A crate that is not published (`publish = false`) is the remote alone:
/// a package entry would send its reader to a crate nobody can install.
pub(crate) fn registry_entry(identity: &Identity, remote: &Remote) -> Value {
    let mut entry = identity.common(SERVER_JSON_SCHEMA);
    let package = identity.package;
    if package.on_crates_io && !package.name.is_empty() && !package.version.is_empty() {
        entry.insert(
            "packages".into(),
            json!([{
                "registryType": "cargo",
                "registryBaseUrl": "https://crates.io",
                "identifier": package.name,
                "version": package.version,
                "transport": { "type": "stdio" },
                "packageArguments": [{ "type": "named", "name": "--stdio" }],
            }]),
        );
    }
    entry.insert("remotes".into(), json!([remote.json(None)]));
    Value::Object(entry)
}

/// `repository` for a repository URL Cargo was given.
fn repository(url: &str) -> Option<Value> {
    if url.is_empty() {
        return None;
    }
    let host = super::names::host_of(url)?;
    // The forge's name (`github`, `gitlab`, `codeberg`), as registries spell the source.
    let source = match host.strip_prefix("www.").unwrap_or(&host).split_once('.') {
        Some((forge, _)) => forge.to_owned(),
        None => host.clone(),
    };
    Some(json!({ "url": url.trim_end_matches(".git"), "source": source }))
}

/// The headers a connection carries to pass `security`: an API key in a header, a bearer
/// token. OAuth and OpenID Connect tokens are none of them: MCP clients obtain those through
/// the authorization flow the endpoint's protected-resource metadata starts. A header is
/// required when it is the only way in.
pub(crate) fn credential_headers(security: &Security, any_public: bool) -> Vec<Value> {
    let mut headers = Vec::new();
    let mut ways = 0;
    for named in security.schemes() {
        ways += 1;
        let description = named.description.clone();
        match &named.scheme {
            SecurityScheme::ApiKey {
                location: ApiKeyLocation::Header,
                name,
            } => headers.push(json!({
                "name": name,
                "description": description.unwrap_or_else(|| "The API key.".into()),
                "isSecret": true,
            })),
            SecurityScheme::Bearer => headers.push(json!({
                "name": "Authorization",
                "description": description.unwrap_or_else(|| "A bearer token.".into()),
                "isSecret": true,
                "value": "Bearer {token}",
                "variables": { "token": {
                    "description": "The bearer token (a JWT).",
                    "isRequired": true,
                    "isSecret": true,
                } },
            })),
            _ => {}
        }
    }
    let required = ways == 1 && headers.len() == 1 && !any_public;
    for header in &mut headers {
        header["isRequired"] = json!(required);
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(on_crates_io: bool) -> Identity {
        Identity {
            name: "io.github.acme/fx".into(),
            title: "Fx".into(),
            description: "Converts money.".into(),
            version: "1.2.0".into(),
            website: None,
            icon: None,
            package: Package {
                name: "fx-agent",
                version: "1.2.0",
                repository: "",
                homepage: "",
                on_crates_io,
            },
        }
    }

    #[test]
    fn only_a_crate_crates_io_has_is_listed_as_a_package() {
        let remote = Remote {
            url: "https://fx.example/mcp".into(),
            headers: Vec::new(),
            variables: Map::new(),
        };
        let published = registry_entry(&identity(true), &remote);
        assert_eq!(published["packages"][0]["registryType"], "cargo");
        assert_eq!(published["packages"][0]["identifier"], "fx-agent");
        let private = registry_entry(&identity(false), &remote);
        assert_eq!(private.get("packages"), None, "{private}");
        assert_eq!(private["remotes"][0]["url"], "https://fx.example/mcp");
    }
}
