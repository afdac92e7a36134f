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

impl Protocol {
    /// The protocol's name, as metrics and usage records label it: `a2a` or `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Self::A2a(_) => "a2a",
            Self::Mcp => "mcp",
        }
    }

    /// The A2A version, as labels name it (`1.0`, `0.3`, `draft`); empty for MCP, whose
    /// revision a call does not carry.
    pub fn version(self) -> &'static str {
        match self {
            Self::A2a(version) => version.as_str(),
            Self::Mcp => "",
        }
    }
}

impl A2aVersion {
    /// The version as the wire and labels name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
            Self::EarlyDraft => "draft",
        }
    }
}

/// How a request reached the server: the binding (A2A) or transport (MCP) it came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Binding {
    /// A2A over JSON-RPC 2.0 (every version).
    #[serde(rename = "jsonrpc")]
    JsonRpc,
    /// A2A over HTTP+JSON (REST).
    #[serde(rename = "http+json")]
    HttpJson,
    /// A2A over gRPC.
    #[serde(rename = "grpc")]
    Grpc,
    /// MCP over streamable HTTP.
    #[serde(rename = "streamable-http")]
    StreamableHttp,
    /// MCP over standard input and output.
    #[serde(rename = "stdio")]
    Stdio,
}

impl Binding {
    /// The binding as labels name it: `jsonrpc`, `http+json`, `grpc`, `streamable-http`,
    /// `stdio`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JsonRpc => "jsonrpc",
            Self::HttpJson => "http+json",
            Self::Grpc => "grpc",
            Self::StreamableHttp => "streamable-http",
            Self::Stdio => "stdio",
        }
    }

    /// The binding [`as_str`](Self::as_str) names `name`.
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::JsonRpc,
            Self::HttpJson,
            Self::Grpc,
            Self::StreamableHttp,
            Self::Stdio,
        ]
        .into_iter()
        .find(|binding| binding.as_str() == name)
    }
}
