//! An agent card as a client reads it: one shape for the cards of A2A 1.0 (`supportedInterfaces`),
//! 0.3 (`url`, `preferredTransport`, `additionalInterfaces`) and 0.2.x, and the order in which
//! this client prefers their interfaces.

use serde_json::Value;

/// The wire binding of an interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP.
    JsonRpc,
    /// HTTP+JSON (REST in A2A 0.3).
    HttpJson,
    /// gRPC.
    Grpc,
    /// Any other binding, by the name or URI the card gives.
    Other(String),
}

impl Binding {
    fn parse(name: &str) -> Self {
        match name.to_ascii_uppercase().as_str() {
            "JSONRPC" | "JSON-RPC" => Self::JsonRpc,
            "HTTP+JSON" | "REST" | "HTTP_JSON" => Self::HttpJson,
            "GRPC" => Self::Grpc,
            _ => Self::Other(name.to_owned()),
        }
    }
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::JsonRpc => "JSONRPC",
            Self::HttpJson => "HTTP+JSON",
            Self::Grpc => "GRPC",
            Self::Other(name) => name,
        })
    }
}

/// One way to reach the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Where requests go.
    pub url: String,
    /// The wire binding.
    pub binding: Binding,
    /// The A2A version spoken there, as the card states it (`1.0`, `0.3.0`, `0.2.5`).
    pub protocol_version: String,
    /// The tenant every request through this interface names (1.0), if the card sets one.
    pub tenant: Option<String>,
}

impl Interface {
    /// Whether this interface speaks A2A 1.x.
    pub fn is_v1(&self) -> bool {
        major_minor(&self.protocol_version).0 == 1
    }
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.binding, self.protocol_version, self.url)
    }
}

fn major_minor(version: &str) -> (u64, u64) {
    let mut numbers = version.split('.').map(|n| n.trim().parse().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0))
}

/// A skill the card lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The skill's id, which a message may name.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example requests.
    pub examples: Vec<String>,
}

/// What the agent says it supports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Streaming sends and subscriptions (SSE).
    pub streaming: bool,
    /// Push notifications to webhooks.
    pub push_notifications: bool,
    /// An extended card for authenticated clients.
    pub extended_agent_card: bool,
}

/// An agent card, whichever A2A version served it.
#[derive(Debug, Clone)]
pub struct AgentCard {
    /// The agent's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The agent's own version.
    pub version: String,
    /// Its interfaces, in the card's order of preference.
    pub interfaces: Vec<Interface>,
    /// Its skills.
    pub skills: Vec<Skill>,
    /// What it supports.
    pub capabilities: Capabilities,
    /// The names of its security schemes.
    pub security_schemes: Vec<String>,
    /// The card as served.
    pub raw: Value,
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The strings of the array `key` of `value` (none when it is missing or not an array).
pub(crate) fn texts(value: &Value, key: &str) -> Vec<String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn flag(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool).unwrap_or(false)
}

impl AgentCard {
    /// Reads a card of any A2A version. Only what a client cannot do without is required: a
    /// JSON object with a name and at least one interface.
    pub fn from_json(raw: Value) -> Result<Self, String> {
        if !raw.is_object() {
            return Err("the card is not a JSON object".into());
        }
        let name = text(&raw, "name");
        if name.is_empty() {
            return Err("the card has no `name`".into());
        }
        let interfaces = interfaces(&raw);
        if interfaces.is_empty() {
            return Err(
                "the card names no interface (neither `supportedInterfaces` nor `url`)".into(),
            );
        }
        let skills = raw
            .get("skills")
            .and_then(Value::as_array)
            .map(|skills| {
                skills
                    .iter()
                    .map(|skill| Skill {
                        id: text(skill, "id"),
                        name: text(skill, "name"),
                        description: text(skill, "description"),
                        tags: texts(skill, "tags"),
                        examples: texts(skill, "examples"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let capabilities = raw.get("capabilities").cloned().unwrap_or(Value::Null);
        let capabilities = Capabilities {
            streaming: flag(&capabilities, "streaming"),
            push_notifications: flag(&capabilities, "pushNotifications"),
            // 1.0 moved it into the capabilities; 0.3 had it at the top level.
            extended_agent_card: flag(&capabilities, "extendedAgentCard")
                || flag(&raw, "supportsAuthenticatedExtendedCard"),
        };
        let security_schemes = raw
            .get("securitySchemes")
            .and_then(Value::as_object)
            .map(|schemes| schemes.keys().cloned().collect())
            .unwrap_or_default();
        Ok(Self {
            name,
            description: text(&raw, "description"),
            version: text(&raw, "version"),
            interfaces,
            skills,
            capabilities,
            security_schemes,
            raw,
        })
    }

    /// Checks the card against the A2A version it is written for (see
    /// [`validate_card`](super::validate_card)).
    pub fn validate(&self) -> Vec<super::Finding> {
        super::validate_card(&self.raw)
    }

    /// The interface this client uses: the card's first if it is gRPC (the agent prefers it)
    /// and this client speaks it; else the first of the kinds it speaks that the card offers
    /// (1.0 JSON-RPC, 1.0 HTTP+JSON, 0.3 JSON-RPC, 0.3 HTTP+JSON, 1.0 gRPC), in the card's
    /// order within a kind.
    pub fn preferred_interface(&self) -> Option<&Interface> {
        use super::dialect::Dialect;
        let first = self.interfaces.iter().find(|i| Dialect::of(i).is_some());
        if let Some(first) = first.filter(|i| i.binding == Binding::Grpc) {
            return Some(first);
        }
        let speaks = [
            (Binding::JsonRpc, Dialect::V1),
            (Binding::HttpJson, Dialect::V1),
            (Binding::JsonRpc, Dialect::V0_3),
            (Binding::HttpJson, Dialect::V0_3Proto),
            (Binding::Grpc, Dialect::V1),
        ];
        speaks.iter().find_map(|(binding, dialect)| {
            self.interfaces
                .iter()
                .find(|i| i.binding == *binding && Dialect::of(i) == Some(*dialect))
        })
    }

    /// The first interface of `binding` in a version starting with `version` (`"1"`, `"0.3"`;
    /// `""`: any) that this client speaks.
    pub fn interface(&self, binding: &Binding, version: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| {
            i.binding == *binding
                && i.protocol_version.trim().starts_with(version)
                && super::dialect::Dialect::of(i).is_some()
        })
    }
}

/// A card's interfaces: 1.0's list first, then those of the 0.3 (or 0.2) fields that 1.0 does
/// not list (a card served to both generations has both).
fn interfaces(raw: &Value) -> Vec<Interface> {
    let mut found: Vec<Interface> = raw
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|i| {
                    let url = text(i, "url");
                    (!url.is_empty()).then(|| Interface {
                        url,
                        binding: Binding::parse(&text(i, "protocolBinding")),
                        protocol_version: text(i, "protocolVersion"),
                        tenant: Some(text(i, "tenant")).filter(|t| !t.is_empty()),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let legacy_version = match text(raw, "protocolVersion") {
        version if version.is_empty() => "0.3.0".to_owned(),
        version => version,
    };
    let url = text(raw, "url");
    let mut legacy = Vec::new();
    if !url.is_empty() {
        let transport = match text(raw, "preferredTransport") {
            t if t.is_empty() => "JSONRPC".to_owned(),
            t => t,
        };
        legacy.push(Interface {
            url,
            binding: Binding::parse(&transport),
            protocol_version: legacy_version.clone(),
            tenant: None,
        });
    }
    for extra in raw
        .get("additionalInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let url = text(extra, "url");
        if !url.is_empty() {
            legacy.push(Interface {
                url,
                binding: Binding::parse(&text(extra, "transport")),
                protocol_version: legacy_version.clone(),
                tenant: None,
            });
        }
    }
    // A card served to both generations names its 0.3 interfaces twice (`0.3` and `0.3.0`).
    let same = |a: &Interface, b: &Interface| {
        a.url.trim_end_matches('/') == b.url.trim_end_matches('/')
            && a.binding == b.binding
            && major_minor(&a.protocol_version) == major_minor(&b.protocol_version)
    };
    for interface in legacy {
        if !found.iter().any(|known| same(known, &interface)) {
            found.push(interface);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_v1_card_lists_its_interfaces_in_order() {
        let card = AgentCard::from_json(json!({
            "name": "A",
            "supportedInterfaces": [
                {"url": "http://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {"streaming": true, "extendedAgentCard": true},
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]
        }))
        .unwrap();
        assert_eq!(card.interfaces.len(), 2);
        assert_eq!(card.preferred_interface().unwrap().url, "http://a/");
        assert!(card.capabilities.streaming && card.capabilities.extended_agent_card);
        assert_eq!(card.skills[0].tags, ["t"]);
    }

    #[test]
    fn a_v0_2_card_is_read_from_its_url() {
        let card = AgentCard::from_json(json!({
            "name": "Old",
            "url": "http://old/",
            "protocolVersion": "0.2.5",
            "additionalInterfaces": [{"url": "http://old/rest", "transport": "HTTP+JSON"}],
            "supportsAuthenticatedExtendedCard": true
        }))
        .unwrap();
        assert_eq!(
            card.interfaces[0],
            Interface {
                url: "http://old/".into(),
                binding: Binding::JsonRpc,
                protocol_version: "0.2.5".into(),
                tenant: None,
            }
        );
        assert_eq!(card.interfaces[1].binding, Binding::HttpJson);
        assert!(card.capabilities.extended_agent_card);
        assert_eq!(card.preferred_interface(), Some(&card.interfaces[0]));
    }

    #[test]
    fn a_card_without_an_interface_is_refused() {
        let error = AgentCard::from_json(json!({"name": "A"})).unwrap_err();
        assert!(error.contains("supportedInterfaces"), "{error}");
    }
}
