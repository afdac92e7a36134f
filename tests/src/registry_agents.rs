//! Agents whose registries must be refused at startup, and one with an explicit skill list.

use a2a_runtime::prelude::*;

/// An agent with no skills at all.
#[agent]
#[derive(Debug)]
pub struct Empty;

/// An agent with two skills that share an id.
#[agent]
#[derive(Debug)]
pub struct Clash;

/// The first definition.
#[skill(agent = Clash, id = "same")]
pub async fn first() -> &'static str {
    "first"
}

/// Skills in another module.
pub mod other {
    use a2a_runtime::prelude::*;

    /// The second definition.
    #[skill(agent = super::Clash, id = "same")]
    pub async fn second() -> &'static str {
        "second"
    }
}

/// An agent that lists its skills explicitly (they also register at link time).
#[agent(skills(listed_a, listed_b))]
#[derive(Debug)]
pub struct Listed;

/// Skill A.
#[skill(agent = Listed)]
pub async fn listed_a() -> &'static str {
    "a"
}

/// Skill B.
#[skill(agent = Listed)]
pub async fn listed_b() -> &'static str {
    "b"
}
