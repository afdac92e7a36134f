//! The agent card's messages of A2A 1.0's `a2a.proto` (`AgentCard` and what it holds), with the
//! proto's field numbers: what `GetExtendedAgentCard` answers over gRPC. Each also reads the
//! card's ProtoJSON ([`AgentCard::from_json`]), which the server already builds for its other
//! bindings, so one card is published on all of them.

use std::collections::HashMap;

use prost_types::Struct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

impl AgentCard {
    /// The card whose ProtoJSON is `json` (a card as the JSON bindings publish it); fields this
    /// proto does not have are left out.
    pub fn from_json(json: serde_json::Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(json)
    }

    /// The card's ProtoJSON: what a client of a JSON binding reads. Fields left unset or at
    /// their default (an empty string or list) are omitted, as ProtoJSON omits them; an empty
    /// message stays, since it can mean something (`mtlsSecurityScheme: {}`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        omit_empty(&mut json);
        json
    }
}

/// `value` without its members that are null or hold an empty string or list, at every depth.
fn omit_empty(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(members) => {
            members.values_mut().for_each(omit_empty);
            members.retain(|_, member| match member {
                Value::String(s) => !s.is_empty(),
                Value::Array(items) => !items.is_empty(),
                Value::Null => false,
                _ => true,
            });
        }
        Value::Array(items) => items.iter_mut().for_each(omit_empty),
        _ => {}
    }
}

/// A ProtoJSON object as a `google.protobuf.Struct`.
fn json_struct<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Struct>, D::Error> {
    let map = Option::<serde_json::Map<String, serde_json::Value>>::deserialize(deserializer)?;
    Ok(map.as_ref().map(super::json::to_struct))
}

/// A `google.protobuf.Struct` as its ProtoJSON object (`null` when it cannot be one).
fn struct_json<S: Serializer>(value: &Option<Struct>, serializer: S) -> Result<S::Ok, S::Error> {
    let map = value
        .clone()
        .map(super::json::from_struct)
        .transpose()
        .map_err(serde::ser::Error::custom)?;
    map.serialize(serializer)
}

/// `AgentCard`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentCard {
    /// The agent's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// What it does.
    #[prost(string, tag = "2")]
    pub description: String,
    /// Where and how it is reached, preferred first.
    #[prost(message, repeated, tag = "3")]
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who provides it.
    #[prost(message, optional, tag = "4")]
    pub provider: Option<AgentProvider>,
    /// Its version.
    #[prost(string, tag = "5")]
    pub version: String,
    /// Its documentation.
    #[prost(string, optional, tag = "6")]
    pub documentation_url: Option<String>,
    /// What it supports.
    #[prost(message, optional, tag = "7")]
    pub capabilities: Option<AgentCapabilities>,
    /// Its security schemes, by name.
    #[prost(map = "string, message", tag = "8")]
    pub security_schemes: HashMap<String, SecurityScheme>,
    /// The schemes a caller must satisfy (any one requirement).
    #[prost(message, repeated, tag = "9")]
    pub security_requirements: Vec<SecurityRequirement>,
    /// The input media types of its skills, unless a skill says otherwise.
    #[prost(string, repeated, tag = "10")]
    pub default_input_modes: Vec<String>,
    /// The output media types of its skills, unless a skill says otherwise.
    #[prost(string, repeated, tag = "11")]
    pub default_output_modes: Vec<String>,
    /// Its skills.
    #[prost(message, repeated, tag = "12")]
    pub skills: Vec<AgentSkill>,
    /// Signatures over the card.
    #[prost(message, repeated, tag = "13")]
    pub signatures: Vec<AgentCardSignature>,
    /// Its icon.
    #[prost(string, optional, tag = "14")]
    pub icon_url: Option<String>,
}

/// `AgentInterface`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentInterface {
    /// The URL (HTTP bindings) or `host:port` (gRPC).
    #[prost(string, tag = "1")]
    pub url: String,
    /// `JSONRPC`, `HTTP+JSON` or `GRPC`.
    #[prost(string, tag = "2")]
    pub protocol_binding: String,
    /// The tenant requests to it name.
    #[prost(string, tag = "3")]
    pub tenant: String,
    /// The A2A version (`1.0`).
    #[prost(string, tag = "4")]
    pub protocol_version: String,
}

/// `AgentProvider`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentProvider {
    /// Its website.
    #[prost(string, tag = "1")]
    pub url: String,
    /// Its name.
    #[prost(string, tag = "2")]
    pub organization: String,
}

/// `AgentCapabilities`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Whether it streams.
    #[prost(bool, optional, tag = "1")]
    pub streaming: Option<bool>,
    /// Whether it sends push notifications.
    #[prost(bool, optional, tag = "2")]
    pub push_notifications: Option<bool>,
    /// The extensions it supports.
    #[prost(message, repeated, tag = "3")]
    pub extensions: Vec<AgentExtension>,
    /// Whether it has an extended card for authenticated callers.
    #[prost(bool, optional, tag = "4")]
    pub extended_agent_card: Option<bool>,
}

/// `AgentExtension`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentExtension {
    /// Its URI.
    #[prost(string, tag = "1")]
    pub uri: String,
    /// What it does.
    #[prost(string, tag = "2")]
    pub description: String,
    /// Whether a client must use it.
    #[prost(bool, tag = "3")]
    pub required: bool,
    /// Its parameters.
    #[prost(message, optional, tag = "4")]
    #[serde(deserialize_with = "json_struct", serialize_with = "struct_json")]
    pub params: Option<Struct>,
}

/// `AgentSkill`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentSkill {
    /// Its id.
    #[prost(string, tag = "1")]
    pub id: String,
    /// Its name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// What it does.
    #[prost(string, tag = "3")]
    pub description: String,
    /// Keywords.
    #[prost(string, repeated, tag = "4")]
    pub tags: Vec<String>,
    /// Example requests.
    #[prost(string, repeated, tag = "5")]
    pub examples: Vec<String>,
    /// The input media types it accepts.
    #[prost(string, repeated, tag = "6")]
    pub input_modes: Vec<String>,
    /// The output media types it produces.
    #[prost(string, repeated, tag = "7")]
    pub output_modes: Vec<String>,
    /// The schemes a caller of this skill must satisfy.
    #[prost(message, repeated, tag = "8")]
    pub security_requirements: Vec<SecurityRequirement>,
}

/// `AgentCardSignature`: a JWS over the card.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentCardSignature {
    /// The protected header, base64url.
    #[prost(string, tag = "1")]
    pub protected: String,
    /// The signature, base64url.
    #[prost(string, tag = "2")]
    pub signature: String,
    /// The unprotected header.
    #[prost(message, optional, tag = "3")]
    #[serde(deserialize_with = "json_struct", serialize_with = "struct_json")]
    pub header: Option<Struct>,
}

/// `StringList`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StringList {
    /// The strings.
    #[prost(string, repeated, tag = "1")]
    pub list: Vec<String>,
}

/// `SecurityRequirement`: scheme names and the scopes each needs.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SecurityRequirement {
    /// Scopes by scheme name.
    #[prost(map = "string, message", tag = "1")]
    pub schemes: HashMap<String, StringList>,
}

/// `SecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SecurityScheme {
    /// The scheme.
    #[prost(oneof = "Scheme", tags = "1, 2, 3, 4, 5")]
    #[serde(flatten)]
    pub scheme: Option<Scheme>,
}

/// `SecurityScheme.scheme`.
#[derive(Clone, PartialEq, prost::Oneof, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Scheme {
    /// An API key.
    #[prost(message, tag = "1")]
    #[serde(rename = "apiKeySecurityScheme")]
    ApiKey(ApiKeySecurityScheme),
    /// HTTP authentication (`Bearer`, `Basic`).
    #[prost(message, tag = "2")]
    #[serde(rename = "httpAuthSecurityScheme")]
    HttpAuth(HttpAuthSecurityScheme),
    /// OAuth 2.0.
    #[prost(message, tag = "3")]
    #[serde(rename = "oauth2SecurityScheme")]
    Oauth2(OAuth2SecurityScheme),
    /// OpenID Connect.
    #[prost(message, tag = "4")]
    #[serde(rename = "openIdConnectSecurityScheme")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// Mutual TLS.
    #[prost(message, tag = "5")]
    #[serde(rename = "mtlsSecurityScheme")]
    MutualTls(MutualTlsSecurityScheme),
}

/// `APIKeySecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ApiKeySecurityScheme {
    /// What it is.
    #[prost(string, tag = "1")]
    pub description: String,
    /// `query`, `header` or `cookie`.
    #[prost(string, tag = "2")]
    pub location: String,
    /// The parameter's name.
    #[prost(string, tag = "3")]
    pub name: String,
}

/// `HTTPAuthSecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// What it is.
    #[prost(string, tag = "1")]
    pub description: String,
    /// The scheme (`Bearer`).
    #[prost(string, tag = "2")]
    pub scheme: String,
    /// The bearer token's format (`JWT`).
    #[prost(string, tag = "3")]
    pub bearer_format: String,
}

/// `OAuth2SecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// What it is.
    #[prost(string, tag = "1")]
    pub description: String,
    /// Its flow.
    #[prost(message, optional, tag = "2")]
    pub flows: Option<OAuthFlows>,
    /// Its authorization server's metadata (RFC 8414).
    #[prost(string, tag = "3")]
    pub oauth2_metadata_url: String,
}

/// `OpenIdConnectSecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// What it is.
    #[prost(string, tag = "1")]
    pub description: String,
    /// The provider's discovery document.
    #[prost(string, tag = "2")]
    pub open_id_connect_url: String,
}

/// `MutualTlsSecurityScheme`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MutualTlsSecurityScheme {
    /// What it is.
    #[prost(string, tag = "1")]
    pub description: String,
}

/// `OAuthFlows`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OAuthFlows {
    /// The flow.
    #[prost(oneof = "OAuthFlow", tags = "1, 2, 5")]
    #[serde(flatten)]
    pub flow: Option<OAuthFlow>,
}

/// `OAuthFlows.flow` (the deprecated implicit and password flows are never offered).
#[derive(Clone, PartialEq, prost::Oneof, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OAuthFlow {
    /// The authorization code flow.
    #[prost(message, tag = "1")]
    AuthorizationCode(AuthorizationCodeOAuthFlow),
    /// The client credentials flow.
    #[prost(message, tag = "2")]
    ClientCredentials(ClientCredentialsOAuthFlow),
    /// The device code flow.
    #[prost(message, tag = "5")]
    DeviceCode(DeviceCodeOAuthFlow),
}

/// `AuthorizationCodeOAuthFlow`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AuthorizationCodeOAuthFlow {
    /// Where the user authorizes.
    #[prost(string, tag = "1")]
    pub authorization_url: String,
    /// Where codes are exchanged.
    #[prost(string, tag = "2")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[prost(string, tag = "3")]
    pub refresh_url: String,
    /// The scopes, with what each allows.
    #[prost(map = "string, string", tag = "4")]
    pub scopes: HashMap<String, String>,
    /// Whether PKCE is required.
    #[prost(bool, tag = "5")]
    pub pkce_required: bool,
}

/// `ClientCredentialsOAuthFlow`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ClientCredentialsOAuthFlow {
    /// Where tokens are issued.
    #[prost(string, tag = "1")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[prost(string, tag = "2")]
    pub refresh_url: String,
    /// The scopes, with what each allows.
    #[prost(map = "string, string", tag = "3")]
    pub scopes: HashMap<String, String>,
}

/// `DeviceCodeOAuthFlow`.
#[derive(Clone, PartialEq, prost::Message, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceCodeOAuthFlow {
    /// Where devices are authorized.
    #[prost(string, tag = "1")]
    pub device_authorization_url: String,
    /// Where tokens are issued.
    #[prost(string, tag = "2")]
    pub token_url: String,
    /// Where tokens are refreshed.
    #[prost(string, tag = "3")]
    pub refresh_url: String,
    /// The scopes, with what each allows.
    #[prost(map = "string, string", tag = "4")]
    pub scopes: HashMap<String, String>,
}
