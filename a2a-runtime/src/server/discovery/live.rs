//! The discovery documents as served now. A server of compiled agents builds them once; one
//! with agents defined at run time (remotes, whose cards and tool lists change) builds them all
//! again from the same steps whenever one of those agents changes, so the catalogs, server
//! cards and `SKILL.md`s never describe a remote as it was at start.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock, Weak};

use axum::http::HeaderValue;

use super::Discovery;
use super::served::Served;
use a2a_runtime_a2a::card::Endpoints;
use a2a_runtime_core::app::App;
use a2a_runtime_mcp::skills_ext::SkillShelf;

/// How long a client may keep a document of a server whose documents never change.
const FIXED: &str = "public, max-age=3600";
/// The same for one whose documents change: kept, but revalidated (by its `ETag`) each time.
const CHANGING: &str = "public, no-cache";

/// The documents, by path from the server's root, and how long a client may keep them.
#[derive(Debug)]
pub(crate) struct LiveDocuments {
    served: RwLock<Arc<HashMap<String, Arc<Served>>>>,
    cache_control: RwLock<HeaderValue>,
}

impl Default for LiveDocuments {
    fn default() -> Self {
        Self {
            served: RwLock::default(),
            cache_control: RwLock::new(HeaderValue::from_static(FIXED)),
        }
    }
}

impl LiveDocuments {
    /// The document at `path`, as it is now.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Served>> {
        let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
        served.get(path).cloned()
    }

    /// The `Cache-Control` every document is served with.
    pub(crate) fn cache_control(&self) -> HeaderValue {
        let value = self.cache_control.read();
        value.unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Serves `bundle` from now on.
    fn replace(&self, bundle: &[(String, Arc<Served>)]) {
        let served = bundle.iter().map(|(p, d)| (p.clone(), Arc::clone(d)));
        let served = Arc::new(served.collect());
        *self.served.write().unwrap_or_else(PoisonError::into_inner) = served;
    }

    fn changing(&self) {
        let value = HeaderValue::from_static(CHANGING);
        *self
            .cache_control
            .write()
            .unwrap_or_else(PoisonError::into_inner) = value;
    }
}

/// One step of building a server's documents, kept to build them again.
#[derive(Debug, Clone)]
pub(super) enum Step {
    /// An agent's documents ([`Discovery::agent`]).
    Agent {
        app: Weak<App>,
        at: String,
        endpoints: Endpoints,
    },
    /// A host's own ([`Discovery::host`]).
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
    /// Builds the documents again and serves them; nothing when an agent is gone (the
    /// server stopped).
    fn rebuild(&self) {
        let mut discovery = Discovery::new(&self.origin);
        for step in &self.steps {
            match step {
                Step::Agent { app, at, endpoints } => {
                    let Some(app) = app.upgrade() else { return };
                    discovery.agent_documents(&app, at, endpoints);
                }
                Step::Host { name, ids, shared } => {
                    let shared = match shared {
                        Some((app, text)) => match app.upgrade() {
                            Some(app) => Some((app, text.as_str())),
                            None => return,
                        },
                        None => None,
                    };
                    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                    let shared = shared.as_ref().map(|(app, text)| (app, *text));
                    discovery.host_documents(name, &ids, shared);
                }
            }
        }
        self.live.replace(discovery.bundle());
        for shelved in &self.shelves {
            let skills = match &shelved.at {
                Some(at) => discovery.skills_at(at),
                None => discovery.all_skills(),
            };
            shelved.shelf.replace(skills);
        }
    }

    /// Serves the documents built, and builds them again whenever an agent defined at run
    /// time changes, until it is gone.
    pub(super) fn publish(self, bundle: &[(String, Arc<Served>)]) {
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
                    recipe.rebuild();
                }
            });
        }
    }
}
