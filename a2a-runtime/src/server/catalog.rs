//! The catalog of a host's agents: each one's id, URLs and public card, served at
//! `GET /agents` and handed to application routes through [`AgentCatalog`].

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use a2a_runtime_core::defined_agent::{DefinedAgent, Reach};

/// One agent of a host as its catalog lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CatalogEntry {
    /// The agent's id: its path segment and tenant.
    pub id: String,
    /// The agent's own URL (its JSON-RPC endpoint; HTTP+JSON is below it).
    pub url: String,
    /// Where its card is.
    pub card_url: String,
    /// Whether the root well-known paths serve its card.
    pub primary: bool,
    /// Its public agent card.
    pub card: serde_json::Value,
}

/// A handle on a host's catalog, taken with [`Host::catalog`](super::host::Host::catalog) before the
/// host is built and filled once it is. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct AgentCatalog {
    entries: Arc<OnceLock<Arc<[CatalogEntry]>>>,
}

impl AgentCatalog {
    /// Every agent, in the order the host added them; empty until the host is built.
    pub fn entries(&self) -> Arc<[CatalogEntry]> {
        self.entries
            .get()
            .cloned()
            .unwrap_or_else(|| Arc::from(Vec::new()))
    }

    /// The agent `id`, if the host serves one.
    pub fn get(&self, id: &str) -> Option<CatalogEntry> {
        self.entries
            .get()?
            .iter()
            .find(|entry| entry.id == id)
            .cloned()
    }

    /// Fills the catalog; done once, when the host is built.
    pub(crate) fn fill(&self, entries: Vec<CatalogEntry>) -> Arc<[CatalogEntry]> {
        let entries: Arc<[CatalogEntry]> = entries.into();
        let _ = self.entries.set(Arc::clone(&entries));
        entries
    }
}

/// The body of `GET /agents`: each agent defined at run time (a remote) also says how it was
/// last found (`remote`).
pub(crate) fn document(
    entries: &[CatalogEntry],
    remotes: &[(String, Arc<dyn DefinedAgent>)],
) -> serde_json::Value {
    let agents: Vec<serde_json::Value> = entries
        .iter()
        .map(|entry| {
            let mut listed = serde_json::to_value(entry).unwrap_or_default();
            if let Some((_, remote)) = remotes.iter().find(|(id, _)| *id == entry.id) {
                listed["remote"] = reach(&remote.reach());
            }
            listed
        })
        .collect();
    serde_json::json!({ "agents": agents })
}

/// How a remote was last found, as the catalog says it.
fn reach(reach: &Reach) -> serde_json::Value {
    match reach {
        Reach::NotYet => serde_json::json!({ "state": "not reached yet" }),
        Reach::Reached => serde_json::json!({ "state": "reachable" }),
        Reach::Unreachable(why) => serde_json::json!({ "state": "unreachable", "reason": why }),
    }
}

/// `/healthz`'s lines on the remotes: how each was last found (a remote that is down does not
/// make the host unhealthy; its own callers are told).
pub(crate) fn health_lines(remotes: &[(String, Arc<dyn DefinedAgent>)]) -> String {
    remotes
        .iter()
        .map(|(id, remote)| match remote.reach() {
            Reach::NotYet => format!("remote {id}: not reached yet\n"),
            Reach::Reached => format!("remote {id}: reachable\n"),
            Reach::Unreachable(why) => format!("remote {id}: unreachable: {why}\n"),
        })
        .collect()
}
