//! Clients: how they are described (registered dynamically, RFC 7591, or by a client ID
//! metadata document), which redirect URIs they may use, and how they authenticate at the
//! token endpoint.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use url::{Host, Url};

use crate::OAuthError;

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
    /// port (RFC 8252 §7.3: native apps pick a free port when they start).
    pub(crate) fn redirects_to(&self, redirect_uri: &str) -> bool {
        self.redirect_uris.iter().any(|registered| {
            registered == redirect_uri || same_loopback_except_port(registered, redirect_uri)
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

/// Which redirect URIs registration accepts beyond loopback ones: exact URLs, or prefixes
/// ending in `*` whose scheme and host are fixed. Empty: any https URI.
#[derive(Debug, Clone, Default)]
pub struct RedirectPolicy {
    allowed: Vec<String>,
    /// Whether loopback http URIs (desktop clients) are accepted.
    pub loopback: bool,
}

impl RedirectPolicy {
    /// Any https redirect URI, and loopback ones.
    pub fn open() -> Self {
        Self {
            allowed: Vec::new(),
            loopback: true,
        }
    }

    /// Also (or, once any is given, only) the https URIs `pattern` matches: an exact URL, or a
    /// prefix ending in `*` (`https://chatgpt.com/connector/oauth/*`).
    pub fn allow(mut self, pattern: &str) -> Result<Self, String> {
        let prefix = pattern.strip_suffix('*').unwrap_or(pattern);
        let url = Url::parse(prefix).map_err(|e| format!("`{pattern}` is not a URL: {e}"))?;
        let host_fixed = url.scheme() == "https"
            && url.host().is_some()
            && prefix.len() > url.origin().ascii_serialization().len();
        if !host_fixed {
            return Err(format!(
                "`{pattern}`: a redirect allow-list entry is an https URL (or one ending in `*` \
                 after its host's `/`), so it cannot send codes to another host"
            ));
        }
        self.allowed.push(pattern.to_owned());
        Ok(self)
    }

    /// The redirect URIs of a hosted assistant: `chatgpt` or `claude`.
    pub fn preset(self, assistant: &str) -> Result<Self, String> {
        let patterns: &[&str] = match assistant.to_ascii_lowercase().as_str() {
            "chatgpt" => &[
                "https://chatgpt.com/connector_platform_oauth_redirect",
                "https://chatgpt.com/connector/oauth/*",
            ],
            "claude" => &[
                "https://claude.ai/api/mcp/auth_callback",
                "https://claude.com/api/mcp/auth_callback",
            ],
            other => {
                return Err(format!(
                    "no redirect preset `{other}`; the presets are chatgpt and claude"
                ));
            }
        };
        patterns.iter().try_fold(self, |policy, p| policy.allow(p))
    }

    /// The https patterns allowed (empty: any).
    pub fn patterns(&self) -> &[String] {
        &self.allowed
    }

    /// Whether the operator named `uri` on the allow-list (an open policy names none).
    fn vouches_for(&self, uri: &Url) -> bool {
        !self.allowed.is_empty() && self.admits(uri)
    }

    /// Whether registration accepts `uri` (already checked to be https or loopback http).
    fn admits(&self, uri: &Url) -> bool {
        if is_loopback(uri) && uri.scheme() == "http" {
            return self.loopback;
        }
        self.allowed.is_empty()
            || self
                .allowed
                .iter()
                .any(|pattern| match pattern.strip_suffix('*') {
                    Some(prefix) => uri.as_str().starts_with(prefix),
                    None => uri.as_str() == pattern,
                })
    }
}

/// Schemes no app may claim as its own: they reach a browser, a file or a script.
const NOT_PRIVATE_SCHEMES: [&str; 13] = [
    "http",
    "javascript",
    "data",
    "file",
    "vbscript",
    "about",
    "blob",
    "ftp",
    "ws",
    "wss",
    "mailto",
    "tel",
    "chrome",
];

/// Checks one redirect URI: https, or http on a loopback address (any port), no fragment, and
/// admitted by `policy`; `native_public` also admits a public native app's private-use
/// scheme (RFC 8252 §7.1: `com.example.app:/cb`, or a vendor's such as `cursor://`), which only
/// that app on the user's machine receives.
fn check_redirect(
    uri: &str,
    policy: &RedirectPolicy,
    native_public: bool,
) -> Result<(), OAuthError> {
    let bad = |why: &str| OAuthError::InvalidRedirectUri(format!("redirect URI `{uri}` {why}"));
    let url = Url::parse(uri).map_err(|e| bad(&format!("is not an absolute URL ({e})")))?;
    if url.fragment().is_some() {
        return Err(bad(
            "has a fragment, which redirect URIs may not (RFC 6749 §3.1.2)",
        ));
    }
    match url.scheme() {
        "https" if url.host().is_some() => {}
        "http" if is_loopback(&url) => {}
        scheme if native_public && !NOT_PRIVATE_SCHEMES.contains(&scheme) => return Ok(()),
        "http" => {
            return Err(bad(
                "is plain http on a host that is not loopback; use https, or http on \
                 127.0.0.1, [::1] or localhost",
            ));
        }
        other => {
            return Err(bad(&format!(
                "uses the scheme `{other}`; redirect URIs are https, or http on a loopback \
                 address"
            )));
        }
    }
    if !policy.admits(&url) {
        return Err(bad(&format!(
            "is not on this server's redirect allow-list ({})",
            policy.patterns().join(", ")
        )));
    }
    Ok(())
}

/// Whether `url` names a loopback host: 127.0.0.0/8, ::1, or `localhost`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// Whether two URIs are the same loopback http URI but for the port.
fn same_loopback_except_port(registered: &str, presented: &str) -> bool {
    let (Ok(mut a), Ok(mut b)) = (Url::parse(registered), Url::parse(presented)) else {
        return false;
    };
    if a.scheme() != "http" || !is_loopback(&a) || !is_loopback(&b) {
        return false;
    }
    // Setting a port only fails for URLs that cannot have one, which these are not.
    if a.set_port(None).is_err() || b.set_port(None).is_err() {
        return false;
    }
    a == b
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
    let redirect_uris = redirect_uris(fields, policy, native && method == "none")?;
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
    native_public: bool,
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
        match check_redirect(&uri, policy, native_public) {
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

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        let open = RedirectPolicy::open();
        for good in [
            "https://app.example/cb",
            "http://127.0.0.1:33418/callback",
            "http://[::1]:8080/cb",
            "http://localhost:3000/callback",
        ] {
            assert!(check_redirect(good, &open, false).is_ok(), "{good}");
        }
        for bad in [
            "http://app.example/cb",
            "cursor://anysphere/cb",
            "https://app.example/cb#frag",
            "/relative",
            "javascript:alert(1)",
        ] {
            let refused = check_redirect(bad, &open, false).unwrap_err();
            assert_eq!(refused.code(), "invalid_redirect_uri", "{bad}");
        }
    }

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
            read.redirect_uris,
            [
                "https://www.cursor.com/agents/mcp/oauth/callback",
                "http://localhost:8787/callback"
            ],
            "a private scheme is a native app's only"
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
                check_redirect(bad, &RedirectPolicy::open(), true).is_err(),
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
    fn an_allow_list_admits_its_patterns_and_loopback_only() {
        let policy = RedirectPolicy::open()
            .preset("chatgpt")
            .unwrap()
            .preset("claude")
            .unwrap();
        assert!(
            check_redirect("https://chatgpt.com/connector/oauth/abc123", &policy, false).is_ok()
        );
        assert!(check_redirect("https://claude.ai/api/mcp/auth_callback", &policy, false).is_ok());
        assert!(check_redirect("http://127.0.0.1:5555/cb", &policy, false).is_ok());
        let refused = check_redirect("https://evil.example/cb", &policy, false).unwrap_err();
        assert!(refused.to_string().contains("allow-list"), "{refused}");
        // The seed's callback path is not Claude's.
        assert!(
            check_redirect("https://claude.ai/api/mcp/oauth/callback", &policy, false).is_err()
        );
        assert!(RedirectPolicy::open().allow("https://*").is_err());
        assert!(
            RedirectPolicy::open()
                .allow("http://app.example/*")
                .is_err()
        );
        assert!(RedirectPolicy::open().preset("gemini").is_err());
    }

    #[test]
    fn a_loopback_redirect_matches_on_any_port() {
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
        assert!(!client.redirects_to("http://127.0.0.1:49152/other"));
        assert!(!client.redirects_to("https://127.0.0.1:49152/callback"));
    }
}
