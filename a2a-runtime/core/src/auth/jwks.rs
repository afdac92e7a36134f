//! A cached JWKS: fetched on first use, refreshed when it grows old, and fetched again when a
//! token names a key id it does not hold (key rotation), at most once per cool-down.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::JwkSet;
use serde::Deserialize;

use super::AuthError;
use super::jwt::{KeyProvider, check_url};

/// How long a fetched set is used before it is fetched again.
const MAX_AGE: Duration = Duration::from_secs(300);

/// The least time between two fetches, so tokens with made-up key ids cannot make the server
/// hammer the key provider.
const COOL_DOWN: Duration = Duration::from_secs(1);

/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest key document accepted.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// A verification key and the issuer its metadata names.
pub struct FoundKey {
    pub key: DecodingKey,
    pub issuer: Option<String>,
}

/// Keys fetched from a JWKS or through a metadata document.
pub struct KeySet {
    source: Source,
    /// The client fetches go out with; the reason when HTTPS could not be set up (each fetch
    /// then fails saying so, as an unreachable key set would).
    client: Result<reqwest::Client, String>,
    cache: RwLock<Cache>,
    /// One fetch at a time; requests that need one wait for it rather than start their own.
    fetching: tokio::sync::Mutex<()>,
}

enum Source {
    Jwks(String),
    Metadata(String),
    Provided(Arc<dyn KeyProvider>),
}

#[derive(Default)]
struct Cache {
    /// Keys by `kid`; a key without one is stored under "".
    keys: HashMap<String, DecodingKey>,
    issuer: Option<String>,
    fetched: Option<Instant>,
}

impl Cache {
    /// The usable keys of `set`, fetched now.
    fn of(set: &JwkSet, issuer: Option<String>) -> Self {
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            // Keys of types this build cannot use (or encryption keys) are skipped, not fatal.
            if let Ok(key) = DecodingKey::from_jwk(jwk) {
                keys.insert(jwk.common.key_id.clone().unwrap_or_default(), key);
            }
        }
        Self {
            keys,
            issuer,
            fetched: Some(Instant::now()),
        }
    }
}

/// The parts of OpenID Connect discovery / RFC 8414 metadata used here.
#[derive(Deserialize)]
struct Metadata {
    jwks_uri: String,
    issuer: Option<String>,
}

impl KeySet {
    pub fn jwks(url: &str) -> Self {
        Self::new(Source::Jwks(url.to_owned()))
    }

    pub fn metadata(url: &str) -> Self {
        Self::new(Source::Metadata(url.to_owned()))
    }

    pub fn provided(keys: &Arc<dyn KeyProvider>) -> Self {
        Self::new(Source::Provided(Arc::clone(keys)))
    }

    fn new(source: Source) -> Self {
        let client = a2a_runtime_types::https::client_builder()
            .map_err(|e| e.to_string())
            .and_then(|builder| {
                builder
                    .timeout(FETCH_TIMEOUT)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| format!("the key set's client cannot start: {e}"))
            });
        Self {
            source,
            client,
            cache: RwLock::new(Cache::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The key for `kid`, fetching the set when it is missing, old, or lacks that key.
    pub async fn key(&self, kid: Option<&str>) -> Result<FoundKey, AuthError> {
        let kid = kid.unwrap_or("");
        if let Some(found) = self.cached(kid, false) {
            return Ok(found);
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(found) = self.cached(kid, false) {
            return Ok(found);
        }
        // Keys held in this process cost nothing to ask for again.
        let fetched_recently = !matches!(self.source, Source::Provided(_))
            && self
                .read()
                .fetched
                .is_some_and(|at| at.elapsed() < COOL_DOWN);
        if !fetched_recently {
            match self.fetch().await {
                Ok(cache) => *self.write() = cache,
                Err(reason) => {
                    tracing::warn!(%reason, "could not fetch the JWKS");
                    // Keys fetched before keep working while the provider is unreachable.
                    if let Some(found) = self.cached(kid, true) {
                        return Ok(found);
                    }
                    return Err(AuthError::invalid(
                        "the token's signing keys could not be fetched; retry later",
                    ));
                }
            }
        }
        self.cached(kid, true).ok_or_else(|| {
            AuthError::invalid(if kid.is_empty() {
                "the token names no `kid` and the key set has no default key".to_owned()
            } else {
                format!("the token's key id `{kid}` is not in the key set")
            })
        })
    }

    /// The cached key for `kid`; unless `stale_ok`, only from a set younger than its max age.
    fn cached(&self, kid: &str, stale_ok: bool) -> Option<FoundKey> {
        let cache = self.read();
        let fresh = cache.fetched.is_some_and(|at| at.elapsed() < MAX_AGE);
        if !fresh && !stale_ok {
            return None;
        }
        let key = cache.keys.get(kid).or_else(|| {
            // A token without `kid` may use the set's only key.
            (kid.is_empty() && cache.keys.len() == 1)
                .then(|| cache.keys.values().next())
                .flatten()
        })?;
        Some(FoundKey {
            key: key.clone(),
            issuer: cache.issuer.clone(),
        })
    }

    async fn fetch(&self) -> Result<Cache, String> {
        let (jwks_url, issuer) = match &self.source {
            Source::Provided(keys) => {
                let set: JwkSet = serde_json::from_value(keys.key_set().await?)
                    .map_err(|e| format!("the provided key set: {e}"))?;
                return Ok(Cache::of(&set, None));
            }
            Source::Jwks(url) => (url.clone(), None),
            Source::Metadata(url) => {
                let metadata: Metadata = self.get_json(url).await?;
                check_url(&metadata.jwks_uri)?;
                (metadata.jwks_uri, metadata.issuer)
            }
        };
        let set: JwkSet = self.get_json(&jwks_url).await?;
        Ok(Cache::of(&set, issuer))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let client = self
            .client
            .as_ref()
            .map_err(|e| format!("GET {url}: {e}"))?;
        let response = client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if body.len() > MAX_DOCUMENT_BYTES {
            return Err(format!(
                "GET {url}: the document exceeds {MAX_DOCUMENT_BYTES} bytes"
            ));
        }
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: {e}"))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Cache> {
        self.cache
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Cache> {
        self.cache
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
