//! RFC 9728 protected-resource metadata for MCP clients: which authorization servers issue
//! tokens for this agent and which scopes its tools need, built from the same scheme data as
//! the agent card.

use serde_json::{Value, json};

use super::{JwtConfig, NamedScheme, SecurityScheme};

/// Where MCP clients look for the metadata: the path-suffixed form first, then the root.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document for the MCP endpoint `resource`, or `None` when no scheme takes
/// bearer tokens (then there is nothing for an OAuth client to discover).
pub fn document(
    resource: &str,
    agent_name: &str,
    schemes: &[NamedScheme],
    jwt: Option<&JwtConfig>,
    scopes: &[&str],
) -> Option<Value> {
    if !schemes.iter().any(|s| s.scheme.is_jwt()) {
        return None;
    }
    let mut servers: Vec<String> = Vec::new();
    for scheme in schemes {
        let issuer = match &scheme.scheme {
            SecurityScheme::OpenIdConnect { url } => issuer_of(url),
            SecurityScheme::OAuth2 {
                metadata_url: Some(url),
                ..
            } => issuer_of(url),
            _ => None,
        };
        servers.extend(issuer);
    }
    if let Some(issuer) = jwt.and_then(|jwt| jwt.issuer.clone()) {
        servers.push(issuer);
    }
    servers.dedup();
    let mut document = json!({
        "resource": resource,
        "resource_name": agent_name,
        "bearer_methods_supported": ["header"],
        "scopes_supported": scopes,
    });
    if !servers.is_empty() {
        document["authorization_servers"] = json!(servers);
    }
    Some(document)
}

/// The issuer of a metadata URL: the URL without its well-known suffix.
fn issuer_of(url: &str) -> Option<String> {
    let (base, _) = url.split_once("/.well-known/")?;
    Some(base.to_owned())
}
