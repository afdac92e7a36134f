//! The card's security: `securitySchemes`, `securityRequirements` and each skill's
//! requirements, from the schemes in force (1.0 shapes, with the 0.3 members merged into each
//! scheme for 0.3 clients, a2a-spec.md §2.6).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use a2a_runtime_core::auth::{NamedScheme, OAuthFlow, Security, SecurityScheme};

/// `securitySchemes`: each scheme in its 1.0 wrapper with its 0.3 members beside it. OAuth 2
/// flows list `scopes` (each scope with the skills that need it).
pub fn schemes(
    security: &Security,
    scopes: &BTreeMap<&'static str, Vec<&'static str>>,
) -> Option<Value> {
    if !security.is_enabled() {
        return None;
    }
    let scopes: Map<String, Value> = scopes
        .iter()
        .map(|(scope, skills)| {
            let skills: Vec<String> = skills.iter().map(|s| format!("`{s}`")).collect();
            (
                (*scope).to_owned(),
                json!(format!("needed by {}", skills.join(", "))),
            )
        })
        .collect();
    let mut map = Map::new();
    for scheme in security.schemes() {
        map.insert(scheme.name.clone(), scheme_json(scheme, &scopes));
    }
    Some(Value::Object(map))
}

fn scheme_json(named: &NamedScheme, scopes: &Map<String, Value>) -> Value {
    let description = named.description.clone();
    let (mut v1, mut v0_3) = match &named.scheme {
        SecurityScheme::ApiKey { location, name } => (
            json!({"apiKeySecurityScheme": {"location": location.as_str(), "name": name}}),
            json!({"type": "apiKey", "in": location.as_str(), "name": name}),
        ),
        SecurityScheme::Bearer => (
            json!({"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}),
            json!({"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}),
        ),
        SecurityScheme::OAuth2 { metadata_url, flow } => {
            let (v1_flows, v0_3_flows) = flows(flow.as_ref(), scopes);
            let mut v1 = json!({"flows": v1_flows});
            if let Some(url) = metadata_url {
                v1["oauth2MetadataUrl"] = json!(url);
            }
            (
                json!({"oauth2SecurityScheme": v1}),
                json!({"type": "oauth2", "flows": v0_3_flows}),
            )
        }
        SecurityScheme::OpenIdConnect { url } => (
            json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": url}}),
            json!({"type": "openIdConnect", "openIdConnectUrl": url}),
        ),
        SecurityScheme::MutualTls => (
            json!({"mtlsSecurityScheme": {}}),
            json!({"type": "mutualTLS"}),
        ),
    };
    if let Some(description) = description {
        if let Some(inner) = v1.as_object_mut().and_then(|m| m.values_mut().next()) {
            inner["description"] = json!(description);
        }
        v0_3["description"] = json!(description);
    }
    if let (Value::Object(v1), Value::Object(v0_3)) = (&mut v1, v0_3) {
        v1.extend(v0_3);
    }
    v1
}

/// The 1.0 `OAuthFlows` one-of and the 0.3 flows object.
fn flows(flow: Option<&OAuthFlow>, scopes: &Map<String, Value>) -> (Value, Value) {
    let scopes = Value::Object(scopes.clone());
    match flow {
        Some(OAuthFlow::AuthorizationCode {
            authorization_url,
            token_url,
        }) => {
            let body = json!({"authorizationUrl": authorization_url, "tokenUrl": token_url,
                              "scopes": scopes});
            let mut v1 = body.clone();
            v1["pkceRequired"] = json!(true);
            (
                json!({"authorizationCode": v1}),
                json!({"authorizationCode": body}),
            )
        }
        Some(OAuthFlow::ClientCredentials { token_url }) => {
            let body = json!({"tokenUrl": token_url, "scopes": scopes});
            (
                json!({"clientCredentials": body}),
                json!({"clientCredentials": body}),
            )
        }
        Some(OAuthFlow::DeviceCode {
            device_authorization_url,
            token_url,
        }) => (
            json!({"deviceCode": {"deviceAuthorizationUrl": device_authorization_url,
                                  "tokenUrl": token_url, "scopes": scopes}}),
            json!({}),
        ),
        None => (json!({}), json!({})),
    }
}

/// The card-wide requirements (any one scheme), as 1.0 `securityRequirements` and 0.3
/// `security`.
pub fn requirements(security: &Security) -> (Vec<Value>, Vec<Value>) {
    security
        .schemes()
        .map(|s| {
            (
                json!({"schemes": {s.name.clone(): {"list": []}}}),
                json!({s.name.clone(): []}),
            )
        })
        .unzip()
}

/// A skill's requirements: any scheme that carries scopes, with the skill's scopes.
pub fn skill_requirements(security: &Security, scopes: &[&str]) -> Vec<Value> {
    if scopes.is_empty() {
        return Vec::new();
    }
    security
        .scoped()
        .map(|name| json!({"schemes": {name: {"list": scopes}}}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_runtime_core::auth::{AuthConfig, JwtConfig};

    #[test]
    fn oauth_flows_list_the_scopes_skills_need() {
        let declared = [NamedScheme::new(
            "oauth",
            SecurityScheme::OAuth2 {
                metadata_url: None,
                flow: Some(OAuthFlow::ClientCredentials {
                    token_url: "https://auth.example/token".into(),
                }),
            },
        )];
        let config = AuthConfig {
            jwt: Some(JwtConfig::hs256("a-test-secret-of-at-least-32-bytes")),
            ..AuthConfig::default()
        };
        let security = Security::resolve(&declared, &config).expect("resolves");
        let scopes = BTreeMap::from([("vault:open", vec!["open", "peek"])]);
        let card = schemes(&security, &scopes).expect("schemes");
        let expected = json!({"vault:open": "needed by `open`, `peek`"});
        let oauth = &card["oauth"];
        assert_eq!(
            oauth["oauth2SecurityScheme"]["flows"]["clientCredentials"]["scopes"], expected,
            "{card}"
        );
        assert_eq!(
            oauth["flows"]["clientCredentials"]["scopes"], expected,
            "the 0.3 view: {card}"
        );
    }
}
