//! Where a client may be sent back to: the operator's redirect policy (open, or an allow-list
//! built from patterns and the presets of mainstream clients) and the checks every registered
//! redirect URI passes.

use url::{Host, Url};

use crate::OAuthError;

/// The callbacks of each mainstream client, as their public sources give them (the oauth
/// guide's table repeats this with the sources). Loopback callbacks are listed for the record:
/// a loopback URI reaches only the person's own machine and is admitted whenever loopback
/// redirects are (see [`RedirectPolicy::loopback`]), so a preset of only those (Claude Code,
/// MCP Inspector) restricts web redirects to none.
const PRESETS: [(&str, &[&str]); 6] = [
    // OpenAI's connector docs; makeplane/plane-mcp-server PR #165.
    (
        "chatgpt",
        &[
            "https://chatgpt.com/connector_platform_oauth_redirect",
            "https://chatgpt.com/connector/oauth/*",
        ],
    ),
    // anthropics/claude-ai-mcp issues; PostHog/posthog#48397.
    (
        "claude",
        &[
            "https://claude.ai/api/mcp/auth_callback",
            "https://claude.com/api/mcp/auth_callback",
        ],
    ),
    // microsoft/vscode `src/vs/base/common/oauth.ts`; microsoft/vscode#278512.
    (
        "vscode",
        &[
            "https://vscode.dev/redirect",
            "https://insiders.vscode.dev/redirect",
            "http://127.0.0.1/",
            "http://127.0.0.1:33418/",
        ],
    ),
    // erp-mafia/accounted PR #2225; laravel/mcp #173; soflyy/agent-connector-for-wp#111.
    (
        "cursor",
        &[
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "https://www.cursor.com/agents/mcp/oauth/callback",
            "http://localhost:8787/callback",
        ],
    ),
    // elmohq/elmo#684 (any port: `--callback-port`).
    ("claude-code", &["http://localhost/callback"]),
    // modelcontextprotocol/inspector.
    (
        "inspector",
        &[
            "http://localhost:6274/oauth/callback",
            "http://localhost:6274/oauth/callback/debug",
        ],
    ),
];

/// The names of the presets, as `--oauth-connector` takes them (`all` selects every one).
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(name, _)| *name)
}

/// The presets' callbacks on an app's own scheme, each an exact URI only that app receives.
/// An open policy admits them from any client: Cursor registers its callback without saying it
/// is a native app (makeplane/plane-mcp-server#159), and refusing it would leave its user on
/// an error page.
fn is_preset_app_uri(uri: &str) -> bool {
    PRESETS
        .iter()
        .flat_map(|(_, callbacks)| callbacks.iter())
        .any(|callback| {
            *callback == uri && !callback.starts_with("https:") && !callback.starts_with("http:")
        })
}

/// Which redirect URIs registration accepts beyond loopback ones: exact URLs, or prefixes
/// ending in `*` whose scheme and host are fixed. Open (no pattern, no preset): any https URI,
/// a public native app's reverse-domain private-use scheme, and the presets' app callbacks.
#[derive(Debug, Clone, Default)]
pub struct RedirectPolicy {
    allowed: Vec<String>,
    /// Whether an allow-list was asked for (a preset of loopback callbacks only still closes
    /// the policy to web redirects).
    restricted: bool,
    /// Whether loopback http URIs (desktop clients) are accepted.
    pub loopback: bool,
}

impl RedirectPolicy {
    /// Any https redirect URI, and loopback ones.
    pub fn open() -> Self {
        Self {
            allowed: Vec::new(),
            restricted: false,
            loopback: true,
        }
    }

    /// Also (or, once any is given, only) the URIs `pattern` matches: an https URL, exact or a
    /// prefix ending in `*` (`https://chatgpt.com/connector/oauth/*`); an app's private-use
    /// URI, exact (`cursor://anysphere.cursor-mcp/oauth/callback`); or a loopback http URI,
    /// which closes the policy to web redirects without adding one.
    pub fn allow(mut self, pattern: &str) -> Result<Self, String> {
        let prefix = pattern.strip_suffix('*').unwrap_or(pattern);
        let url = Url::parse(prefix).map_err(|e| format!("`{pattern}` is not a URL: {e}"))?;
        self.restricted = true;
        if url.scheme() == "http" && is_loopback(&url) {
            return Ok(self);
        }
        let host_fixed = url.scheme() == "https"
            && url.host().is_some()
            && prefix.len() > url.origin().ascii_serialization().len();
        let exact_app_uri = prefix == pattern
            && (is_reverse_domain_scheme(url.scheme()) || is_preset_app_uri(pattern))
            && url.as_str().len() > url.scheme().len() + 1;
        if !host_fixed && !exact_app_uri {
            return Err(format!(
                "`{pattern}`: a redirect allow-list entry is an https URL (or one ending in `*` \
                 after its host's `/`), so it cannot send codes to another host, or an app's \
                 exact URI on a reverse-domain scheme (`com.example.app:/callback`, RFC 8252 \
                 §7.1) or a preset's (`cursor://anysphere.cursor-mcp/oauth/callback`)"
            ));
        }
        self.allowed.push(pattern.to_owned());
        Ok(self)
    }

    /// The callbacks of a mainstream client (`chatgpt`, `claude`, `vscode`, `cursor`,
    /// `claude-code`, `inspector`), or of all of them (`all`).
    pub fn preset(self, client: &str) -> Result<Self, String> {
        let name = client.trim().to_ascii_lowercase();
        let chosen: Vec<&[&str]> = PRESETS
            .iter()
            .filter(|(preset, _)| name == "all" || *preset == name)
            .map(|(_, callbacks)| *callbacks)
            .collect();
        if chosen.is_empty() {
            let names: Vec<&str> = preset_names().collect();
            return Err(format!(
                "no redirect preset `{client}`; the presets are {} (or all)",
                names.join(", ")
            ));
        }
        chosen
            .into_iter()
            .flatten()
            .try_fold(self, |policy, pattern| policy.allow(pattern))
    }

    /// The patterns allowed (empty: any https URI, unless a loopback-only preset closed it).
    pub fn patterns(&self) -> &[String] {
        &self.allowed
    }

    /// Whether the operator named `uri` on the allow-list (an open policy names none).
    pub(crate) fn vouches_for(&self, uri: &Url) -> bool {
        self.restricted && self.names(uri)
    }

    /// Whether one of the allow-list's patterns matches `uri`.
    fn names(&self, uri: &Url) -> bool {
        self.allowed
            .iter()
            .any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => uri.as_str().starts_with(prefix),
                None => uri.as_str() == pattern,
            })
    }

    /// What the policy allows, for an error message.
    fn describe(&self) -> String {
        if self.allowed.is_empty() {
            "loopback redirects only".to_owned()
        } else {
            self.allowed.join(", ")
        }
    }
}

/// Whether `scheme` is a private-use scheme as RFC 8252 §7.1 has apps choose them: a domain
/// name the app's maker controls, reversed (`com.example.app`), so at least two non-empty
/// labels. A rule, not a list: a scheme without a dot is one a browser, an operating system
/// or another program already answers (`javascript`, `file`, `view-source`, `ms-msdt`,
/// `search-ms`, `chrome-extension`, `smb`), and sending a code there hands it to them.
fn is_reverse_domain_scheme(scheme: &str) -> bool {
    let mut labels = scheme.split('.');
    let valid = |label: &str| {
        !label.is_empty()
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'+')
    };
    scheme.contains('.') && labels.all(valid)
}

/// What a registering client says it is, as far as app redirects go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Registrant {
    /// It has a secret: web redirects only.
    Confidential,
    /// No secret (`token_endpoint_auth_method` `none`), not declared native.
    Public,
    /// No secret, `application_type` `native`: an app on the person's machine (RFC 8252).
    NativePublic,
}

/// Checks one redirect URI: https, or http on a loopback address (any port), no fragment, and
/// admitted by `policy`. An app's private-use URI, which only that app on the person's machine
/// receives, is admitted where the allow-list names it; under an open policy, a preset's app
/// callback (`cursor://anysphere.cursor-mcp/oauth/callback`) from any public client, and a
/// reverse-domain scheme (RFC 8252 §7.1: `com.example.app:/cb`) from a public native app.
/// Any other scheme is refused by that rule.
pub(crate) fn check_redirect(
    uri: &str,
    policy: &RedirectPolicy,
    registrant: Registrant,
) -> Result<(), OAuthError> {
    let bad = |why: &str| OAuthError::InvalidRedirectUri(format!("redirect URI `{uri}` {why}"));
    let url = Url::parse(uri).map_err(|e| bad(&format!("is not an absolute URL ({e})")))?;
    if url.fragment().is_some() {
        return Err(bad(
            "has a fragment, which redirect URIs may not (RFC 6749 §3.1.2)",
        ));
    }
    let off_list = || {
        bad(&format!(
            "is not on this server's redirect allow-list ({})",
            policy.describe()
        ))
    };
    match url.scheme() {
        "http" if is_loopback(&url) => {
            if policy.loopback {
                Ok(())
            } else {
                Err(bad(
                    "is a loopback redirect, which this server does not accept",
                ))
            }
        }
        "https" if url.host().is_some() => {
            if !policy.restricted || policy.names(&url) {
                Ok(())
            } else {
                Err(off_list())
            }
        }
        "http" => Err(bad(
            "is plain http on a host that is not loopback; use https, or http on 127.0.0.1, \
             [::1] or localhost",
        )),
        _ if policy.names(&url) => Ok(()),
        _ if policy.restricted => Err(off_list()),
        _ if registrant != Registrant::Confidential && is_preset_app_uri(uri) => Ok(()),
        scheme if !is_reverse_domain_scheme(scheme) => Err(bad(&format!(
            "uses the scheme `{scheme}`; redirect URIs are https, http on a loopback address, \
             or a native app's own scheme named after a domain, reversed \
             (`com.example.app:/callback`, RFC 8252 §7.1)"
        ))),
        _ if registrant == Registrant::NativePublic => Ok(()),
        scheme => Err(bad(&format!(
            "uses the app scheme `{scheme}`, which only a public native client \
             (`application_type` `native`, `token_endpoint_auth_method` `none`) may register \
             (RFC 8252 §7.1)"
        ))),
    }
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
pub(crate) fn same_loopback_except_port(registered: &str, presented: &str) -> bool {
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

/// Whether two URIs are loopback http URIs on the same host (any port, any path).
pub(crate) fn same_loopback_host(registered: &str, presented: &str) -> bool {
    let (Ok(a), Ok(b)) = (Url::parse(registered), Url::parse(presented)) else {
        return false;
    };
    a.scheme() == "http"
        && b.scheme() == "http"
        && is_loopback(&a)
        && a.host() == b.host()
        && b.fragment().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_schemes_are_reverse_domain_names_or_a_presets_exact_callback() {
        let open = RedirectPolicy::open();
        let native = Registrant::NativePublic;
        for good in [
            "com.example.app:/cb",
            "io.github.acme.cli:/oauth",
            "net.x-y.z:cb",
        ] {
            assert!(check_redirect(good, &open, native).is_ok(), "{good}");
        }
        for bad in [
            "myapp://cb",
            "ms-settings:privacy",
            "chrome-extension://x/cb",
            ".com:/cb",
        ] {
            assert!(check_redirect(bad, &open, native).is_err(), "{bad}");
        }
        let cursor = "cursor://anysphere.cursor-mcp/oauth/callback";
        assert!(check_redirect(cursor, &open, Registrant::Public).is_ok());
        assert!(check_redirect(cursor, &open, Registrant::Confidential).is_err());
        assert!(check_redirect("cursor://anysphere.cursor-mcp/other", &open, native).is_err());
        assert!(RedirectPolicy::open().allow("com.example.app:/cb").is_ok());
        assert!(RedirectPolicy::open().allow("myapp://cb").is_err());
    }

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        let open = RedirectPolicy::open();
        for good in [
            "https://app.example/cb",
            "http://127.0.0.1:33418/callback",
            "http://[::1]:8080/cb",
            "http://localhost:3000/callback",
        ] {
            assert!(
                check_redirect(good, &open, Registrant::Confidential).is_ok(),
                "{good}"
            );
        }
        for bad in [
            "http://app.example/cb",
            "cursor://anysphere/cb",
            "https://app.example/cb#frag",
            "/relative",
            "javascript:alert(1)",
        ] {
            let refused = check_redirect(bad, &open, Registrant::Confidential).unwrap_err();
            assert_eq!(refused.code(), "invalid_redirect_uri", "{bad}");
        }
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
        ] {
            assert!(
                check_redirect(bad, &open, Registrant::NativePublic).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_allow_list_admits_its_patterns_and_loopback_only() {
        let policy = RedirectPolicy::open()
            .preset("chatgpt")
            .unwrap()
            .preset("claude")
            .unwrap();
        assert!(
            check_redirect(
                "https://chatgpt.com/connector/oauth/abc123",
                &policy,
                Registrant::Confidential
            )
            .is_ok()
        );
        assert!(
            check_redirect(
                "https://claude.ai/api/mcp/auth_callback",
                &policy,
                Registrant::Confidential
            )
            .is_ok()
        );
        assert!(
            check_redirect(
                "http://127.0.0.1:5555/cb",
                &policy,
                Registrant::Confidential
            )
            .is_ok()
        );
        let refused = check_redirect("https://evil.example/cb", &policy, Registrant::Confidential)
            .unwrap_err();
        assert!(refused.to_string().contains("allow-list"), "{refused}");
        // The seed's callback path is not Claude's; an unlisted app scheme is not admitted
        // even for a native app once the operator keeps a list.
        assert!(
            check_redirect(
                "https://claude.ai/api/mcp/oauth/callback",
                &policy,
                Registrant::Confidential
            )
            .is_err()
        );
        assert!(
            check_redirect(
                "cursor://anysphere.cursor-mcp/oauth/callback",
                &policy,
                Registrant::NativePublic
            )
            .is_err()
        );
        assert!(RedirectPolicy::open().allow("https://*").is_err());
        assert!(
            RedirectPolicy::open()
                .allow("http://app.example/*")
                .is_err()
        );
        assert!(RedirectPolicy::open().allow("cursor://*").is_err());
        assert!(RedirectPolicy::open().allow("javascript:alert(1)").is_err());
        let unknown = RedirectPolicy::open().preset("gemini").unwrap_err();
        assert!(unknown.contains("claude-code, inspector"), "{unknown}");
    }

    #[test]
    fn presets_admit_each_clients_own_callbacks_and_all_admits_every_one() {
        let cursor = RedirectPolicy::open().preset("cursor").unwrap();
        let app = "cursor://anysphere.cursor-mcp/oauth/callback";
        assert!(
            check_redirect(app, &cursor, Registrant::Confidential).is_ok(),
            "listed by the operator"
        );
        assert!(
            check_redirect(
                "https://vscode.dev/redirect",
                &cursor,
                Registrant::Confidential
            )
            .is_err()
        );
        let loopback_only = RedirectPolicy::open().preset("claude-code").unwrap();
        assert!(loopback_only.patterns().is_empty());
        assert!(
            check_redirect(
                "http://localhost:54321/callback",
                &loopback_only,
                Registrant::Confidential
            )
            .is_ok()
        );
        let refused = check_redirect(
            "https://app.example/cb",
            &loopback_only,
            Registrant::Confidential,
        )
        .unwrap_err();
        assert!(
            refused.to_string().contains("loopback redirects only"),
            "{refused}"
        );
        let all = RedirectPolicy::open().preset("ALL").unwrap();
        for callback in PRESETS.iter().flat_map(|(_, callbacks)| callbacks.iter()) {
            let uri = callback.replace('*', "g-123");
            assert!(
                check_redirect(&uri, &all, Registrant::Confidential).is_ok(),
                "{uri}"
            );
        }
    }
}
