//! Which protocol a call came over: a skill may answer a client of one generation differently
//! (a test kit's reference behaviour, a format an older client reads), though most never ask.

use serde::{Deserialize, Serialize};

/// The protocol a call came over (`TaskContext::protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Protocol {
    /// An A2A message, in this version.
    A2a(A2aVersion),
    /// An MCP tool call (any revision, any transport).
    Mcp,
}

/// A version of A2A this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum A2aVersion {
    /// A2A 1.0.
    #[serde(rename = "1.0")]
    V1_0,
    /// A2A 0.3 (and 0.2).
    #[serde(rename = "0.3")]
    V0_3,
    /// The early draft (`tasks/send`).
    #[serde(rename = "draft")]
    EarlyDraft,
}
