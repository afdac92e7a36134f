//! The discovery documents as served now. A server of compiled agents builds them once; one
//! with agents defined at run time (remotes, whose cards and tool lists change) builds them all
//! again from the same steps whenever one of those agents changes, so the catalogs, server
//! cards and `SKILL.md`s never describe a remote as it was at start.

use std::sync::{Arc, Weak};

use super::served::{LiveDocuments, Served};
use a2a_runtime_a2a::card::Endpoints;
use a2a_runtime_core::app::App;
use a2a_runtime_mcp::skills_ext::SkillShelf;

/// One step of building a server's documents, kept to build them again.
#[derive(Debug, Clone)]
pub(super) enum Step {
    /// An agent's documents (`Discovery::agent`).
    Agent {
        app: Weak<App>,
        at: String,
        endpoints: Endpoints,
    },
    /// A host's own (`Discovery::host`).
    Host {
        name: String,
        ids: Vec<String>,
        shared: Option<(Weak<App>, String)>,
    },
}

/// The `SKILL.md`s an MCP endpoint serves: the agent's mounted at `at`, or every agent's.
#[derive(Debug)]
pub(super) struct Shelved {
    pub(super) at: Option<String>,
    pub(super) shelf: Arc<SkillShelf>,
}

/// What building the documents again needs.
#[derive(Debug)]
pub(super) struct Recipe {
    pub(super) origin: String,
    pub(super) steps: Vec<Step>,
    pub(super) live: Arc<LiveDocuments>,
    pub(super) shelves: Vec<Shelved>,
}

impl Recipe {
    /// Serves the documents built, and builds them again (`rebuild`) whenever an agent defined
    /// at run time changes, until it is gone.
    pub(super) fn publish(self, bundle: &[(String, Arc<Served>)], rebuild: fn(&Recipe)) {
        self.live.replace(bundle);
        let changing: Vec<_> = self
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Agent { app, .. } => app.upgrade(),
                Step::Host { .. } => None,
            })
            .filter_map(|app| app.dispatcher.registry_replacements())
            .collect();
        // Outside a runtime nothing is followed (as for the agents' cards).
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if changing.is_empty() {
            return;
        }
        self.live.changing();
        let recipe = Arc::new(self);
        for mut replaced in changing {
            let recipe = Arc::clone(&recipe);
            // Ends with the dispatcher, whose sender it watches.
            runtime.spawn(async move {
                while replaced.changed().await.is_ok() {
                    rebuild(&recipe);
                }
            });
        }
    }
}
