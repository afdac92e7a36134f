#![doc = include_str!("../docs/a2a.md")]

pub use a2a_runtime_a2a::card::SKILL_SCHEMAS_EXTENSION;
