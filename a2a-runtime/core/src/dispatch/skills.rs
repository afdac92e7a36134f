//! What a dispatcher's agent says of itself and the skills it runs: fixed for a compiled agent;
//! for a remote agent or MCP server, replaced together when the remote's card or list changes,
//! each reader keeping what it started with until it is done.

use std::ops::Deref;
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;

use crate::about::AgentAbout;
use crate::registry::{Registry, SkillEntry};

/// A dispatcher's agent and registry.
pub(super) enum Skills {
    /// A compiled agent, never replaced: its skills read without a lock.
    Fixed(Arc<AgentAbout>, Registry),
    /// Defined skills, replaced when their source changes.
    Changing(Changing),
}

/// An agent and registry that may be replaced, and how often they were.
pub(super) struct Changing {
    current: RwLock<(Arc<AgentAbout>, Arc<Registry>)>,
    /// The number of replacements so far, for front-ends that cache what they derive from the
    /// registry (tool lists) and tell their clients it changed.
    replaced: watch::Sender<u64>,
}

impl Changing {
    pub(super) fn new(about: AgentAbout, registry: Registry) -> Self {
        Self {
            current: RwLock::new((Arc::new(about), Arc::new(registry))),
            replaced: watch::Sender::new(0),
        }
    }
}

impl Changing {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, (Arc<AgentAbout>, Arc<Registry>)> {
        self.current.read().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Skills {
    /// The registry now.
    pub(super) fn current(&self) -> RegistryRef<'_> {
        match self {
            Self::Fixed(_, registry) => RegistryRef::Fixed(registry),
            Self::Changing(changing) => RegistryRef::Current(Arc::clone(&changing.read().1)),
        }
    }

    /// What the agent says of itself now.
    pub(super) fn about(&self) -> Arc<AgentAbout> {
        match self {
            Self::Fixed(about, _) => Arc::clone(about),
            Self::Changing(changing) => Arc::clone(&changing.read().0),
        }
    }

    /// Replaces the agent and registry of a changing dispatcher; `false` for a fixed one.
    pub(super) fn replace(&self, about: AgentAbout, registry: Registry) -> bool {
        let Self::Changing(changing) = self else {
            return false;
        };
        *changing
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = (Arc::new(about), Arc::new(registry));
        changing.replaced.send_modify(|replaced| *replaced += 1);
        true
    }

    /// How many times the registry was replaced so far, watched (`None`: it never is).
    pub(super) fn replacements(&self) -> Option<watch::Receiver<u64>> {
        match self {
            Self::Fixed(..) => None,
            Self::Changing(changing) => Some(changing.replaced.subscribe()),
        }
    }
}

/// A dispatcher's registry as it was when asked for: borrowed when it never changes, held
/// otherwise.
pub enum RegistryRef<'a> {
    /// A fixed registry.
    Fixed(&'a Registry),
    /// The registry of the moment; a replacement does not change it.
    Current(Arc<Registry>),
}

impl Deref for RegistryRef<'_> {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        match self {
            Self::Fixed(registry) => registry,
            Self::Current(registry) => registry,
        }
    }
}

/// One skill of a dispatcher, as it was when asked for: borrowed from a fixed registry, held
/// from a changing one (so a call keeps its skill across a replacement).
pub enum SkillRef<'a> {
    /// From a fixed registry.
    Borrowed(&'a SkillEntry),
    /// From a changing one.
    Held(Arc<SkillEntry>),
}

impl Deref for SkillRef<'_> {
    type Target = SkillEntry;

    fn deref(&self) -> &SkillEntry {
        match self {
            Self::Borrowed(entry) => entry,
            Self::Held(entry) => entry,
        }
    }
}

impl Skills {
    /// The skill `id` now.
    pub(super) fn entry(&self, id: &str) -> Option<SkillRef<'_>> {
        match self.current() {
            RegistryRef::Fixed(registry) => registry.get(id).map(|e| SkillRef::Borrowed(e)),
            RegistryRef::Current(registry) => registry.get(id).cloned().map(SkillRef::Held),
        }
    }
}
