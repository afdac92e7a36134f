#![doc = include_str!("../docs/calling-agents.md")]

pub use a2a_runtime_client::*;
