//! Every path a server answers itself, in one table: the routes are built from these names,
//! the browser guard and the request tracker test against them (through the two predicates
//! below), and a host refuses an agent
//! id that would shadow one.

/// The MCP endpoint (an agent's own below its mount point; a host's shared one at the root).
pub(crate) const MCP: &str = "/mcp";
/// `ok` while every agent's task store takes writes.
pub(crate) const HEALTHZ: &str = "/healthz";
/// A host's catalog of its agents.
pub(crate) const AGENTS: &str = "/agents";
/// The browser console.
pub(crate) const CONSOLE: &str = "/console";
/// Prometheus metrics (the `metrics` feature).
pub(crate) const METRICS: &str = "/metrics";
/// Usage records for administrators (the `usage` feature).
pub(crate) const USAGE: &str = "/usage";
/// Every caller's own usage records, beside the administrators'.
#[cfg_attr(not(feature = "usage"), allow(dead_code))] // Served with usage records.
pub(crate) const USAGE_OWN: &str = "/usage/me";
/// What the console's page learns of the server it is on.
pub(crate) const CONSOLE_FACTS: &str = "/console/server.json";
/// The console page's files, by name (a route pattern).
pub(crate) const CONSOLE_FILES: &str = "/console/{file}";
/// The authorization server's endpoints and its sign-in (the `oauth-server` feature).
pub(crate) const OAUTH: &str = "/oauth";
/// The administrative listing of the authorization server's clients.
pub(crate) const OAUTH_CLIENTS: &str = "/oauth/clients";
/// Where A2A 0.3's HTTP+JSON routes sit below an agent's URL.
pub(crate) const A2A_V0_3_REST: &str = "/v1";
/// The folder of every discovery document (agent cards, OAuth and protected-resource
/// metadata).
pub(crate) const WELL_KNOWN: &str = "/.well-known";
/// RFC 9728 protected-resource metadata (followed by the path of an MCP endpoint).
pub(crate) const PROTECTED_RESOURCE: &str = a2a_runtime_core::auth::metadata::WELL_KNOWN;
/// An MCP endpoint's server card (SEP-2127), at the root MCP endpoint's path.
pub(crate) const SERVER_CARD: &str = "/mcp/server-card";
/// The MCP Registry's entry for the server (`server.json`), beside its server card.
pub(crate) const SERVER_JSON: &str = "/mcp/server.json";
/// The MCP catalog of the server's endpoints.
pub(crate) const MCP_CATALOG: &str = "/.well-known/mcp/catalog.json";
/// The Agent Skills folder (an index and each skill's `SKILL.md`).
pub(crate) const AGENT_SKILLS: &str = "/.well-known/agent-skills";
/// The AI Catalog of the server's agents (the discovery documents start there).
pub(crate) const AI_CATALOG: &str = "/.well-known/ai-catalog.json";
/// The agent card, and the name A2A 0.3 clients read it under.
pub(crate) const AGENT_CARDS: [&str; 2] =
    ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/// Every path above whose first segment the server takes for itself at its root.
const SERVER_PATHS: &[&str] = &[
    MCP,
    HEALTHZ,
    AGENTS,
    CONSOLE,
    METRICS,
    USAGE,
    OAUTH,
    A2A_V0_3_REST,
    WELL_KNOWN,
];

/// Whether `id` is the first segment of a path the server answers itself, which no hosted
/// agent may take as its id (it is the agent's path segment).
pub(crate) fn is_reserved(id: &str) -> bool {
    SERVER_PATHS
        .iter()
        .any(|path| path.trim_start_matches('/') == id)
}

/// The reserved ids, for an error naming them.
pub(crate) fn reserved() -> Vec<&'static str> {
    SERVER_PATHS
        .iter()
        .map(|path| path.trim_start_matches('/'))
        .collect()
}

/// Whether any page may read `path` whatever its origin (the browser guard still checks the
/// host): every well-known document (agent cards, the catalogs, Agent Skills, the
/// protected-resource metadata; a host's agents' too), the MCP server cards and registry
/// entries, a host's catalog, health, an authorization server's API.
pub(crate) fn is_public_metadata(path: &str) -> bool {
    let is_document = |path: &str| {
        path.strip_prefix(&WELL_KNOWN[1..])
            .is_some_and(|inside| inside.starts_with('/'))
            || path == &SERVER_CARD[1..]
            || path == &SERVER_JSON[1..]
    };
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    let under_agent = rest
        .split_once('/')
        .is_some_and(|(_, inner)| is_document(inner));
    is_document(rest)
        || under_agent
        || path == HEALTHZ
        || path == AGENTS
        || is_authorization_server_api(path)
}

/// The authorization server's discovery, keys, registration, token and revocation endpoints,
/// which browser-based MCP clients call from their own origin (they take no cookies).
#[cfg(feature = "oauth-server")]
fn is_authorization_server_api(path: &str) -> bool {
    a2a_runtime_oauth::CROSS_ORIGIN_PATHS.contains(&path)
}

#[cfg(not(feature = "oauth-server"))]
fn is_authorization_server_api(_path: &str) -> bool {
    false
}

/// Whether a shutdown need not wait for `request`: MCP's standalone `GET` stream, which
/// carries no call of its own.
pub(crate) fn is_untracked(request: &axum::extract::Request) -> bool {
    request.method() == axum::http::Method::GET && request.uri().path().starts_with(MCP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_server_path_is_a_reserved_id() {
        for id in ["mcp", "healthz", "agents", "console", "metrics", "usage"] {
            assert!(is_reserved(id), "{id}");
        }
        for id in ["oauth", "v1", ".well-known"] {
            assert!(is_reserved(id), "{id}");
        }
        assert!(!is_reserved("booking"));
        assert!(!is_reserved("mcp2"));
    }

    #[test]
    fn documents_are_public_at_the_root_and_below_an_agent() {
        for path in [
            "/.well-known/agent-card.json",
            "/mcp/server-card",
            "/mcp/server.json",
            "/hello/.well-known/agent-card.json",
            "/hello/mcp/server-card",
            "/healthz",
            "/agents",
        ] {
            assert!(is_public_metadata(path), "{path}");
        }
        for path in [
            "/mcp",
            "/hello/mcp",
            "/",
            "/message:send",
            "/.well-knownx/a",
        ] {
            assert!(!is_public_metadata(path), "{path}");
        }
    }
}
