//! The A2A v1.0 agent card, as a server publishes it.

use serde::Serialize;
use serde_json::Value;

/// `AgentCard`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    pub name: String,
    pub description: String,
    pub supported_interfaces: Vec<AgentInterface>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    pub capabilities: AgentCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<Value>,
    pub default_input_modes: Vec<String>,
    pub default_output_modes: Vec<String>,
    pub skills: Vec<AgentSkill>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

/// `AgentInterface`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    pub url: String,
    pub protocol_binding: &'static str,
    pub protocol_version: &'static str,
    /// The tenant clients copy into every request through this interface (several agents
    /// behind one URL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

/// `AgentProvider`.
#[derive(Serialize)]
pub struct AgentProvider {
    pub organization: String,
    pub url: String,
}

/// `AgentCapabilities`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    pub streaming: bool,
    pub push_notifications: bool,
    pub extended_agent_card: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<AgentExtension>,
}

/// `AgentExtension`.
#[derive(Serialize)]
pub struct AgentExtension {
    pub uri: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'static str,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// `AgentSkill`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub input_modes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output_modes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<Value>,
}
