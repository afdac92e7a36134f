//! The documents that list a server's agents for crawlers and clients: the AI Catalog
//! (`/.well-known/ai-catalog.json`: each agent's A2A card, MCP server card and `SKILL.md` as
//! typed entries), the MCP catalog (`/.well-known/mcp/catalog.json`, the MCP-only subset an
//! earlier draft of the server card extension placed there) and the Agent Skills index
//! (`/.well-known/agent-skills/index.json`).

use serde_json::{Value, json};

use super::served::SERVER_CARD;

/// The Agent Skills discovery index schema the index declares.
pub(crate) const SKILLS_INDEX_SCHEMA: &str =
    "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/// The AI Catalog entry type of an A2A agent card.
const A2A_CARD: &str = "application/a2a-agent-card+json";
/// The AI Catalog entry type of an Agent Skills `SKILL.md`.
const SKILL_MD: &str = "application/agent-skills+md";

/// One agent as the catalogs list it.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    /// Its Agent Skills name, which its identifiers end in.
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) version: String,
    pub(crate) tags: Vec<String>,
    /// The domain its identifiers are anchored on.
    pub(crate) publisher: String,
    /// The provider's organization, when the agent names one.
    pub(crate) organization: Option<String>,
    pub(crate) card_url: String,
    pub(crate) server_card_url: String,
    pub(crate) skill_md_url: String,
    /// `sha256:{hex}` of its `SKILL.md`.
    pub(crate) skill_md_digest: String,
    /// Its `SKILL.md`'s `description`.
    pub(crate) skill_description: String,
}

/// An MCP endpoint of its own beside the agents' (a host's shared `/mcp`).
#[derive(Debug, Clone)]
pub(crate) struct SharedEndpoint {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) server_card_url: String,
}

impl Listed {
    fn entry(&self, namespace: &str, kind: &str, url: &str) -> Value {
        let mut entry = json!({
            "identifier": super::names::urn(&self.publisher, namespace, &self.name),
            "displayName": self.title,
            "type": kind,
            "url": url,
            "description": self.description,
            "version": self.version,
            "publisher": {
                "identifier": self.publisher,
                "displayName": self.organization.as_deref().unwrap_or(&self.publisher),
                "identityType": "dns",
            },
        });
        if !self.tags.is_empty() {
            entry["tags"] = json!(self.tags);
        }
        entry
    }
}

/// The AI Catalog of `agents` (and of `shared`), run by `host`.
pub(crate) fn ai_catalog(
    host: &str,
    publisher: &str,
    agents: &[Listed],
    shared: Option<&SharedEndpoint>,
) -> Value {
    let mut entries = Vec::new();
    for agent in agents {
        entries.push(agent.entry("a2a", A2A_CARD, &agent.card_url));
        entries.push(agent.entry("mcp", SERVER_CARD, &agent.server_card_url));
        entries.push(agent.entry("skills", SKILL_MD, &agent.skill_md_url));
    }
    if let Some(shared) = shared {
        entries.push(json!({
            "identifier": super::names::urn(publisher, "mcp", &shared.name),
            "displayName": shared.title,
            "type": SERVER_CARD,
            "url": shared.server_card_url,
        }));
    }
    json!({
        "specVersion": "1.0",
        "host": { "displayName": host, "identifier": publisher },
        "entries": entries,
    })
}

/// The MCP catalog: the MCP server cards alone.
pub(crate) fn mcp_catalog(
    publisher: &str,
    agents: &[Listed],
    shared: Option<&SharedEndpoint>,
) -> Value {
    let entry = |name: &str, url: &str| {
        json!({
            "identifier": super::names::urn(publisher, "mcp", name),
            "type": SERVER_CARD,
            "url": url,
        })
    };
    let entries: Vec<Value> = shared
        .map(|shared| entry(&shared.name, &shared.server_card_url))
        .into_iter()
        .chain(
            agents
                .iter()
                .map(|agent| entry(&agent.name, &agent.server_card_url)),
        )
        .collect();
    json!({ "specVersion": "draft", "entries": entries })
}

/// The Agent Skills index of `agents`: one `SKILL.md` each.
pub(crate) fn skills_index(agents: &[Listed]) -> Value {
    let skills: Vec<Value> = agents
        .iter()
        .map(|agent| {
            json!({
                "name": agent.name,
                "type": "skill-md",
                "description": agent.skill_description,
                "url": agent.skill_md_url,
                "digest": agent.skill_md_digest,
            })
        })
        .collect();
    json!({ "$schema": SKILLS_INDEX_SCHEMA, "skills": skills })
}
