//! How bearer JWTs are verified, as configured: a shared secret (HS256) or keys from a JWKS,
//! the expected issuer and audience. The verifier itself is `jwt_verify.rs` (the `jwt`
//! feature).

use std::sync::Arc;
use std::time::Duration;

/// How bearer JWTs are verified: with a shared secret (HS256) or with public keys from a JWKS
/// (found directly, or through OpenID Connect / OAuth 2 metadata), plus the expected issuer and
/// audience.
#[derive(Clone)]
pub struct JwtConfig {
    pub keys: KeySource,
    pub issuer: Option<String>,
    pub audience: Vec<String>,
    pub leeway: Duration,
    pub cache_ttl: Duration,
}

/// Where the verification keys come from.
#[derive(Clone)]
pub enum KeySource {
    Secret(Arc<[u8]>),
    /// A JWKS document's URL.
    Jwks(String),
    /// OpenID Connect discovery or RFC 8414 metadata, whose `jwks_uri` names the JWKS.
    Metadata(String),
    /// A JWKS this process holds itself (its own authorization server's signing keys).
    Provided(Arc<dyn KeyProvider>),
}

/// Keys held in this process, handed over as a JWKS document: how a server verifies the
/// tokens its own authorization server signs, without an HTTP round trip to itself.
pub trait KeyProvider: Send + Sync + 'static {
    /// The current key set (`{"keys": [...]}`); asked again when a token names a key id the
    /// last answer did not hold.
    fn key_set(&self) -> a2a_runtime_types::util::BoxFuture<'_, Result<serde_json::Value, String>>;

    /// Whether the token with these (verified) claims was revoked before it expired (RFC
    /// 7009): asked when a token is verified, not on each request a verified token is cached
    /// for. None are, unless the provider keeps revocations.
    fn revoked<'a>(
        &'a self,
        claims: &'a serde_json::Map<String, serde_json::Value>,
    ) -> a2a_runtime_types::util::BoxFuture<'a, Result<bool, String>> {
        let _ = claims;
        Box::pin(async { Ok(false) })
    }

    /// How many revocations this process has made: when it changes, tokens verified before are
    /// verified again (one atomic read per request).
    fn revocations(&self) -> u64 {
        0
    }
}

impl std::fmt::Debug for JwtConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = match &self.keys {
            KeySource::Secret(_) => "HS256 secret (redacted)".to_owned(),
            KeySource::Jwks(url) => format!("JWKS {url}"),
            KeySource::Metadata(url) => format!("metadata {url}"),
            KeySource::Provided(_) => "keys held by this process".to_owned(),
        };
        f.debug_struct("JwtConfig")
            .field("keys", &keys)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("cache_ttl", &self.cache_ttl)
            .finish()
    }
}

/// The shortest HS256 secret accepted (RFC 7518 §3.2: at least the hash size).
const MIN_SECRET_BYTES: usize = 32;

/// Clock skew tolerated on `exp` and `nbf`.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// How long a verified token is trusted by default: a client's repeated requests with one token
/// pay for one signature check a minute.
const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);

impl JwtConfig {
    /// Tokens signed with HS256 and `secret` (at least 32 bytes).
    pub fn hs256(secret: impl AsRef<[u8]>) -> Self {
        Self::with_keys(KeySource::Secret(Arc::from(secret.as_ref())))
    }

    /// Tokens signed with a key of the JWKS at `url` (RS256, RS384, RS512, PS256, ES256, ES384
    /// or EdDSA, as each key says). The set is cached; a token naming an unknown `kid` makes
    /// the server fetch it again (at most every few seconds), so keys can rotate.
    pub fn jwks(url: impl Into<String>) -> Self {
        Self::with_keys(KeySource::Jwks(url.into()))
    }

    /// Tokens of the OpenID Connect provider or OAuth 2 authorization server whose metadata
    /// document is at `url`: its `jwks_uri` gives the keys and its `issuer` the expected `iss`
    /// (unless [`issuer`](Self::issuer) sets one).
    pub fn discover(url: impl Into<String>) -> Self {
        Self::with_keys(KeySource::Metadata(url.into()))
    }

    /// Tokens signed with a key of the set `keys` hands over (this process's own
    /// authorization server); set the [`issuer`](Self::issuer) it signs as.
    pub fn provided(keys: Arc<dyn KeyProvider>) -> Self {
        Self::with_keys(KeySource::Provided(keys))
    }

    fn with_keys(keys: KeySource) -> Self {
        Self {
            keys,
            issuer: None,
            audience: Vec::new(),
            leeway: DEFAULT_LEEWAY,
            cache_ttl: DEFAULT_CACHE_TTL,
        }
    }

    /// Only tokens whose `iss` is `issuer`.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Only tokens whose `aud` includes `audience` (may be given several times: any one).
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience.push(audience.into());
        self
    }

    /// The clock skew tolerated on `exp` and `nbf` (30 s unless set).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long a verified token is trusted without checking its signature again (60 s unless
    /// set; `Duration::ZERO` checks every request). `exp` and `nbf` are checked on every
    /// request regardless; a key removed from the JWKS stops being honoured after this long.
    #[must_use]
    pub fn verified_cache(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Checks what can be checked before serving.
    pub fn validate(&self) -> Result<(), String> {
        match &self.keys {
            KeySource::Secret(secret) if secret.len() < MIN_SECRET_BYTES => Err(format!(
                "the HS256 secret is {} bytes; use at least {MIN_SECRET_BYTES}",
                secret.len()
            )),
            KeySource::Secret(_) => Ok(()),
            KeySource::Jwks(url) | KeySource::Metadata(url) => check_url(url),
            KeySource::Provided(_) => Ok(()),
        }
    }
}

/// Key URLs must be https, except on loopback (tests and local development).
pub fn check_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("`{url}` is not a valid URL: {e}"))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(host)) => host == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(format!(
            "`{url}` must be an https URL (plain http is accepted on loopback only)"
        )),
    }
}
