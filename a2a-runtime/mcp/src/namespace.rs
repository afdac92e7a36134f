//! Names under one MCP endpoint serving several agents: each agent's tools and prompts are
//! listed as `{agent}_{name}` (letters, digits, `_` and `-`, which every MCP host accepts in a
//! tool name), and a namespaced name leads back to its agent and the agent's own name.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_runtime_core::dispatch::{Dispatcher, SkillRef};

/// The prefix of an endpoint's only agent (an agent's own endpoint): its names are listed as
/// they are.
pub const OWN_NAMES: &str = "";

/// The name agent `prefix`'s `name` is listed under; an agent with an empty prefix
/// ([`OWN_NAMES`]) keeps its names.
pub fn namespaced(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}_{name}")
    }
}

/// Which of `prefixes` a namespaced `name` belongs to, and the agent's own name: the first
/// whose agent `has` it (a prefix may itself contain `_`, so more than one may match).
pub fn split<'p, 'n>(
    prefixes: impl IntoIterator<Item = (usize, &'p str)>,
    name: &'n str,
    has: impl Fn(usize, &str) -> bool,
) -> Option<(usize, &'n str)> {
    prefixes.into_iter().find_map(|(index, prefix)| {
        let own = if prefix.is_empty() {
            name
        } else {
            name.strip_prefix(prefix)?.strip_prefix('_')?
        };
        has(index, own).then_some((index, own))
    })
}

/// The first name two agents would both be listed under, if any: `names` are each agent's
/// prefix and its own names.
pub fn collision<'a>(
    names: impl IntoIterator<Item = (&'a str, Vec<&'a str>)>,
) -> Option<(String, [&'a str; 2])> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (prefix, own) in names {
        for name in own {
            let listed = namespaced(prefix, name);
            if let Some(first) = seen.insert(listed.clone(), prefix)
                && first != prefix
            {
                return Some((listed, [first, prefix]));
            }
        }
    }
    None
}

/// The skills behind tool names, for the checks of `tools/call` before rmcp reads the call:
/// one agent's (its names as they are), or several agents' under their prefixes.
#[derive(Clone)]
pub struct ToolSkills(Arc<[Agent]>);

/// One agent's tools: its prefix, its skills, and whether it needs credentials at all.
struct Agent {
    prefix: String,
    dispatcher: Arc<Dispatcher>,
    /// The agent has no security scheme: its tools need no credentials, even where others'
    /// do (a host's shared endpoint).
    open: bool,
}

impl ToolSkills {
    /// One agent's tools, named as its skills.
    pub fn of(dispatcher: Arc<Dispatcher>) -> Self {
        Self(Arc::from([Agent {
            prefix: String::new(),
            dispatcher,
            open: false,
        }]))
    }

    /// Several agents' tools, each `{prefix}_{skill}`; `open` says whether an agent has no
    /// security scheme.
    pub fn namespaced(agents: Vec<(String, Arc<Dispatcher>, bool)>) -> Self {
        Self(
            agents
                .into_iter()
                .map(|(prefix, dispatcher, open)| Agent {
                    prefix,
                    dispatcher,
                    open,
                })
                .collect(),
        )
    }

    /// Whether some tool needs no credentials: a public one (`#[skill(public)]`), or one of
    /// an agent without security.
    pub fn has_public(&self) -> bool {
        self.0.iter().any(|agent| {
            agent.open
                || agent
                    .dispatcher
                    .registry()
                    .skills()
                    .iter()
                    .any(|skill| skill.is_public())
        })
    }

    /// Whether tool `name` may be called without credentials.
    pub fn is_public(&self, name: &str) -> bool {
        self.find(name)
            .is_some_and(|(agent, skill)| agent.open || skill.is_public())
    }

    /// The skill tool `name` calls, with the dispatcher of its agent.
    pub fn skill(&self, name: &str) -> Option<(&Arc<Dispatcher>, SkillRef<'_>)> {
        self.find(name)
            .map(|(agent, skill)| (&agent.dispatcher, skill))
    }

    fn find(&self, name: &str) -> Option<(&Agent, SkillRef<'_>)> {
        let prefixes = self
            .0
            .iter()
            .enumerate()
            .map(|(index, agent)| (index, agent.prefix.as_str()));
        let (index, own) = split(prefixes, name, |index, own| {
            self.0[index].dispatcher.skill(own).is_some()
        })?;
        let agent = &self.0[index];
        Some((agent, agent.dispatcher.skill(own)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_goes_back_to_the_agent_that_has_it() {
        let prefixes = [(0, "travel"), (1, "travel_eu")];
        let has = |index: usize, name: &str| match index {
            0 => name == "book",
            _ => name == "book" || name == "rail",
        };
        assert_eq!(split(prefixes, "travel_book", has), Some((0, "book")));
        assert_eq!(
            split(prefixes, "travel_eu_rail", has),
            Some((1, "rail")),
            "`travel` has no `eu_rail`, so the longer prefix is the agent"
        );
        assert_eq!(split(prefixes, "travel_eu_book", has), Some((1, "book")));
        assert_eq!(split(prefixes, "book", has), None);
        assert_eq!(
            split([(0, "")], "book", |_, n| n == "book"),
            Some((0, "book"))
        );
    }

    #[test]
    fn two_agents_listing_one_name_collide() {
        let names = [("a", vec!["b_c", "d"]), ("a_b", vec!["c"])];
        assert_eq!(collision(names), Some(("a_b_c".to_owned(), ["a", "a_b"])));
        assert_eq!(collision([("a", vec!["x"]), ("b", vec!["x"])]), None);
    }
}
