//! [`AuthorizationServer`]: an [`OAuthServer`] deployed at a URL, for the resources of a
//! server, with its store and signing keys: what the routes serve and what the resource
//! server side verifies tokens with.

use std::sync::Arc;

use a2a_runtime_core::auth::jwt_verify::JwtAuthenticator;
use a2a_runtime_core::auth::{JwtConfig, OAuthFlow, SecurityScheme};
use a2a_runtime_types::util::BoxFuture;
use http::request::Parts;
use url::Url;

use crate::OAuthError;
use crate::cimd::Documents;
use crate::clients::Client;
use crate::keys::SigningKeys;
use crate::limits::RateLimits;
use crate::settings::OAuthServer;
use crate::store::{CLIENTS, GrantStore, Grants};

/// OpenID Connect's scopes about the person or the session rather than an agent: accepted in a
/// request, never granted in a token.
pub(crate) const IDENTITY_SCOPES: [&str; 4] = ["openid", "profile", "email", "offline_access"];

/// Authenticates a request to the administrative API, answering its principal.
pub trait AdminAuth: Send + Sync + 'static {
    /// The principal `request` authenticates as, if any.
    fn principal<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Option<String>>;
}

/// What the server facade knows of where the authorization server runs.
#[derive(Clone)]
pub struct Deployment {
    /// The public base URL (`https://agents.example`, or with a path behind a proxy).
    pub base_url: String,
    /// The resources tokens are issued for, as their metadata names them; the first is the
    /// default for a client that names none.
    pub resources: Vec<String>,
    /// The scopes the agents' skills need.
    pub scopes: Vec<String>,
    /// How administrative requests authenticate (none: the admin API refuses everyone).
    pub admin_auth: Option<Arc<dyn AdminAuth>>,
}

/// A running authorization server. Cheap to clone.
#[derive(Clone)]
pub struct AuthorizationServer {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) settings: OAuthServer,
    /// The issuer identifier: the base URL, with the trailing `/` of a root URL (how
    /// clients' URL types render it, so string comparisons of `iss` agree).
    pub(crate) issuer: String,
    /// The base URL without a trailing `/`, endpoints' prefix.
    pub(crate) base: String,
    pub(crate) resources: Vec<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) grants: Grants,
    pub(crate) keys: Arc<SigningKeys>,
    pub(crate) documents: Option<Documents>,
    pub(crate) admin_auth: Option<Arc<dyn AdminAuth>>,
    /// Verifies the access tokens this server signed, for any of its resources: a person
    /// named an administrator who signed in here (the console does) is one.
    pub(crate) own_tokens: JwtAuthenticator,
    pub(crate) limits: RateLimits,
    /// Whether the base URL is https (cookies are then `Secure`).
    pub(crate) secure: bool,
    /// Access tokens this process revoked, counted: the verifiers of its agents forget what
    /// they verified when it changes (`revoked`).
    pub(crate) revocations: Arc<std::sync::atomic::AtomicU64>,
}

impl AuthorizationServer {
    /// `settings` deployed as `deployment` describes; grants go to the settings' store, else
    /// to `store`.
    pub fn new(
        settings: OAuthServer,
        deployment: Deployment,
        store: Arc<dyn GrantStore>,
    ) -> Result<Self, String> {
        let url = Url::parse(&deployment.base_url)
            .map_err(|e| format!("the public URL `{}` is not a URL: {e}", deployment.base_url))?;
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!(
                "the public URL `{}` may not have a query or fragment: it is the issuer",
                deployment.base_url
            ));
        }
        let base = url.as_str().trim_end_matches('/').to_owned();
        let issuer = if url.path() == "/" {
            format!("{base}/")
        } else {
            base.clone()
        };
        if deployment.resources.is_empty() {
            return Err("the authorization server has no resource to issue tokens for".to_owned());
        }
        let resources = deployment
            .resources
            .iter()
            .map(|resource| {
                canonical(resource)
                    .map(|_| resource.clone())
                    .ok_or_else(|| format!("resource `{resource}` is not an absolute URL"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let grants = Grants::new(settings.store.clone().unwrap_or(store));
        let keys = SigningKeys::new(
            grants.clone(),
            settings.signing_key_pem.as_deref(),
            settings.key_rotation,
            settings.access_token_ttl,
        )?;
        let documents = settings
            .client_documents
            .then(|| Documents::new(settings.documents_allow_private, &settings.document_roots))
            .transpose()?;
        let keys = Arc::new(keys);
        let revocations = Arc::default();
        let own_keys = own_keys(&keys, &grants, &revocations);
        let own_tokens =
            JwtAuthenticator::new("oauth2", &own_tokens(&own_keys, &issuer, &resources));
        Ok(Self {
            inner: Arc::new(Inner {
                secure: url.scheme() == "https",
                settings,
                issuer,
                base,
                resources,
                scopes: deployment.scopes,
                grants,
                keys,
                documents,
                admin_auth: deployment.admin_auth,
                own_tokens,
                limits: RateLimits::default(),
                revocations,
            }),
        })
    }

    /// Shares the server's rate limits (per address, per client) among the replicas `live`
    /// counts, so N replicas behind a balancer admit each limit about once, not N times.
    pub fn share_limits_among(&self, live: a2a_runtime_core::quota::LiveReplicas) {
        self.inner.limits.share_among(live);
    }

    /// Has every token verified so far checked again (signature and revocation) at its next
    /// use: for a token another replica revoked, which this process did not see.
    pub fn forget_verified_tokens(&self) {
        let revocations = &self.inner.revocations;
        revocations.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The issuer identifier tokens carry as `iss`.
    pub fn issuer(&self) -> &str {
        &self.inner.issuer
    }

    /// The RFC 8414 metadata document's URL.
    pub fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-authorization-server", self.inner.base)
    }

    /// The authorization endpoint.
    pub fn authorization_endpoint(&self) -> String {
        self.inner.endpoint("authorize")
    }

    /// The token endpoint.
    pub fn token_endpoint(&self) -> String {
        self.inner.endpoint("token")
    }

    /// How the resource server verifies this server's tokens, accepting those whose `aud` is
    /// one of `audiences` (the resources of one agent).
    pub fn verifier(&self, audiences: &[String]) -> JwtConfig {
        let inner = &self.inner;
        let keys = own_keys(&inner.keys, &inner.grants, &inner.revocations);
        own_tokens(&keys, &inner.issuer, audiences)
    }

    /// The security scheme an agent card and the protected-resource metadata publish for it.
    pub fn scheme(&self) -> SecurityScheme {
        SecurityScheme::OAuth2 {
            metadata_url: Some(self.metadata_url()),
            flow: Some(OAuthFlow::AuthorizationCode {
                authorization_url: self.authorization_endpoint(),
                token_url: self.token_endpoint(),
            }),
        }
    }

    /// Removes expired codes, requests, tokens and sessions; how many. The server facade runs
    /// it periodically.
    pub async fn sweep(&self) -> Result<usize, OAuthError> {
        self.inner.grants.sweep().await
    }

    /// Whether users sign in through a development-only sign-in.
    pub fn development_only(&self) -> bool {
        self.inner.settings.sign_in.development_only()
    }
}

impl Inner {
    /// The client `client_id`: described by its metadata document when the id is an https
    /// URL, else registered here.
    pub(crate) async fn client(&self, client_id: &str) -> Result<Client, OAuthError> {
        if crate::cimd::is_document_id(client_id) {
            return match &self.documents {
                Some(documents) => documents.client(client_id, &self.settings.redirects).await,
                None => Err(OAuthError::InvalidClient(format!(
                    "`{client_id}` is a client metadata document, which this server does not                      accept; register the client"
                ))),
            };
        }
        self.grants
            .get::<Client>(CLIENTS, client_id)
            .await?
            .ok_or_else(|| {
                OAuthError::InvalidClient(format!(
                    "client `{client_id}` is not registered here (it may have been deleted);                      register again"
                ))
            })
    }

    /// Where the sign-in is deployed.
    pub(crate) fn sign_in_context(&self) -> crate::SignInContext {
        crate::SignInContext {
            base_url: self.base.clone(),
            secure_cookies: self.secure,
            store: self.grants.store(),
        }
    }

    /// The URL of the endpoint `name` (`authorize`, `token`, …).
    pub(crate) fn endpoint(&self, name: &str) -> String {
        format!("{}/oauth/{name}", self.base)
    }

    /// The path of the endpoint `name` on this server's router (a proxy in front strips the
    /// public URL's path, as it does for the agents' routes).
    pub(crate) fn route(name: &str) -> String {
        format!("/oauth/{name}")
    }

    /// The path of the endpoint `name` as browsers see it: under the public URL's path.
    pub(crate) fn public_path(&self, name: &str) -> String {
        let prefix = Url::parse(&self.base)
            .map(|url| url.path().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        format!("{prefix}/oauth/{name}")
    }

    /// The resource `requested` names, as this server configured it: `None` when it is not one
    /// of its resources. Scheme and host case, default ports and a trailing `/` do not matter.
    pub(crate) fn resource(&self, requested: &str) -> Option<String> {
        let wanted = canonical(requested)?;
        self.resources
            .iter()
            .find(|resource| canonical(resource).as_deref() == Some(wanted.as_str()))
            .cloned()
    }

    /// The scopes that may be granted of those `requested` (RFC 6749 §3.3). Nothing requested
    /// means every scope the agents use. OpenID Connect's identity scopes (`openid`, `profile`,
    /// `email`, and `offline_access`, which SEP-2207 lets clients add to ask for a refresh token;
    /// refresh tokens go to clients that registered the `refresh_token` grant) are accepted and
    /// left out of the token, and so is a scope this server does not know beside known ones: the
    /// token response says what was granted. A request naming only unknown scopes is refused
    /// with `invalid_scope`, naming them: it is a mistake (a misspelt scope, another server's),
    /// and granting nothing in silence would leave the client with a token that reaches nothing.
    pub(crate) fn scopes_of(&self, requested: Option<&str>) -> Result<Vec<String>, OAuthError> {
        let Some(words) = requested else {
            return Ok(self.scopes.clone());
        };
        let mut granted: Vec<String> = Vec::new();
        let mut unknown: Vec<&str> = Vec::new();
        for word in words.split_whitespace() {
            if self.scopes.iter().any(|s| s == word) {
                if !granted.iter().any(|g| g == word) {
                    granted.push(word.to_owned());
                }
            } else if !IDENTITY_SCOPES.contains(&word) {
                unknown.push(word);
            }
        }
        if granted.is_empty() && !unknown.is_empty() {
            return Err(OAuthError::InvalidScope(format!(
                "`scope` names {} that this server does not grant; its scopes are {}",
                a2a_runtime_types::util::echoed(&unknown.join(" ")),
                self.scopes.join(" ")
            )));
        }
        Ok(granted)
    }
}

/// A resource URI in a form two spellings of it share; `None` if it is not an absolute URL
/// without a fragment.
pub(crate) fn canonical(uri: &str) -> Option<String> {
    let url = Url::parse(uri).ok()?;
    if url.fragment().is_some() || url.host().is_none() {
        return None;
    }
    let text = url.as_str();
    Some(if url.path() != "/" {
        text.trim_end_matches('/').to_owned()
    } else {
        text.to_owned()
    })
}

/// `keys` as the agents verify with them: with the revocations kept in `grants`.
fn own_keys(
    keys: &Arc<SigningKeys>,
    grants: &Grants,
    revocations: &Arc<std::sync::atomic::AtomicU64>,
) -> Arc<dyn a2a_runtime_core::auth::KeyProvider> {
    Arc::new(crate::revoked::OwnKeys::new(
        Arc::clone(keys),
        grants.clone(),
        Arc::clone(revocations),
    ))
}

/// How the tokens `keys` sign as `issuer` are verified, for `audiences`.
fn own_tokens(
    keys: &Arc<dyn a2a_runtime_core::auth::KeyProvider>,
    issuer: &str,
    audiences: &[String],
) -> JwtConfig {
    let keys = Arc::clone(keys);
    // The issuer's clock is this server's (or a replica's): little skew to allow for.
    let config = JwtConfig::provided(keys)
        .issuer(issuer)
        .leeway(std::time::Duration::from_secs(5));
    audiences
        .iter()
        .fold(config, |config, audience| config.audience(audience))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryGrants;

    fn server(base: &str) -> AuthorizationServer {
        AuthorizationServer::new(
            OAuthServer::dev_user("alice"),
            Deployment {
                base_url: base.into(),
                resources: vec![format!("{}/mcp", base.trim_end_matches('/'))],
                scopes: vec!["notes:read".into(), "notes:write".into()],
                admin_auth: None,
            },
            Arc::new(MemoryGrants::default()),
        )
        .unwrap()
    }

    #[test]
    fn a_root_issuer_ends_in_a_slash_and_endpoints_hang_off_the_base() {
        let server = server("http://127.0.0.1:8080");
        assert_eq!(server.issuer(), "http://127.0.0.1:8080/");
        assert_eq!(server.token_endpoint(), "http://127.0.0.1:8080/oauth/token");
        let prefixed = self::server("https://agents.example/team/");
        assert_eq!(prefixed.issuer(), "https://agents.example/team");
        assert_eq!(prefixed.inner.public_path("consent"), "/team/oauth/consent");
        assert_eq!(Inner::route("token"), "/oauth/token");
    }

    #[test]
    fn resources_match_whatever_their_spelling() {
        let server = server("http://127.0.0.1:8080");
        let ours = Some("http://127.0.0.1:8080/mcp".to_owned());
        assert_eq!(server.inner.resource("HTTP://127.0.0.1:8080/mcp/"), ours);
        assert_eq!(server.inner.resource("http://127.0.0.1:8080/other"), None);
        assert_eq!(server.inner.resource("http://127.0.0.1:8080/mcp#x"), None);
    }

    #[test]
    fn unknown_scopes_are_left_out_beside_known_ones_and_refused_alone() {
        let server = server("http://127.0.0.1:8080");
        let granted = |scope: Option<&str>| server.inner.scopes_of(scope).unwrap();
        assert_eq!(
            granted(Some("notes:read openid other:x notes:read offline_access")),
            ["notes:read"]
        );
        assert_eq!(granted(None), ["notes:read", "notes:write"]);
        assert!(granted(Some("offline_access openid")).is_empty());
        assert!(granted(Some("")).is_empty());
        let refused = server.inner.scopes_of(Some("notes:raed offline_access"));
        let refused = refused.unwrap_err();
        assert_eq!(refused.code(), "invalid_scope");
        assert!(
            refused.to_string().contains("notes:raed")
                && refused.to_string().contains("notes:write"),
            "{refused}"
        );
    }
}
