//! Finding where to sign in: the agent's refusal (or its well-known URL) names its
//! protected-resource metadata (RFC 9728), whose authorization server's metadata (RFC 8414)
//! names the endpoints.

use reqwest::header::WWW_AUTHENTICATE;
use serde_json::{Value, json};
use url::Url;

use super::token::unreachable;
use super::{LoginError, http, json_of};

/// What signing in to one agent needs: the resource, its authorization server's endpoints,
/// the scopes to ask for and, when pre-registered, the client's id.
#[derive(Debug, Clone)]
pub struct Login {
    pub(super) resource: String,
    pub(super) issuer: String,
    pub(super) authorization_endpoint: String,
    pub(super) token_endpoint: String,
    pub(super) registration_endpoint: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) client_id: Option<String>,
    /// Whether the server promises `iss` in its answers (RFC 9207): an answer without it is
    /// then refused.
    pub(super) sends_iss: bool,
}

impl Login {
    /// Discovers where to sign in to the agent at `url`: the metadata a refused call names
    /// (`WWW-Authenticate: Bearer resource_metadata=…`), else the well-known URL RFC 9728 puts
    /// it at; then its first authorization server's metadata.
    pub async fn discover(url: &str) -> Result<Self, LoginError> {
        let http = http(url)?;
        let metadata_url = match challenged(&http, url).await? {
            Some(named) => named,
            None => well_known(url, "oauth-protected-resource")?,
        };
        let resource = get_json(&http, &metadata_url).await?;
        let resource_id = text(&resource, "resource", &metadata_url)?;
        if !super::resource_covers(&resource_id, url) {
            return Err(LoginError::NoAuthorizationServer(format!(
                "{metadata_url} describes `{resource_id}`, not {url}: the metadata is another \
                 resource's (RFC 9728 §3.3), so it is not followed"
            )));
        }
        let Some(issuer) = resource["authorization_servers"][0].as_str() else {
            return Err(LoginError::NoAuthorizationServer(format!(
                "{metadata_url} names no authorization server: {url} takes no tokens one can \
                 sign in for"
            )));
        };
        safe("the authorization server", issuer)?;
        let server_url = well_known(issuer, "oauth-authorization-server")?;
        let server = get_json(&http, &server_url).await?;
        let named = text(&server, "issuer", &server_url)?;
        if named != issuer {
            return Err(LoginError::NoAuthorizationServer(format!(
                "{server_url} names the issuer `{named}`, not `{issuer}` (RFC 8414 §3.3)"
            )));
        }
        let s256 = server["code_challenge_methods_supported"]
            .as_array()
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
        if !s256 {
            return Err(LoginError::NoAuthorizationServer(format!(
                "{issuer} does not offer PKCE with S256, which signing in requires"
            )));
        }
        let authorization_endpoint = text(&server, "authorization_endpoint", &server_url)?;
        let token_endpoint = text(&server, "token_endpoint", &server_url)?;
        let registration_endpoint = server["registration_endpoint"].as_str().map(str::to_owned);
        safe("`authorization_endpoint`", &authorization_endpoint)?;
        safe("`token_endpoint`", &token_endpoint)?;
        if let Some(endpoint) = &registration_endpoint {
            safe("`registration_endpoint`", endpoint)?;
        }
        Ok(Self {
            resource: resource_id,
            issuer: issuer.to_owned(),
            authorization_endpoint,
            token_endpoint,
            registration_endpoint,
            scopes: crate::card::texts(&resource, "scopes_supported"),
            client_id: None,
            sends_iss: server["authorization_response_iss_parameter_supported"] == true,
        })
    }

    /// Signs in as the client `client_id`, registered beforehand as a public client with a
    /// loopback redirect, instead of registering one.
    #[must_use]
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Asks for `scopes` (by default every scope the resource's metadata lists).
    #[must_use]
    pub fn scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = scopes;
        self
    }

    /// The protected resource tokens are asked for.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The authorization server's issuer.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }
}

/// The metadata URL the agent at `url` names when it refuses an unauthenticated call; `None`
/// when it does not refuse, or names none.
async fn challenged(http: &reqwest::Client, url: &str) -> Result<Option<String>, LoginError> {
    let probe = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}});
    let response = http
        .post(url)
        .header("a2a-version", "1.0")
        .json(&probe)
        .send()
        .await
        .map_err(|e| unreachable(url, &e))?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return Ok(None);
    }
    Ok(response
        .headers()
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(resource_metadata))
}

/// The `resource_metadata` parameter of a Bearer challenge.
fn resource_metadata(challenge: &str) -> Option<String> {
    if !challenge.trim_start().starts_with("Bearer") {
        return None;
    }
    let (_, rest) = challenge.split_once("resource_metadata=\"")?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => return Some(value),
            c => value.push(c),
        }
    }
    None
}

/// The well-known URL of `kind` for `url` (RFC 8615, with the path inserted after it as RFC
/// 8414 §3.1 and RFC 9728 §3.1 say; a lone `/` path is dropped).
fn well_known(url: &str, kind: &str) -> Result<String, LoginError> {
    let parsed = Url::parse(url).map_err(|e| LoginError::Unreachable {
        url: url.to_owned(),
        reason: format!("not a URL: {e}"),
    })?;
    let path = match parsed.path() {
        "/" => "",
        path => path,
    };
    Ok(format!(
        "{}/.well-known/{kind}{path}",
        parsed.origin().ascii_serialization()
    ))
}

/// Refuses an endpoint a browser is sent to or a code and tokens are posted to unless it is
/// https or loopback http: never a script, a file or plain http across the network.
fn safe(what: &str, url: &str) -> Result<(), LoginError> {
    if super::is_safe_to_open(url) {
        return Ok(());
    }
    Err(LoginError::NoAuthorizationServer(format!(
        "{what} is `{url}`: only https (or http on this machine) is followed"
    )))
}

async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, LoginError> {
    let response = http
        .get(url)
        .send()
        .await
        .map_err(|e| unreachable(url, &e))?;
    if !response.status().is_success() {
        return Err(LoginError::Unreachable {
            url: url.to_owned(),
            reason: format!("answered HTTP {}", response.status()),
        });
    }
    json_of(url, response).await
}

fn text(document: &Value, field: &str, url: &str) -> Result<String, LoginError> {
    document[field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| LoginError::Unreachable {
            url: url.to_owned(),
            reason: format!("the metadata has no `{field}`"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_insert_the_path_after_the_prefix() {
        let prm = |url| well_known(url, "oauth-protected-resource").unwrap();
        assert_eq!(
            prm("https://h.example/"),
            "https://h.example/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            prm("https://h.example/library/"),
            "https://h.example/.well-known/oauth-protected-resource/library/"
        );
    }

    #[test]
    fn the_metadata_url_is_read_from_a_bearer_challenge() {
        let challenge = r#"Bearer realm="agent", resource_metadata="https://h/.well-known/x\"y""#;
        assert_eq!(
            resource_metadata(challenge).as_deref(),
            Some("https://h/.well-known/x\"y")
        );
        assert_eq!(resource_metadata(r#"Basic realm="x""#), None);
    }
}
