//! The skills a dispatcher runs: fixed for a compiled agent; for a remote agent or MCP server,
//! replaced as a whole when the remote's list changes, each reader keeping the registry it
//! started with until it is done.

use std::ops::Deref;
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;

use crate::registry::{Registry, SkillEntry};

/// A dispatcher's registry.
pub(super) enum Skills {
    /// Compiled skills, never replaced: read without a lock.
    Fixed(Registry),
    /// Defined skills, replaced when their source changes.
    Changing(Changing),
}

/// A registry that may be replaced, and how often it was.
pub(super) struct Changing {
    current: RwLock<Arc<Registry>>,
    /// The number of replacements so far, for front-ends that cache what they derive from the
    /// registry (tool lists) and tell their clients it changed.
    replaced: watch::Sender<u64>,
}

impl Changing {
    pub(super) fn new(registry: Registry) -> Self {
        Self {
            current: RwLock::new(Arc::new(registry)),
            replaced: watch::Sender::new(0),
        }
    }
}

impl Skills {
    /// The registry now.
    pub(super) fn current(&self) -> RegistryRef<'_> {
        match self {
            Self::Fixed(registry) => RegistryRef::Fixed(registry),
            Self::Changing(changing) => RegistryRef::Current(Arc::clone(
                &changing
                    .current
                    .read()
                    .unwrap_or_else(PoisonError::into_inner),
            )),
        }
    }

    /// Replaces the registry of a changing dispatcher; `false` for a fixed one.
    pub(super) fn replace(&self, registry: Registry) -> bool {
        let Self::Changing(changing) = self else {
            return false;
        };
        *changing
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(registry);
        changing.replaced.send_modify(|replaced| *replaced += 1);
        true
    }

    /// How many times the registry was replaced so far, watched (`None`: it never is).
    pub(super) fn replacements(&self) -> Option<watch::Receiver<u64>> {
        match self {
            Self::Fixed(_) => None,
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
