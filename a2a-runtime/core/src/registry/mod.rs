//! The registry: every skill of one agent, sorted by id and validated: those `#[skill]`
//! compiled, collected once at startup, or those defined at run time (`defined.rs`).

mod defined;
mod entry;
mod traits;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

pub use defined::{DefinedSkill, RunSkill};
pub use entry::{Body, OutputValidator, SkillEntry};
pub use traits::Traits;

#[cfg(test)]
mod tests;

use crate::descriptor::SkillDescriptor;
use crate::error::Error;
use crate::intern::intern;

/// One link-time registration, submitted by `#[skill]` through `__private::register_skill!`.
#[doc(hidden)]
pub struct SkillRegistration(pub &'static SkillDescriptor);

inventory::collect!(SkillRegistration);

/// The validated, sorted set of skills served by one agent.
#[derive(Debug)]
pub struct Registry {
    skills: Vec<Arc<SkillEntry>>,
    by_id: HashMap<&'static str, usize>,
    default: Option<usize>,
    /// The resources and prompts defined with the skills (a remote MCP server's); a compiled
    /// agent's are in its catalog.
    content: crate::content::DefinedContent,
}

impl Registry {
    /// Collects the skills of agent `agent`: those listed explicitly, those added with the
    /// builder, and (with the `auto-register` feature) those registered at link time.
    pub fn build(
        agent: TypeId,
        agent_name: &str,
        explicit: &[&'static SkillDescriptor],
    ) -> Result<Self, Error> {
        let mut found: Vec<&'static SkillDescriptor> = explicit.to_vec();
        if cfg!(feature = "auto-register") {
            found.extend(
                inventory::iter::<SkillRegistration>
                    .into_iter()
                    .map(|r| r.0)
                    .filter(|d| d.agent_type() == agent),
            );
        }
        // The same descriptor may arrive both explicitly and through inventory.
        found.sort_by(|a, b| {
            a.id()
                .cmp(b.id())
                .then((*a as *const SkillDescriptor).cmp(&(*b as *const _)))
        });
        found.dedup_by(|a, b| std::ptr::eq(*a, *b));
        for pair in found.windows(2) {
            if pair[0].id() == pair[1].id() {
                return Err(Error::DuplicateSkill {
                    id: pair[0].id().to_owned(),
                    first: pair[0].location(),
                    second: pair[1].location(),
                });
            }
        }
        if let Some(foreign) = found.iter().find(|d| d.agent_type() != agent) {
            return Err(Error::Config(format!(
                "skill `{}` ({}) belongs to agent `{}`, not `{agent_name}`",
                foreign.id(),
                foreign.location(),
                foreign.agent_name()
            )));
        }
        if found.is_empty() {
            return Err(Error::NoSkills {
                agent: agent_name.to_owned(),
            });
        }
        for descriptor in &found {
            legal_tool_name(descriptor.id(), || descriptor.location())?;
        }
        let skills = found.into_iter().map(SkillEntry::compiled).collect();
        Self::of(agent_name, skills)
    }

    /// The skills defined at run time for the agent `agent_name` (see [`DefinedSkill`]); unlike
    /// a compiled agent, one with no skills is served (a remote may offer none yet).
    pub fn defined(agent_name: &str, defined: Vec<DefinedSkill>) -> Result<Self, Error> {
        let mut skills = Vec::with_capacity(defined.len());
        for skill in defined {
            legal_tool_name(&skill.id, || skill.location.clone())?;
            let kept = |name: &str| intern(name).map_err(|full| Error::Config(full.to_string()));
            let id = kept(&skill.id)?;
            let scopes = skill
                .scopes
                .iter()
                .map(|scope| kept(scope))
                .collect::<Result<Arc<[_]>, _>>()?;
            let body = Arc::new(defined::DefinedBody::new(&skill));
            skills.push(SkillEntry::defined(skill, id, scopes, body));
        }
        skills.sort_by(|a, b| a.id().cmp(b.id()));
        for pair in skills.windows(2) {
            if pair[0].id() == pair[1].id() {
                return Err(Error::DuplicateSkill {
                    id: pair[0].id().to_owned(),
                    first: pair[0].location(),
                    second: pair[1].location(),
                });
            }
        }
        Self::of(agent_name, skills)
    }

    /// The registry of `skills`, sorted by id without duplicates; at most one is the default.
    fn of(agent_name: &str, skills: Vec<SkillEntry>) -> Result<Self, Error> {
        let defaults: Vec<_> = skills.iter().filter(|s| s.is_default()).collect();
        if defaults.len() > 1 {
            return Err(Error::Config(format!(
                "agent `{agent_name}` has several default skills ({}); mark at most one with `default`",
                defaults
                    .iter()
                    .map(|d| d.id())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let skills: Vec<_> = skills.into_iter().map(Arc::new).collect();
        let by_id = skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id(), i))
            .collect();
        let default = skills.iter().position(|skill| skill.is_default());
        Ok(Self {
            skills,
            by_id,
            default,
            content: crate::content::DefinedContent::default(),
        })
    }

    /// The same skills, with the resources and prompts `content` defines.
    #[must_use]
    pub fn with_content(mut self, content: crate::content::DefinedContent) -> Self {
        self.content = content;
        self
    }

    /// The resources and prompts defined with the skills.
    pub fn content(&self) -> &crate::content::DefinedContent {
        &self.content
    }

    /// All skills, sorted by id.
    pub fn skills(&self) -> &[Arc<SkillEntry>] {
        &self.skills
    }

    /// Every scope some skill requires, sorted, with the ids of the skills that require it.
    pub fn scopes(&self) -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
        let mut scopes = std::collections::BTreeMap::<_, Vec<_>>::new();
        for skill in &self.skills {
            for scope in skill.scopes().iter() {
                scopes.entry(*scope).or_default().push(skill.id());
            }
        }
        scopes
    }

    /// The skill with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<SkillEntry>> {
        self.by_id.get(id).map(|&i| &self.skills[i])
    }

    /// The skill used when a message names none: the only one, or the one marked `default`.
    pub fn fallback(&self) -> Option<&Arc<SkillEntry>> {
        match self.skills.as_slice() {
            [only] => Some(only),
            _ => self.default.map(|i| &self.skills[i]),
        }
    }

    /// Skill ids, comma separated, for error messages.
    pub fn id_list(&self) -> String {
        self.skills
            .iter()
            .map(|s| s.id())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The macros reject illegal ids at compile time; this catches descriptors built by other means
/// and skills defined at run time (where `location` says what defined the skill).
fn legal_tool_name(id: &str, location: impl FnOnce() -> String) -> Result<(), Error> {
    let legal = (1..=128).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if legal {
        Ok(())
    } else {
        Err(Error::IllegalToolName {
            id: id.chars().take(160).collect(),
            location: location(),
        })
    }
}
