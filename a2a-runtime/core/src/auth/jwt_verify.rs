//! Bearer JWTs verified: HS256 with a shared secret, or RS256/ES256 (and their siblings) with
//! keys from a JWKS; `exp`, `nbf`, `iss` and `aud` checked with a small leeway. Serves the
//! `bearer`, `oauth2` and `oidc` schemes.

use std::sync::Arc;
use std::time::Duration;

use http::request::Parts;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::authenticator::{bearer_token, challenge};
use super::jwks::KeySet;
use super::jwt::{JwtConfig, KeySource};
use super::token_cache::TokenCache;
use super::{AuthError, Authenticator, Caller};
use a2a_runtime_types::util::BoxFuture;

/// Verifies bearer JWTs for one scheme, from one issuer or several: a token goes to the issuer
/// its (unverified) `iss` names, and is verified with that issuer's keys and rules.
pub struct JwtAuthenticator {
    scheme: String,
    /// The first is the scheme's own configuration; the others are trusted issuers, each with
    /// its `iss` fixed.
    issuers: Vec<Issuer>,
    verified: TokenCache,
    /// The revocations of the key providers, as of the cache's entries.
    revocations: std::sync::atomic::AtomicU64,
}

/// One issuer's keys and rules.
struct Issuer {
    keys: Keys,
    issuer: Option<String>,
    audience: Vec<String>,
    leeway: Duration,
    /// Whether tokens must be typed as access tokens (`typ: at+jwt`, RFC 9068 §4): required of
    /// the tokens this process's own authorization server signs, which always are; other
    /// issuers' tokens are often typed `JWT`, or not at all.
    access_tokens_only: bool,
    /// This process's own authorization server, which knows what it revoked.
    provider: Option<Arc<dyn super::jwt::KeyProvider>>,
}

enum Keys {
    Secret(DecodingKey),
    Set(KeySet),
}

/// The algorithms accepted with public keys. `none` and HMAC never are (a public key must not
/// double as an HMAC secret).
const PUBLIC_KEY_ALGORITHMS: [Algorithm; 7] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl JwtAuthenticator {
    /// Tokens of the one issuer `config` describes.
    pub fn new(scheme: &str, config: &JwtConfig) -> Self {
        Self::trusting(scheme, config, &[])
    }

    /// Tokens of `config`'s issuer, and of each of `others` (whose `issuer` is set: it is how a
    /// token is matched to them).
    pub fn trusting(scheme: &str, config: &JwtConfig, others: &[JwtConfig]) -> Self {
        Self {
            scheme: scheme.to_owned(),
            issuers: std::iter::once(config)
                .chain(others)
                .map(Issuer::new)
                .collect(),
            verified: TokenCache::new(config.cache_ttl),
            revocations: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The claims of `token` once verified, as a request bearing it would be authenticated
    /// (what the authorization server checks of a token presented for revocation).
    ///
    /// # Errors
    ///
    /// Why the token is not one of these issuers' valid tokens.
    pub async fn verify_token(&self, token: &str) -> Result<Caller, AuthError> {
        self.verify(token).await
    }

    /// Forgets the verified tokens when a key provider revoked one since they were cached.
    fn forget_if_revoked(&self) {
        use std::sync::atomic::Ordering;
        let made: u64 = self
            .issuers
            .iter()
            .filter_map(|issuer| issuer.provider.as_ref())
            .map(|provider| provider.revocations())
            .sum();
        // Read first: a write on every request would bounce the line between cores.
        if self.revocations.load(Ordering::Relaxed) != made {
            self.revocations.store(made, Ordering::Relaxed);
            self.verified.clear();
        }
    }

    /// The issuer that verifies `token`: the trusted one its `iss` names, else the scheme's
    /// own (which refuses an `iss` it does not expect).
    fn issuer_of(&self, token: &str) -> &Issuer {
        let named = match self.issuers.len() {
            1 => None,
            _ => unverified_issuer(token),
        };
        named
            .and_then(|iss| {
                self.issuers
                    .iter()
                    .find(|issuer| issuer.issuer.as_deref() == Some(iss.as_str()))
            })
            .unwrap_or(&self.issuers[0])
    }

    async fn verify(&self, token: &str) -> Result<Caller, AuthError> {
        let now = chrono::Utc::now().timestamp();
        self.forget_if_revoked();
        if let Some(caller) = self.verified.get(token, now) {
            return Ok(caller);
        }
        let issuer = self.issuer_of(token);
        let claims = issuer.verify(token).await?;
        if let Some(provider) = &issuer.provider
            // Fails closed: a token whose revocation cannot be read is not honoured.
            && provider.revoked(&claims).await.map_err(|e| {
                AuthError::invalid(format!("whether the token was revoked is unknown: {e}"))
            })?
        {
            return Err(AuthError::invalid("the token was revoked"));
        }
        let principal = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|sub| !sub.is_empty())
            .ok_or_else(|| AuthError::invalid("the token has no `sub` claim"))?
            .to_owned();
        let scopes = scopes_of(&claims);
        let leeway = i64::try_from(issuer.leeway.as_secs()).unwrap_or(i64::MAX);
        let time = |name: &str| claims.get(name).and_then(Value::as_i64);
        // `exp` is required, so validation guaranteed it; `nbf` is optional.
        let expires = time("exp").map_or(i64::MIN, |exp| exp.saturating_add(leeway));
        let not_before = time("nbf").map_or(i64::MIN, |nbf| nbf.saturating_sub(leeway));
        let caller = Caller::authenticated(&self.scheme, principal)
            .with_scopes(scopes)
            .with_claims(claims);
        self.verified.insert(token, &caller, not_before, expires);
        Ok(caller)
    }
}

impl Issuer {
    fn new(config: &JwtConfig) -> Self {
        let keys = match &config.keys {
            KeySource::Secret(secret) => Keys::Secret(DecodingKey::from_secret(secret)),
            KeySource::Jwks(url) => Keys::Set(KeySet::jwks(url)),
            KeySource::Metadata(url) => Keys::Set(KeySet::metadata(url)),
            KeySource::Provided(keys) => Keys::Set(KeySet::provided(keys)),
        };
        Self {
            keys,
            issuer: config.issuer.clone(),
            audience: config.audience.clone(),
            leeway: config.leeway,
            access_tokens_only: matches!(config.keys, KeySource::Provided(_)),
            provider: match &config.keys {
                KeySource::Provided(keys) => Some(Arc::clone(keys)),
                _ => None,
            },
        }
    }

    /// The claims of `token`, verified with this issuer's keys, `iss` and `aud`.
    async fn verify(&self, token: &str) -> Result<Map<String, Value>, AuthError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| AuthError::invalid("the bearer token is not a JWT"))?;
        if let Some(names) = &header.crit {
            // RFC 7515 §4.1.11: a token naming extensions its recipient must understand, and
            // this one understands none.
            return Err(AuthError::invalid(format!(
                "the token's header names critical extensions this server does not \
                 understand (`crit`: {})",
                a2a_runtime_types::util::echoed(&names.join(", "))
            )));
        }
        if self.access_tokens_only
            && !header.typ.as_deref().is_some_and(|typ| {
                typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("application/at+jwt")
            })
        {
            return Err(AuthError::invalid(
                "the token is not an access token (its `typ` is not `at+jwt`, RFC 9068)",
            ));
        }
        let (key, algorithms, issuer) = match &self.keys {
            Keys::Secret(key) => (key.clone(), vec![Algorithm::HS256], self.issuer.clone()),
            Keys::Set(set) => {
                if !PUBLIC_KEY_ALGORITHMS.contains(&header.alg) {
                    return Err(AuthError::invalid(format!(
                        "the token's algorithm {:?} is not accepted",
                        header.alg
                    )));
                }
                let found = set.key(header.kid.as_deref()).await?;
                if found.key.family() != header.alg.family() {
                    return Err(AuthError::invalid(format!(
                        "the token's algorithm {:?} does not match its key",
                        header.alg
                    )));
                }
                let issuer = self.issuer.clone().or(found.issuer);
                (found.key, vec![header.alg], issuer)
            }
        };
        let mut validation = Validation::new(header.alg);
        validation.algorithms = algorithms;
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        // A configured issuer or audience is a required claim (RFC 8725 §3.9): jsonwebtoken
        // checks `iss` and `aud` only when the token carries them, so a token without them
        // would otherwise pass.
        let mut required = vec!["exp", "sub"];
        if let Some(issuer) = &issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        if self.audience.is_empty() {
            validation.validate_aud = false;
        } else {
            validation.set_audience(&self.audience);
            required.push("aud");
        }
        validation.set_required_spec_claims(&required);
        jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map(|data| data.claims)
            .map_err(|e| refusal(e.kind(), token, &issuer, &self.audience))
    }
}

/// The claims of a token, read without verifying anything: only to choose the issuer whose
/// keys then verify it, and to say what a refused token carried.
fn unverified_claims(token: &str) -> Option<Map<String, Value>> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The `iss` a token claims, unverified (see [`unverified_claims`]).
fn unverified_issuer(token: &str) -> Option<String> {
    unverified_claims(token)?
        .get("iss")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// What a refused token carried in claim `name`, quoted for an error message.
fn carried(token: &str, name: &str) -> String {
    let values: Vec<String> = match unverified_claims(token).and_then(|c| c.get(name).cloned()) {
        Some(Value::String(one)) => vec![one],
        Some(Value::Array(many)) => many
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return "nothing".to_owned(),
    };
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    a2a_runtime_types::util::echoed(&quoted.join(", ")).into_owned()
}

/// A hint when a refused `iss` or `aud` differs from the expected one only in a way people
/// get wrong: a trailing `/`, or `localhost` for `127.0.0.1` (different names to OAuth).
fn near_miss(found: &str, expected: &[String]) -> &'static str {
    let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    let loopback = |a: &str| a.replace("://localhost", "://127.0.0.1");
    if expected.iter().any(|e| same(e, found)) {
        " (they differ only in the trailing `/`: use the value exactly as the authorization \
         server's metadata gives it)"
    } else if expected
        .iter()
        .any(|e| same(&loopback(e), &loopback(found)))
    {
        " (`localhost` and `127.0.0.1` are different names to OAuth: use the one the server's \
         public URL names)"
    } else {
        ""
    }
}

/// The scopes a token grants: OAuth's space-separated `scope`, or `scp` (a list or a string,
/// as some providers send it).
fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => words(scope),
        (_, Some(Value::String(scp))) => words(scp),
        (_, Some(Value::Array(scp))) => scp
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Why a token was refused, in words a client can act on.
fn refusal(
    kind: &ErrorKind,
    token: &str,
    issuer: &Option<String>,
    audience: &[String],
) -> AuthError {
    AuthError::invalid(match kind {
        ErrorKind::ExpiredSignature => "the token expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_owned(),
        ErrorKind::InvalidIssuer => {
            let expected: Vec<String> = issuer.iter().cloned().collect();
            let found = unverified_issuer(token).unwrap_or_default();
            format!(
                "the token's `iss` is {}, not `{}`{}",
                carried(token, "iss"),
                issuer.as_deref().unwrap_or("the expected issuer"),
                near_miss(&found, &expected)
            )
        }
        ErrorKind::InvalidAudience => {
            let found = carried(token, "aud");
            let hint = unverified_claims(token)
                .and_then(|c| c.get("aud").and_then(Value::as_str).map(str::to_owned))
                .map_or("", |aud| near_miss(&aud, audience));
            format!(
                "the token's `aud` is {found}, which does not include `{}`{hint}",
                audience.join("` or `")
            )
        }
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not match its key".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's `{claim}` claim is malformed"),
        _ => "the bearer token is not valid".to_owned(),
    })
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(
        &'a self,
        request: &'a Parts,
    ) -> BoxFuture<'a, Result<Option<Caller>, AuthError>> {
        Box::pin(async move {
            match bearer_token(&request.headers) {
                None => Ok(None),
                Some(token) => self.verify(token).await.map(Some),
            }
        })
    }

    fn challenge(&self, error: Option<&AuthError>) -> String {
        challenge("Bearer realm=\"agent\"".to_owned(), "invalid_token", error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_near_miss_of_issuer_or_audience_is_named() {
        let expected = ["http://127.0.0.1:8080/".to_owned()];
        assert!(near_miss("http://127.0.0.1:8080", &expected).contains("trailing `/`"));
        assert!(near_miss("http://localhost:8080/", &expected).contains("`localhost`"));
        assert_eq!(near_miss("https://other.example/", &expected), "");
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let claims = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(scopes_of(&claims(json!({"scope": "a b"}))), ["a", "b"]);
        assert_eq!(scopes_of(&claims(json!({"scp": ["a", "c"]}))), ["a", "c"]);
        assert!(scopes_of(&claims(json!({}))).is_empty());
    }
}
