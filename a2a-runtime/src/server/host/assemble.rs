//! Assembling a host: its agents' ids checked, and every agent's [`App`] built on what they
//! share.

use std::sync::Arc;

use super::Host;
use crate::server::build::{Placement, Shared};
use crate::server::{Error, oauth};
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::AuthConfig;
use tokio_util::sync::CancellationToken;

/// Path segments a server answers itself, which no agent id may take.
const RESERVED_IDS: &[&str] = &[
    ".well-known",
    "agents",
    "console",
    "mcp",
    "healthz",
    "v1",
    "oauth",
    "metrics",
    "usage",
];

/// The longest agent id: it is a path segment, a tenant and an MCP tool-name prefix.
const MAX_ID_LEN: usize = 48;

impl Host {
    /// Every agent's [`App`], in the order added, on one shared store, quota set and pusher;
    /// each accepts the tokens `oauth` issues for its resources at `base`.
    pub(super) fn build(
        &self,
        shutdown: CancellationToken,
        oauth: Option<&oauth::Deployed>,
        base: &str,
    ) -> Result<Vec<Arc<App>>, Error> {
        self.config.validate()?;
        self.check_ids()?;
        let service = (self.name.as_str(), env!("CARGO_PKG_VERSION"));
        let shared = Shared::new(&self.config, self.store.clone(), (&self.observers, service))?;
        let host_auth = AuthConfig {
            api_keys: self.api_keys.clone(),
            jwt: self.jwt.clone(),
            jwt_issuers: self.jwt_issuers.clone(),
            scope_implies: self.scope_implies.clone(),
            ..AuthConfig::default()
        };
        self.agents
            .iter()
            .map(|hosted| {
                let agent = &hosted.server;
                let limits = hosted.limits.as_ref().unwrap_or(&self.config.limits);
                let misplaced = if !agent.rest_prefix.is_empty() {
                    Some("a rest_prefix (its HTTP+JSON routes are under /{id}/)")
                } else if agent.store.is_some() {
                    Some("a store of its own (the host keeps every agent's tasks)")
                } else {
                    None
                };
                if let Some(what) = misplaced {
                    return Err(Error::Config(format!(
                        "agent `{}` has {what}; set it on the Host instead",
                        hosted.id
                    )));
                }
                let agent_oauth = oauth.map(|d| d.for_agent(&self.audiences(base, &hosted.id)));
                let placement = Placement {
                    key: &hosted.id,
                    limits,
                    host: Some(&host_auth),
                    oauth: agent_oauth.as_ref(),
                };
                agent.build_on(placement, &self.config, &shared, shutdown.clone())
            })
            .collect()
    }

    /// Ids are unique, non-empty path segments of letters, digits, `-` and `_`, not taken by
    /// the server's own paths; the primary is one of them.
    fn check_ids(&self) -> Result<(), Error> {
        if self.agents.is_empty() {
            return Err(Error::Config(
                "a host needs at least one agent: Host::new().agent(\"id\", MyAgent)".into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for hosted in &self.agents {
            let id = hosted.id.as_str();
            let well_formed = !id.is_empty()
                && id.len() <= MAX_ID_LEN
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !well_formed || RESERVED_IDS.contains(&id) {
                return Err(Error::Config(format!(
                    "agent id `{id}` must be 1 to {MAX_ID_LEN} letters, digits, `-` or `_`, and \
                     not one of {RESERVED_IDS:?} (it is a URL path segment and a tenant)"
                )));
            }
            if !seen.insert(id) {
                return Err(Error::Config(format!(
                    "agent id `{id}` is used twice: every agent of a host needs its own"
                )));
            }
        }
        if let Some(id) = self.unknown_limits.first() {
            return Err(Error::Config(format!(
                "agent_limits(\"{id}\", ..) names no agent added before it (this host has {})",
                self.ids().join(", ")
            )));
        }
        if let Some(primary) = &self.primary
            && !seen.contains(primary.as_str())
        {
            return Err(Error::Config(format!(
                "primary agent `{primary}` is not an agent of this host (it has {})",
                self.ids().join(", ")
            )));
        }
        Ok(())
    }
}
