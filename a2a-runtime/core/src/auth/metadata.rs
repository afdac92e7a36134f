//! RFC 9728 protected-resource metadata for MCP clients: which authorization servers issue
//! tokens for this agent and which scopes its tools need, built from the same scheme data as
//! the agent card.

use serde_json::{Value, json};

use super::{JwtConfig, NamedScheme, SecurityScheme};

/// Where MCP clients look for the metadata: the path-suffixed form first, then the root.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document for the MCP endpoint `resource`, or `None` when no scheme takes
/// bearer tokens (then there is nothing for an OAuth client to discover). `jwt` are the
/// configured token issuers (the scheme's own, then any more it trusts).
pub fn document<'a>(
    resource: &str,
    agent_name: &str,
    schemes: &[NamedScheme],
    jwt: impl IntoIterator<Item = &'a JwtConfig>,
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
    // A token's exact `iss` wins over the issuer read off a metadata URL, which cannot tell
    // `https://as.example` from `https://as.example/` (clients compare them as strings).
    for issuer in jwt.into_iter().filter_map(|jwt| jwt.issuer.clone()) {
        let same = |server: &String| server.trim_end_matches('/') == issuer.trim_end_matches('/');
        match servers.iter_mut().find(|server| same(server)) {
            Some(server) => *server = issuer,
            None => servers.push(issuer),
        }
    }
    let mut seen = std::collections::HashSet::new();
    servers.retain(|server| seen.insert(server.clone()));
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
