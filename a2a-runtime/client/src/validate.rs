//! Checking an agent card against the A2A version it claims: required fields, interfaces,
//! skills and security schemes, as a list of findings rather than the first error.

use serde_json::{Map, Value};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Clients of the card's version may not be able to use the agent.
    Error,
    /// Allowed, but likely a mistake or against a SHOULD of the specification.
    Warning,
}

/// One problem with a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The field's JSON path, such as `skills[2].tags`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{severity}: {}: {}", self.field, self.message)
    }
}

/// Which A2A generation a card is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generation {
    /// 1.0: `supportedInterfaces`.
    V1,
    /// 0.2.x and 0.3: `url`, `preferredTransport`, `additionalInterfaces`.
    V0_3,
    /// The early draft (0.1): `url` and `authentication`.
    V0_1,
}

/// The security scheme kinds of 1.0, each a wrapper key.
const V1_SCHEMES: [&str; 5] = [
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

/// The bindings 1.0 names (others must be URIs).
const BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/// Checks `card`; no findings means every check passed.
pub fn validate_card(card: &Value) -> Vec<Finding> {
    let mut check = Checker::default();
    let Some(root) = card.as_object() else {
        check.error("", "the card is not a JSON object");
        return check.findings;
    };
    let generation = if root.contains_key("supportedInterfaces") {
        Generation::V1
    } else if root.contains_key("authentication")
        || text(root, "protocolVersion").is_some_and(|v| v.starts_with("0.1"))
    {
        Generation::V0_1
    } else {
        Generation::V0_3
    };
    check.required_text(root, "", "name");
    check.required_text(root, "", "version");
    if generation != Generation::V0_1 {
        check.required_text(root, "", "description");
        check.string_list(root, "", "defaultInputModes", true);
        check.string_list(root, "", "defaultOutputModes", true);
    }
    match root.get("capabilities") {
        Some(Value::Object(capabilities)) => {
            if generation == Generation::V1 && capabilities.contains_key("stateTransitionHistory") {
                check.warning(
                    "capabilities.stateTransitionHistory",
                    "was removed in A2A 1.0; clients ignore it",
                );
            }
        }
        Some(_) => check.error("capabilities", "must be an object"),
        None => check.error("capabilities", "is required"),
    }
    let schemes = check.schemes(root, generation);
    check.skills(root, generation, &schemes);
    match generation {
        Generation::V1 => {
            check.v1_interfaces(root);
            check.v1_requirements(
                root.get("securityRequirements"),
                "securityRequirements",
                &schemes,
            );
            let extended = root
                .get("capabilities")
                .and_then(|c| c.get("extendedAgentCard"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if extended && schemes.is_empty() {
                check.warning(
                    "capabilities.extendedAgentCard",
                    "an extended card must require authentication, and the card declares no \
                     security scheme",
                );
            }
        }
        Generation::V0_3 | Generation::V0_1 => {
            check.legacy_interfaces(root, generation);
            check.legacy_requirements(root.get("security"), "security", &schemes);
        }
    }
    check.findings
}

fn text<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

#[derive(Default)]
struct Checker {
    findings: Vec<Finding>,
}

impl Checker {
    fn error(&mut self, field: &str, message: &str) {
        self.push(Severity::Error, field, message);
    }

    fn warning(&mut self, field: &str, message: &str) {
        self.push(Severity::Warning, field, message);
    }

    fn push(&mut self, severity: Severity, field: &str, message: &str) {
        self.findings.push(Finding {
            severity,
            field: field.to_owned(),
            message: message.to_owned(),
        });
    }

    fn required_text(&mut self, object: &Map<String, Value>, parent: &str, key: &str) {
        match object.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(Value::String(_)) => self.error(&path(parent, key), "must not be empty"),
            Some(_) => self.error(&path(parent, key), "must be a string"),
            None => self.error(&path(parent, key), "is required"),
        }
    }

    fn string_list(
        &mut self,
        object: &Map<String, Value>,
        parent: &str,
        key: &str,
        required: bool,
    ) {
        match object.get(key) {
            Some(Value::Array(items)) if !items.iter().all(Value::is_string) => {
                self.error(&path(parent, key), "must hold only strings");
            }
            Some(Value::Array(_)) => {}
            Some(_) => self.error(&path(parent, key), "must be a list of strings"),
            None if required => self.error(&path(parent, key), "is required"),
            None => {}
        }
    }

    /// The declared scheme names, each checked for its generation's form.
    fn schemes(&mut self, root: &Map<String, Value>, generation: Generation) -> Vec<String> {
        let Some(schemes) = root.get("securitySchemes") else {
            return Vec::new();
        };
        let Some(schemes) = schemes.as_object() else {
            self.error("securitySchemes", "must be an object of named schemes");
            return Vec::new();
        };
        for (name, scheme) in schemes {
            let field = format!("securitySchemes.{name}");
            let Some(scheme) = scheme.as_object() else {
                self.error(&field, "must be an object");
                continue;
            };
            let kinds = V1_SCHEMES
                .iter()
                .filter(|k| scheme.contains_key(**k))
                .count();
            let legacy = scheme.contains_key("type");
            match generation {
                Generation::V1 if kinds == 1 => {}
                Generation::V1 if kinds > 1 => {
                    self.error(&field, "must hold exactly one kind of scheme");
                }
                Generation::V1 if legacy => self.warning(
                    &field,
                    "is in the 0.3 form (`type`) only; A2A 1.0 clients read a wrapper such as \
                     `httpAuthSecurityScheme`",
                ),
                Generation::V1 => self.error(
                    &field,
                    &format!(
                        "names no known kind of scheme (one of {})",
                        V1_SCHEMES.join(", ")
                    ),
                ),
                _ if legacy => {}
                _ => self.error(&path(&field, "type"), "is required"),
            }
        }
        schemes.keys().cloned().collect()
    }

    fn skills(&mut self, root: &Map<String, Value>, generation: Generation, schemes: &[String]) {
        let skills = match root.get("skills") {
            Some(Value::Array(skills)) => skills,
            Some(_) => return self.error("skills", "must be a list"),
            None => return self.error("skills", "is required"),
        };
        let mut seen: Vec<&str> = Vec::new();
        for (i, skill) in skills.iter().enumerate() {
            let field = format!("skills[{i}]");
            let Some(skill) = skill.as_object() else {
                self.error(&field, "must be an object");
                continue;
            };
            self.required_text(skill, &field, "id");
            self.required_text(skill, &field, "name");
            if generation != Generation::V0_1 {
                self.required_text(skill, &field, "description");
                self.string_list(skill, &field, "tags", true);
            }
            self.string_list(skill, &field, "examples", false);
            if let Some(id) = text(skill, "id") {
                if seen.contains(&id) {
                    self.error(
                        &path(&field, "id"),
                        &format!("`{id}` is used by another skill"),
                    );
                }
                seen.push(id);
            }
            match generation {
                Generation::V1 => self.v1_requirements(
                    skill.get("securityRequirements"),
                    &path(&field, "securityRequirements"),
                    schemes,
                ),
                _ => self.legacy_requirements(
                    skill.get("security"),
                    &path(&field, "security"),
                    schemes,
                ),
            }
        }
    }

    fn v1_interfaces(&mut self, root: &Map<String, Value>) {
        let interfaces = match root.get("supportedInterfaces") {
            Some(Value::Array(list)) if !list.is_empty() => list,
            Some(Value::Array(_)) => {
                return self.error("supportedInterfaces", "must name at least one interface");
            }
            _ => return self.error("supportedInterfaces", "must be a list of interfaces"),
        };
        for (i, interface) in interfaces.iter().enumerate() {
            let field = format!("supportedInterfaces[{i}]");
            let Some(interface) = interface.as_object() else {
                self.error(&field, "must be an object");
                continue;
            };
            self.required_text(interface, &field, "protocolBinding");
            self.required_text(interface, &field, "protocolVersion");
            let binding = text(interface, "protocolBinding").unwrap_or_default();
            if !binding.is_empty() && !BINDINGS.contains(&binding) && !binding.contains(':') {
                self.warning(
                    &path(&field, "protocolBinding"),
                    &format!("`{binding}` is neither JSONRPC, HTTP+JSON, GRPC nor a URI"),
                );
            }
            if binding == "GRPC" {
                self.grpc_address(interface, &field);
            } else {
                self.http_url(interface, &field, "url");
            }
            // Opaque, copied into every request: an empty one would name no tenant.
            if interface.contains_key("tenant") {
                self.required_text(interface, &field, "tenant");
            }
        }
    }

    fn legacy_interfaces(&mut self, root: &Map<String, Value>, generation: Generation) {
        self.http_url(root, "", "url");
        if generation == Generation::V0_3 && !root.contains_key("protocolVersion") {
            self.warning("protocolVersion", "is missing; clients assume 0.3.0");
        }
        if let Some(transport) = text(root, "preferredTransport")
            && !BINDINGS.contains(&transport)
        {
            self.warning(
                "preferredTransport",
                &format!("`{transport}` is neither JSONRPC, HTTP+JSON nor GRPC"),
            );
        }
        let Some(extra) = root.get("additionalInterfaces") else {
            return;
        };
        let Some(extra) = extra.as_array() else {
            return self.error("additionalInterfaces", "must be a list");
        };
        for (i, interface) in extra.iter().enumerate() {
            let field = format!("additionalInterfaces[{i}]");
            match interface.as_object() {
                Some(interface) => {
                    self.http_url(interface, &field, "url");
                    self.required_text(interface, &field, "transport");
                }
                None => self.error(&field, "must be an object"),
            }
        }
    }

    /// A gRPC interface's `url`: an address, `host:port` (A2A 1.0), which gRPC clients dial; a
    /// URL is not one.
    fn grpc_address(&mut self, interface: &Map<String, Value>, parent: &str) {
        let field = path(parent, "url");
        let Some(raw) = text(interface, "url") else {
            return self.error(&field, "is required");
        };
        let port = raw
            .rsplit_once(':')
            .map(|(host, port)| (host, port.parse::<u16>()));
        match port {
            _ if raw.contains("://") => {
                self.warning(
                    &field,
                    "is a URL; a gRPC interface's is an address, host:port",
                );
            }
            Some((host, Ok(port))) if !host.is_empty() && port != 0 => {}
            _ => self.warning(&field, "should be an address, host:port"),
        }
    }

    /// An absolute http(s) URL; plain http only on loopback.
    fn http_url(&mut self, object: &Map<String, Value>, parent: &str, key: &str) {
        let field = path(parent, key);
        let Some(raw) = text(object, key) else {
            return self.error(&field, "is required");
        };
        match url::Url::parse(raw) {
            Ok(url) if url.scheme() == "https" => {}
            Ok(url) if url.scheme() == "http" => {
                let local = matches!(
                    url.host_str(),
                    Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
                );
                if !local {
                    self.warning(
                        &field,
                        "should be https: requests would travel in the clear",
                    );
                }
            }
            Ok(url) => self.error(&field, &format!("must be http(s), not `{}`", url.scheme())),
            Err(e) => self.error(&field, &format!("is not an absolute URL: {e}")),
        }
    }

    /// 1.0's `[{"schemes": {name: {"list": [scopes]}}}]`.
    fn v1_requirements(&mut self, requirements: Option<&Value>, field: &str, schemes: &[String]) {
        let Some(requirements) = requirements else {
            return;
        };
        let Some(requirements) = requirements.as_array() else {
            return self.error(field, "must be a list");
        };
        for (i, requirement) in requirements.iter().enumerate() {
            let at = format!("{field}[{i}].schemes");
            match requirement.get("schemes").and_then(Value::as_object) {
                Some(named) => self.declared(named.keys(), &at, schemes),
                None => self.error(&at, "must be an object of scheme names"),
            }
        }
    }

    /// 0.3's OpenAPI form `[{name: [scopes]}]`.
    fn legacy_requirements(
        &mut self,
        requirements: Option<&Value>,
        field: &str,
        schemes: &[String],
    ) {
        let Some(requirements) = requirements else {
            return;
        };
        let Some(requirements) = requirements.as_array() else {
            return self.error(field, "must be a list");
        };
        for (i, requirement) in requirements.iter().enumerate() {
            let at = format!("{field}[{i}]");
            match requirement.as_object() {
                Some(named) => self.declared(named.keys(), &at, schemes),
                None => self.error(&at, "must be an object of scheme names"),
            }
        }
    }

    fn declared<'a>(
        &mut self,
        names: impl Iterator<Item = &'a String>,
        field: &str,
        schemes: &[String],
    ) {
        for name in names {
            if !schemes.contains(name) {
                self.error(
                    &path(field, name),
                    &format!("names scheme `{name}`, which `securitySchemes` does not declare"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.field.as_str()).collect()
    }

    fn valid_v1() -> Value {
        json!({
            "name": "A", "description": "d", "version": "1",
            "supportedInterfaces": [
                {"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X"}}},
            "securityRequirements": [{"schemes": {"key": {"list": []}}}],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": []}]
        })
    }

    #[test]
    fn a_complete_v1_card_has_no_findings() {
        assert_eq!(validate_card(&valid_v1()), []);
    }

    #[test]
    fn a_grpc_interface_names_an_address_not_a_url() {
        let mut card = valid_v1();
        let grpc =
            json!({"url": "a.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"});
        card["supportedInterfaces"]
            .as_array_mut()
            .unwrap()
            .push(grpc);
        assert_eq!(validate_card(&card), []);
        for url in ["https://a.example/", "a.example", "a.example:http"] {
            card["supportedInterfaces"][1]["url"] = json!(url);
            let findings = validate_card(&card);
            assert_eq!(fields(&findings), ["supportedInterfaces[1].url"], "{url}");
            assert_eq!(findings[0].severity, Severity::Warning, "{url}");
        }
    }

    #[test]
    fn an_interface_tenant_is_a_non_empty_string() {
        let mut card = valid_v1();
        card["supportedInterfaces"][0]["tenant"] = json!("booking");
        assert_eq!(validate_card(&card), []);
        card["supportedInterfaces"][0]["tenant"] = json!("");
        assert_eq!(
            fields(&validate_card(&card)),
            ["supportedInterfaces[0].tenant"]
        );
        card["supportedInterfaces"][0]["tenant"] = json!(7);
        assert_eq!(
            fields(&validate_card(&card)),
            ["supportedInterfaces[0].tenant"]
        );
    }

    #[test]
    fn every_problem_of_a_v1_card_is_listed() {
        let mut card = valid_v1();
        card["skills"] = json!([
            {"id": "s", "name": "S", "description": "d"},
            {"id": "s", "name": "T", "description": "d", "tags": []}
        ]);
        card["supportedInterfaces"][0]["url"] = json!("http://a.example/");
        card["securityRequirements"] = json!([{"schemes": {"oauth": {"list": []}}}]);
        card["capabilities"] = json!({"stateTransitionHistory": true});
        let findings = validate_card(&card);
        assert_eq!(
            fields(&findings),
            [
                "capabilities.stateTransitionHistory",
                "skills[0].tags",
                "skills[1].id",
                "supportedInterfaces[0].url",
                "securityRequirements[0].schemes.oauth",
            ],
            "{findings:?}"
        );
        assert_eq!(findings[0].severity, Severity::Warning);
        assert_eq!(findings[3].severity, Severity::Warning);
        assert_eq!(findings[4].severity, Severity::Error);
    }

    #[test]
    fn a_v0_2_card_is_checked_as_one() {
        let card = json!({
            "name": "Old", "description": "d", "version": "1", "url": "ftp://old/",
            "protocolVersion": "0.2.5", "capabilities": {}, "defaultInputModes": [],
            "defaultOutputModes": [], "skills": [],
            "security": [{"bearer": []}]
        });
        let findings = validate_card(&card);
        assert_eq!(
            fields(&findings),
            ["url", "security[0].bearer"],
            "{findings:?}"
        );
    }

    #[test]
    fn a_card_that_is_not_an_object_is_one_error() {
        assert_eq!(validate_card(&json!([])).len(), 1);
    }
}
