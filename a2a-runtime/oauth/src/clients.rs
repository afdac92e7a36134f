//! Clients: how they are described (registered dynamically, RFC 7591, or by a client ID
//! metadata document), which redirect URIs they may use, and how they authenticate at the
//! token endpoint.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use url::Url;

use crate::OAuthError;
use crate::redirects::{
    RedirectPolicy, Registrant, check_redirect, is_loopback, same_loopback_except_port,
    same_loopback_host,
};

/// The grant types a client may register; `authorization_code` is always among them.
const GRANT_TYPES: [&str; 2] = ["authorization_code", "refresh_token"];

/// How a client authenticates at the token endpoint.
pub(crate) const AUTH_METHODS: [&str; 3] = ["none", "client_secret_post", "client_secret_basic"];

/// The longest client name kept (longer ones are cut).
const MAX_NAME_CHARS: usize = 120;

/// The most redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 20;

/// A client, as registered or read from its metadata document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Client {
    /// Its id: issued at registration, or the URL of its metadata document.
    pub client_id: String,
    /// What it calls itself (unverified: the consent page says so).
    pub client_name: Option<String>,
    /// Its home page.
    pub client_uri: Option<String>,
    /// Where it may be sent back to.
    pub redirect_uris: Vec<String>,
    /// The grants it may use.
    pub grant_types: Vec<String>,
    /// How it authenticates at the token endpoint.
    pub token_endpoint_auth_method: String,
    /// The digest of its secret, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) secret_digest: Option<String>,
    /// When it registered (Unix seconds); 0 for a metadata document.
    pub registered: i64,
    /// Whether it is described by a metadata document rather than registered.
    #[serde(default)]
    pub metadata_document: bool,
    /// The redirect URIs at which a person has approved the client: errors about its later
    /// requests may be sent there without asking anyone (RFC 9700 §4.11.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approved_redirects: Vec<String>,
    /// When a registration no person has approved yet lapses (Unix seconds); none once one
    /// has, and for metadata documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<i64>,
}

impl Client {
    /// Whether the client may use refresh tokens.
    pub(crate) fn refreshes(&self) -> bool {
        self.grant_types.iter().any(|g| g == "refresh_token")
    }

    /// Whether `redirect_uri` is one of the client's: exactly, or for a loopback URI with any
    /// port (RFC 8252 §7.3: native apps pick a free port when they start). A public client
    /// (no secret: a native app) may also change the path of a loopback redirect on the host
    /// it registered: command-line clients register `http://127.0.0.1/callback` and then
    /// listen at `/mcp/oauth/callback` (anomalyco/opencode#50510). That gives nobody more
    /// than they could register: anyone may register a public client with any loopback
    /// redirect, a loopback code reaches only the person's own machine, and a public client's
    /// code is worthless without its PKCE verifier. A confidential client's paths stay exact.
    pub(crate) fn redirects_to(&self, redirect_uri: &str) -> bool {
        let public = self.token_endpoint_auth_method == "none";
        self.redirect_uris.iter().any(|registered| {
            registered == redirect_uri
                || same_loopback_except_port(registered, redirect_uri)
                || (public && same_loopback_host(registered, redirect_uri))
        })
    }

    /// Whether errors about a request may be sent to `redirect_uri` (one of the client's)
    /// before any person was asked: only to a URI a person has approved the client at, one the
    /// operator's allow-list names, one on the origin of the client's own metadata document,
    /// or a loopback one (the person's own machine, where a desktop client listens). Anything
    /// else is an open redirector: anyone may register a client with a redirect of their
    /// choosing and send browsers through this server to it.
    pub(crate) fn may_send_errors_to(&self, redirect_uri: &str, policy: &RedirectPolicy) -> bool {
        if self
            .approved_redirects
            .iter()
            .any(|uri| uri == redirect_uri)
        {
            return true;
        }
        let Ok(url) = Url::parse(redirect_uri) else {
            return false;
        };
        if is_loopback(&url) || policy.vouches_for(&url) {
            return true;
        }
        self.metadata_document
            && Url::parse(&self.client_id).is_ok_and(|id| id.origin() == url.origin())
    }

    /// What the consent page and the admin API show of it, without its secret.
    pub fn public_view(&self) -> Value {
        let mut view = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(view) = view.as_object_mut() {
            view.remove("secret_digest");
        }
        view
    }
}

/// The fields of a client's metadata both registration and metadata documents read.
#[derive(Debug)]
pub(crate) struct Metadata {
    pub(crate) client_name: Option<String>,
    pub(crate) client_uri: Option<String>,
    pub(crate) redirect_uris: Vec<String>,
    pub(crate) grant_types: Vec<String>,
    pub(crate) token_endpoint_auth_method: String,
}

/// Reads client metadata (RFC 7591 §2), refusing what this server does not do with the
/// field named. `default_auth` is the method assumed when none is given.
pub(crate) fn read_metadata(
    fields: &Map<String, Value>,
    policy: &RedirectPolicy,
    default_auth: &str,
) -> Result<Metadata, OAuthError> {
    let method =
        text(fields, "token_endpoint_auth_method")?.unwrap_or_else(|| default_auth.to_owned());
    if !AUTH_METHODS.contains(&method.as_str()) {
        return Err(OAuthError::InvalidClientMetadata(format!(
            "`token_endpoint_auth_method` is `{method}`; this server supports {}",
            AUTH_METHODS.join(", ")
        )));
    }
    // A public native app may name a private-use scheme of its own (RFC 8252 §7.1).
    let native = text(fields, "application_type")?.as_deref() == Some("native");
    let registrant = match (method.as_str(), native) {
        ("none", true) => Registrant::NativePublic,
        ("none", false) => Registrant::Public,
        _ => Registrant::Confidential,
    };
    let redirect_uris = redirect_uris(fields, policy, registrant)?;
    let grant_types = grant_types(fields)?;
    if let Some(types) = strings(fields, "response_types")?
        && !types.iter().any(|t| t == "code")
    {
        return Err(OAuthError::InvalidClientMetadata(format!(
            "`response_types` is {types:?}; this server answers the `code` response type only"
        )));
    }
    let client_name = text(fields, "client_name")?.map(|name| {
        name.chars()
            .filter(|c| !c.is_control())
            .take(MAX_NAME_CHARS)
            .collect()
    });
    // A home page that is not https is dropped rather than shown as a link.
    let client_uri = text(fields, "client_uri")?
        .filter(|uri| Url::parse(uri).is_ok_and(|url| url.scheme() == "https"));
    Ok(Metadata {
        client_name,
        client_uri,
        redirect_uris,
        grant_types,
        token_endpoint_auth_method: method,
    })
}

/// The metadata's `redirect_uris` that `policy` allows (private-use schemes too for a public
/// native app): at most [`MAX_REDIRECT_URIS`] listed, at least one kept. As RFC 7591 §2 lets a
/// server, the others are dropped rather than failing the registration (the answer lists what
/// was kept): clients list several callbacks, and one refusal would lock them out.
fn redirect_uris(
    fields: &Map<String, Value>,
    policy: &RedirectPolicy,
    registrant: Registrant,
) -> Result<Vec<String>, OAuthError> {
    let redirect_uris = strings(fields, "redirect_uris")?.unwrap_or_default();
    if redirect_uris.is_empty() {
        return Err(OAuthError::InvalidRedirectUri(
            "`redirect_uris` is required: the authorization code flow sends the user back to \
             one of them"
                .to_owned(),
        ));
    }
    if redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(OAuthError::InvalidRedirectUri(format!(
            "`redirect_uris` lists {} URIs; at most {MAX_REDIRECT_URIS}",
            redirect_uris.len()
        )));
    }
    let mut kept = Vec::new();
    let mut first_refusal = None;
    for uri in redirect_uris {
        match check_redirect(&uri, policy, registrant) {
            Ok(()) => kept.push(uri),
            Err(refused) => {
                tracing::debug!(%uri, %refused, "authorization server: a redirect URI dropped");
                first_refusal.get_or_insert(refused);
            }
        }
    }
    match (kept.is_empty(), first_refusal) {
        (true, Some(refused)) => Err(refused),
        _ => Ok(kept),
    }
}

/// The metadata's `grant_types` (`authorization_code` when absent) this server issues tokens
/// for: others (a JWT bearer or device code grant) are dropped, as RFC 7591 §2 lets a server,
/// and the answer lists what was kept; the authorization code must be among them.
fn grant_types(fields: &Map<String, Value>) -> Result<Vec<String>, OAuthError> {
    let mut grant_types =
        strings(fields, "grant_types")?.unwrap_or_else(|| vec!["authorization_code".into()]);
    grant_types.retain(|grant| GRANT_TYPES.contains(&grant.as_str()));
    grant_types.dedup();
    if !grant_types.iter().any(|g| g == "authorization_code") {
        return Err(OAuthError::InvalidClientMetadata(
            "`grant_types` must include authorization_code".to_owned(),
        ));
    }
    Ok(grant_types)
}

/// Field `name` of `fields` as an array of strings, if present.
fn strings(fields: &Map<String, Value>, name: &str) -> Result<Option<Vec<String>>, OAuthError> {
    let bad = || OAuthError::InvalidClientMetadata(format!("`{name}` must be an array of strings"));
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad()),
    }
}

/// Field `name` of `fields` as a string, if present and not empty.
fn text(fields: &Map<String, Value>, name: &str) -> Result<Option<String>, OAuthError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(OAuthError::InvalidClientMetadata(format!(
            "`{name}` must be a string"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metadata a client sends, as JSON.
    fn fields(metadata: serde_json::Value) -> Map<String, Value> {
        metadata.as_object().cloned().unwrap()
    }

    #[test]
    fn grants_this_server_does_not_issue_are_dropped_not_refused() {
        // claude.ai's client ID metadata document (anthropics/claude-ai-mcp issues;
        // PostHog/posthog#48397).
        let claude = fields(serde_json::json!({
            "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
            "grant_types": ["authorization_code", "refresh_token",
                            "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            "token_endpoint_auth_method": "none",
        }));
        let read = read_metadata(&claude, &RedirectPolicy::open(), "none").unwrap();
        assert_eq!(read.grant_types, ["authorization_code", "refresh_token"]);
        let device_only = fields(serde_json::json!({
            "redirect_uris": ["https://app.example/cb"],
            "grant_types": ["urn:ietf:params:oauth:grant-type:device_code"],
        }));
        let refused = read_metadata(&device_only, &RedirectPolicy::open(), "none").unwrap_err();
        assert!(
            refused.to_string().contains("authorization_code"),
            "{refused}"
        );
    }

    #[test]
    fn refused_redirect_uris_are_dropped_while_one_remains() {
        // Cursor's registration: its app scheme, its web callback and a loopback one
        // (erp-mafia/accounted PR #2225; laravel/mcp #173).
        let cursor = fields(serde_json::json!({
            "redirect_uris": ["cursor://anysphere.cursor-mcp/oauth/callback",
                              "https://www.cursor.com/agents/mcp/oauth/callback",
                              "http://localhost:8787/callback"],
            "token_endpoint_auth_method": "none",
        }));
        let read = read_metadata(&cursor, &RedirectPolicy::open(), "none").unwrap();
        assert_eq!(
            read.redirect_uris.len(),
            3,
            "Cursor's own app callback is kept for a public client that does not say it is \
             native (makeplane/plane-mcp-server#159)"
        );
        let mut stranger = cursor.clone();
        stranger.insert(
            "redirect_uris".into(),
            serde_json::json!(["com.stranger.app:/cb", "https://app.example/cb"]),
        );
        let read = read_metadata(&stranger, &RedirectPolicy::open(), "none").unwrap();
        assert_eq!(
            read.redirect_uris,
            ["https://app.example/cb"],
            "another app's scheme is a native app's only"
        );
        let mut native = cursor.clone();
        native.insert("application_type".into(), "native".into());
        let read = read_metadata(&native, &RedirectPolicy::open(), "none").unwrap();
        assert_eq!(read.redirect_uris.len(), 3, "{:?}", read.redirect_uris);
        // A confidential client never gets one, nor does anyone get a script or a file.
        let mut secret = native.clone();
        secret.insert(
            "token_endpoint_auth_method".into(),
            "client_secret_post".into(),
        );
        let read = read_metadata(&secret, &RedirectPolicy::open(), "none").unwrap();
        assert_eq!(read.redirect_uris.len(), 2);
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
        ] {
            assert!(
                check_redirect(bad, &RedirectPolicy::open(), Registrant::NativePublic).is_err(),
                "{bad}"
            );
        }
        // Nothing usable left: the first refusal, naming the URI.
        let none_left = fields(serde_json::json!({"redirect_uris": ["http://app.example/cb"]}));
        let refused = read_metadata(&none_left, &RedirectPolicy::open(), "none").unwrap_err();
        assert_eq!(refused.code(), "invalid_redirect_uri");
        assert!(
            refused.to_string().contains("http://app.example/cb"),
            "{refused}"
        );
    }

    #[test]
    fn a_loopback_redirect_matches_on_any_port_and_a_public_clients_on_any_path() {
        let client = Client {
            client_id: "c".into(),
            client_name: None,
            client_uri: None,
            redirect_uris: vec!["http://127.0.0.1/callback".into()],
            grant_types: vec!["authorization_code".into()],
            token_endpoint_auth_method: "none".into(),
            secret_digest: None,
            registered: 0,
            metadata_document: false,
            approved_redirects: Vec::new(),
            expires: None,
        };
        assert!(client.redirects_to("http://127.0.0.1:49152/callback"));
        assert!(!client.redirects_to("https://127.0.0.1:49152/callback"));
        // A public client may drift in path on its loopback host; never to another host.
        assert!(client.redirects_to("http://127.0.0.1:19876/mcp/oauth/callback"));
        assert!(!client.redirects_to("http://localhost:19876/callback"));
        assert!(!client.redirects_to("https://evil.example/callback"));
        let confidential = Client {
            token_endpoint_auth_method: "client_secret_post".into(),
            ..client
        };
        assert!(confidential.redirects_to("http://127.0.0.1:49152/callback"));
        assert!(!confidential.redirects_to("http://127.0.0.1:49152/other"));
    }
}
