//! The agent card: built from the agent's descriptor and the registry, served at
//! `/.well-known/agent-card.json` (and the legacy `/.well-known/agent.json`).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use a2a_runtime_core::about::{AgentAbout, Text};
use a2a_runtime_core::auth::Security;
use a2a_runtime_core::registry::{Registry, SkillEntry};
use a2a_runtime_types::protocol::a2a::{v0_3, v1};

pub use a2a_runtime_types::protocol::a2a::SKILL_SCHEMAS_EXTENSION;

/// Where the bindings are served: the JSON-RPC URL (ending in `/`) and the HTTP+JSON base URL,
/// and for an agent of a server hosting several, the same bindings at the server's shared URL
/// with the agent's id as the tenant.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub jsonrpc: String,
    pub rest: String,
    pub tenant: Option<TenantEndpoints>,
    /// The gRPC address (`host:port`), where the server serves gRPC: a gRPC path names the
    /// service, not the agent, so an agent of a host is reached there by its tenant.
    pub grpc: Option<String>,
}

/// The bindings of an agent at a URL several agents share, reached with its `tenant`.
#[derive(Debug, Clone)]
pub struct TenantEndpoints {
    pub tenant: String,
    pub jsonrpc: String,
    pub rest: String,
}

impl Endpoints {
    /// The endpoints of an agent at `base_url` (ending in `/`) whose HTTP+JSON routes are under
    /// `rest_prefix` (empty, or `/segment…`).
    pub fn new(base_url: &str, rest_prefix: &str) -> Self {
        Self {
            jsonrpc: base_url.to_owned(),
            rest: format!("{}{rest_prefix}", base_url.trim_end_matches('/')),
            tenant: None,
            grpc: None,
        }
    }

    /// The endpoints of agent `id` of a server at `server_url` (ending in `/`): its own URL
    /// `{server_url}{id}/`, and the server's URL with `id` as the tenant (the tenant's
    /// HTTP+JSON routes, `/{id}/…`, are the agent's own).
    pub fn hosted(server_url: &str, id: &str) -> Self {
        Self {
            tenant: Some(TenantEndpoints {
                tenant: id.to_owned(),
                jsonrpc: server_url.to_owned(),
                rest: server_url.trim_end_matches('/').to_owned(),
            }),
            ..Self::new(&format!("{server_url}{id}/"), "")
        }
    }

    /// These endpoints, with gRPC served at the authority (`host:port`) of `server_url`.
    pub fn with_grpc(self, server_url: &str) -> Self {
        let authority = server_url
            .split_once("://")
            .map_or(server_url, |(_, rest)| rest)
            .split('/')
            .next()
            .unwrap_or_default();
        Self {
            grpc: Some(authority.to_owned()),
            ..self
        }
    }
}

/// The card served to every client: the 1.0 card, with the 0.3 card's required fields merged in
/// (a2a-spec.md §2.6) so that 0.3 clients read it too. Its 0.3 `url` is the JSON-RPC endpoint;
/// `additionalInterfaces` lists both bindings.
pub fn hybrid(card: &v1::AgentCard, endpoints: &Endpoints, security: &Security) -> Value {
    let mut value = serde_json::to_value(card).unwrap_or_default();
    if let Value::Object(map) = &mut value {
        let (_, v0_3_security) = super::card_security::requirements(security);
        if !v0_3_security.is_empty() {
            map.insert("security".into(), Value::Array(v0_3_security));
        }
        map.insert("url".into(), json!(endpoints.jsonrpc));
        map.insert("preferredTransport".into(), json!("JSONRPC"));
        map.insert("protocolVersion".into(), json!(v0_3::VERSION));
        map.insert(
            "additionalInterfaces".into(),
            json!([
                { "url": endpoints.jsonrpc, "transport": "JSONRPC" },
                { "url": endpoints.rest, "transport": "HTTP+JSON" },
            ]),
        );
        map.insert(
            "supportsAuthenticatedExtendedCard".into(),
            json!(card.capabilities.extended_agent_card),
        );
        // Each scoped skill's requirements in the 0.3 form too (`{scheme: [scopes]}`).
        if let Some(Value::Array(skills)) = map.get_mut("skills") {
            for skill in skills.iter_mut().filter_map(Value::as_object_mut) {
                let v0_3: Vec<Value> = skill
                    .get("securityRequirements")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|requirement| requirement.get("schemes"))
                    .map(|schemes| {
                        let lists =
                            schemes
                                .as_object()
                                .into_iter()
                                .flatten()
                                .map(|(name, list)| {
                                    (name.clone(), list.get("list").cloned().unwrap_or(json!([])))
                                });
                        Value::Object(lists.collect())
                    })
                    .collect();
                if !v0_3.is_empty() {
                    skill.insert("security".into(), Value::Array(v0_3));
                }
            }
        }
    }
    value
}

/// Which card: the public one, or the extended one authenticated callers may fetch, which also
/// lists the skills marked `extended_only`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardView {
    Public,
    Extended,
}

/// What an agent serves of A2A's optional capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// It delivers push notifications.
    pub push: bool,
    /// It streams (`SendStreamingMessage`, `SubscribeToTask`).
    pub streaming: bool,
}

/// Builds the 1.0 card for an agent served at `endpoints`. An agent with a security scheme
/// offers the extended card (it requires authentication).
pub fn build(
    agent: &AgentAbout,
    registry: &Registry,
    endpoints: &Endpoints,
    security: &Security,
    view: CardView,
    capabilities: Capabilities,
) -> v1::AgentCard {
    let listed: Vec<_> = registry
        .skills()
        .iter()
        .filter(|skill| view == CardView::Extended || !skill.is_extended_only())
        .collect();
    v1::AgentCard {
        name: agent.name().to_owned(),
        description: agent.description().to_owned(),
        // The first is preferred; every interface names its version (an empty one reads as
        // 0.3 to some SDKs).
        supported_interfaces: interfaces(endpoints),
        provider: agent
            .provider()
            .map(|(organization, url)| v1::AgentProvider {
                organization: organization.into(),
                url: url.into(),
            }),
        version: agent.version().to_owned(),
        documentation_url: agent.documentation_url().map(str::to_owned),
        capabilities: v1::AgentCapabilities {
            streaming: capabilities.streaming,
            push_notifications: capabilities.push,
            extended_agent_card: security.is_enabled(),
            extensions: extensions(agent, &listed),
        },
        security_schemes: super::card_security::schemes(security, &registry.scopes()),
        security_requirements: super::card_security::requirements(security).0,
        default_input_modes: texts(agent.default_input_modes()),
        default_output_modes: texts(agent.default_output_modes()),
        skills: listed
            .iter()
            .map(|skill| card_skill(skill, security))
            .collect(),
        icon_url: agent.icon_url().map(str::to_owned),
    }
}

/// A list of texts, owned.
fn texts(items: &[Text]) -> Vec<String> {
    items.iter().map(|text| text.to_string()).collect()
}

/// The interfaces the agent serves, the preferred first; every one names its version (an empty
/// one reads as 0.3 to some SDKs). An agent sharing its server's URL is listed there too, with
/// its tenant (A2A 1.0 only: 0.3 has no tenants).
fn interfaces(endpoints: &Endpoints) -> Vec<v1::AgentInterface> {
    let own = |url: &String, protocol_binding, protocol_version| v1::AgentInterface {
        url: url.clone(),
        protocol_binding,
        protocol_version,
        tenant: None,
    };
    let mut interfaces = vec![
        own(&endpoints.jsonrpc, "JSONRPC", v1::VERSION),
        own(&endpoints.rest, "HTTP+JSON", v1::VERSION),
    ];
    if let Some(shared) = &endpoints.tenant {
        interfaces.extend(
            [(&shared.jsonrpc, "JSONRPC"), (&shared.rest, "HTTP+JSON")].map(
                |(url, protocol_binding)| v1::AgentInterface {
                    tenant: Some(shared.tenant.clone()),
                    ..own(url, protocol_binding, v1::VERSION)
                },
            ),
        );
    }
    if let Some(address) = &endpoints.grpc {
        interfaces.push(v1::AgentInterface {
            tenant: endpoints
                .tenant
                .as_ref()
                .map(|shared| shared.tenant.clone()),
            ..own(address, "GRPC", v1::VERSION)
        });
    }
    interfaces.extend([
        own(&endpoints.jsonrpc, "JSONRPC", "0.3"),
        own(&endpoints.rest, "HTTP+JSON", "0.3"),
    ]);
    interfaces
}

/// The extensions on the card: the skill-schemas extension holding each `listed` skill's
/// schemas, then the agent's own.
fn extensions(agent: &AgentAbout, listed: &[&Arc<SkillEntry>]) -> Vec<v1::AgentExtension> {
    let mut schemas = Map::new();
    for skill in listed {
        let mut entry = Map::new();
        entry.insert("inputSchema".into(), (*skill.input_schema).clone());
        if let Some(output) = &skill.output_schema {
            entry.insert("outputSchema".into(), (**output).clone());
        }
        schemas.insert(skill.id().to_owned(), Value::Object(entry));
    }
    std::iter::once(v1::AgentExtension {
        uri: SKILL_SCHEMAS_EXTENSION,
        description: "JSON Schemas (2020-12) of each skill's input object and structured output. \
                      Send a data part matching a skill's inputSchema and name the skill in message.metadata.skill.",
        required: false,
        params: Some(json!({ "skills": schemas })),
    })
    .chain(agent.extensions().iter().map(|declared| v1::AgentExtension {
        uri: declared.uri,
        description: declared.description,
        required: declared.required,
        // Checked to be a JSON object by `#[agent]`.
        params: declared.params.and_then(|p| serde_json::from_str(p).ok()),
    }))
    .collect()
}

/// One skill as the card lists it.
fn card_skill(skill: &SkillEntry, security: &Security) -> v1::AgentSkill {
    v1::AgentSkill {
        id: skill.id().into(),
        name: skill.name().into(),
        description: skill.description().into(),
        tags: texts(skill.tags()),
        examples: texts(skill.examples()),
        input_modes: skill.input_modes.clone(),
        output_modes: skill.output_modes.clone(),
        security_requirements: super::card_security::skill_requirements(security, skill.scopes()),
    }
}

/// A serialized card with its validator.
#[derive(Debug, Clone)]
pub struct CardBody {
    bytes: axum::body::Bytes,
    etag: HeaderValue,
}

impl CardBody {
    pub fn new(card: &Value) -> Self {
        let bytes = serde_json::to_vec_pretty(card).unwrap_or_default();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        let etag = HeaderValue::from_str(&format!("\"{:016x}\"", hasher.finish()))
            .unwrap_or(HeaderValue::from_static("\"0\""));
        Self {
            bytes: bytes.into(),
            etag,
        }
    }

    /// The card, or `304 Not Modified` when the client's `If-None-Match` matches.
    pub fn respond(&self, request: &HeaderMap) -> Response {
        let cache = [
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            ),
            (header::ETAG, self.etag.clone()),
        ];
        if request
            .get(header::IF_NONE_MATCH)
            .is_some_and(|v| v.as_bytes() == self.etag.as_bytes())
        {
            return (StatusCode::NOT_MODIFIED, cache).into_response();
        }
        (
            cache,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            self.bytes.clone(),
        )
            .into_response()
    }
}
