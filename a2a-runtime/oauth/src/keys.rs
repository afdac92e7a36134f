//! The keys access tokens are signed with: ES256 (P-256), each named by its RFC 7638
//! thumbprint (`kid`). Generated keys live in the grant store, so replicas and restarts share
//! them, and rotate: a new key signs once the newest is older than the rotation period, and a
//! retired key stays in the JWKS until every token it signed has expired. A supplied key
//! (`--oauth-signing-key`) is used as it is and never rotated.

use std::sync::RwLock;
use std::time::{Duration, Instant};

use a2a_runtime_core::auth::KeyProvider;
use a2a_runtime_types::util::BoxFuture;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::SecretKey;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use p256::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::OAuthError;
use crate::store::{Grants, KEYS, now};

/// How often the key set is read again from the store, to learn keys other replicas made.
const RELOAD_EVERY: Duration = Duration::from_secs(60);

/// Time past a retired key's last token during which it is still served (clock skew).
const RETIRED_GRACE: i64 = 300;

/// A signing key as stored.
#[derive(Serialize, Deserialize)]
struct StoredKey {
    key: String,
    /// PKCS#8 v1 DER, base64.
    pkcs8: String,
    created: i64,
    /// When a newer key replaced it.
    retired: Option<i64>,
}

/// A key ready to sign and to publish.
struct Key {
    kid: String,
    created: i64,
    retired: Option<i64>,
    encoding: EncodingKey,
    jwk: Value,
}

impl Key {
    fn from_pkcs8(pkcs8: &[u8], created: i64, retired: Option<i64>) -> Result<Self, String> {
        let secret = SecretKey::from_pkcs8_der(pkcs8)
            .map_err(|e| format!("not a P-256 private key: {e}"))?;
        let encoded = secret.public_key().to_encoded_point(false);
        let point = encoded.as_bytes();
        if point.len() != 65 || point[0] != 4 {
            return Err("the public key is not an uncompressed P-256 point".to_owned());
        }
        let x = URL_SAFE_NO_PAD.encode(&point[1..33]);
        let y = URL_SAFE_NO_PAD.encode(&point[33..65]);
        // RFC 7638: the members in lexicographic order, no whitespace.
        let thumbprint_input = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let kid = crate::secret::digest_of(&thumbprint_input);
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "x": x, "y": y,
            "use": "sig", "alg": "ES256", "kid": kid,
        });
        Ok(Self {
            kid,
            created,
            retired,
            encoding: EncodingKey::from_ec_der(pkcs8),
            jwk,
        })
    }

    fn generate(created: i64) -> Result<(Self, Vec<u8>), String> {
        let pkcs8 = generate_pkcs8()?;
        Ok((Self::from_pkcs8(&pkcs8, created, None)?, pkcs8))
    }
}

/// A new P-256 private key as PKCS#8 DER: 32 random bytes, drawn again in the rare case
/// (about 2^-32) they are not a valid scalar.
fn generate_pkcs8() -> Result<Vec<u8>, String> {
    let failed = |reason: String| format!("could not generate a signing key: {reason}");
    loop {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| failed(e.to_string()))?;
        if let Ok(secret) = SecretKey::from_slice(&bytes) {
            let document = secret.to_pkcs8_der().map_err(|e| failed(e.to_string()))?;
            return Ok(document.as_bytes().to_vec());
        }
    }
}

/// A supplied private key (PKCS#8, or SEC 1 as `openssl ecparam` writes it) as PKCS#8 DER.
fn supplied_pkcs8(der: &[u8]) -> Result<Vec<u8>, String> {
    let secret = SecretKey::from_pkcs8_der(der)
        .or_else(|_| SecretKey::from_sec1_der(der))
        .map_err(|e| format!("the signing key is not a P-256 private key: {e}"))?;
    let document = secret
        .to_pkcs8_der()
        .map_err(|_| "the signing key cannot be read".to_owned())?;
    Ok(document.as_bytes().to_vec())
}

/// The signing keys of one authorization server.
pub(crate) struct SigningKeys {
    grants: Grants,
    supplied: Option<Key>,
    rotate_after: Duration,
    token_ttl: Duration,
    /// Newest first.
    keys: RwLock<Vec<Key>>,
    /// When the store was last read; one reader at a time.
    loaded: tokio::sync::Mutex<Option<Instant>>,
}

impl SigningKeys {
    /// Keys kept in `grants`, or the one supplied as a PEM private key (PKCS#8 or SEC 1).
    pub(crate) fn new(
        grants: Grants,
        supplied_pem: Option<&str>,
        rotate_after: Duration,
        token_ttl: Duration,
    ) -> Result<Self, String> {
        let supplied = supplied_pem
            .map(|pem| {
                let pkcs8 = supplied_pkcs8(&pem_der(pem)?)?;
                Key::from_pkcs8(&pkcs8, 0, None)
            })
            .transpose()?;
        Ok(Self {
            grants,
            supplied,
            rotate_after,
            token_ttl,
            keys: RwLock::new(Vec::new()),
            loaded: tokio::sync::Mutex::new(None),
        })
    }

    /// `claims` signed with the current key, as an RFC 9068 access token (`typ: at+jwt`).
    pub(crate) async fn sign(&self, claims: &Value) -> Result<String, OAuthError> {
        let header = |kid: &str| Header {
            typ: Some("at+jwt".to_owned()),
            kid: Some(kid.to_owned()),
            ..Header::new(Algorithm::ES256)
        };
        let signed = |key: &Key| {
            jsonwebtoken::encode(&header(&key.kid), claims, &key.encoding)
                .map_err(|e| OAuthError::store("sign an access token", e))
        };
        if let Some(key) = &self.supplied {
            return signed(key);
        }
        self.ensure_current().await?;
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = keys
            .iter()
            .find(|key| key.retired.is_none())
            .ok_or_else(|| OAuthError::store("find a signing key", "none is current"))?;
        signed(key)
    }

    /// The public keys, as a JWKS document: every key whose tokens may still be live.
    pub(crate) async fn jwks(&self) -> Result<Value, OAuthError> {
        if let Some(key) = &self.supplied {
            return Ok(json!({ "keys": [key.jwk] }));
        }
        self.ensure_current().await?;
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let published: Vec<&Value> = keys.iter().map(|key| &key.jwk).collect();
        Ok(json!({ "keys": published }))
    }

    /// Reads the stored keys when they are old, and makes a new one when none is current or
    /// the newest is due for rotation.
    async fn ensure_current(&self) -> Result<(), OAuthError> {
        let mut loaded = self.loaded.lock().await;
        let fresh = loaded.is_some_and(|at| at.elapsed() < RELOAD_EVERY);
        if fresh && !self.rotation_due() {
            return Ok(());
        }
        self.load().await?;
        if self.rotation_due() {
            self.rotate().await?;
            self.load().await?;
        }
        *loaded = Some(Instant::now());
        Ok(())
    }

    fn rotation_due(&self) -> bool {
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let rotate_after = i64::try_from(self.rotate_after.as_secs()).unwrap_or(i64::MAX);
        keys.iter()
            .find(|key| key.retired.is_none())
            .is_none_or(|key| now().saturating_sub(key.created) >= rotate_after)
    }

    /// Reads the stored keys, dropping those retired longer ago than any token they signed can
    /// live.
    async fn load(&self) -> Result<(), OAuthError> {
        let stored: Vec<StoredKey> = self.grants.list(KEYS, 64).await?;
        let ttl = i64::try_from(self.token_ttl.as_secs()).unwrap_or(i64::MAX);
        let now = now();
        let mut keys = Vec::new();
        for key in stored {
            if key
                .retired
                .is_some_and(|retired| retired.saturating_add(ttl + RETIRED_GRACE) < now)
            {
                self.grants.delete(KEYS, &key.key).await?;
                continue;
            }
            let Ok(pkcs8) = STANDARD.decode(&key.pkcs8) else {
                tracing::warn!(kid = %key.key, "a stored signing key is not base64; skipped");
                continue;
            };
            match Key::from_pkcs8(&pkcs8, key.created, key.retired) {
                Ok(key) => keys.push(key),
                Err(reason) => {
                    tracing::warn!(kid = %key.key, %reason, "stored signing key skipped");
                }
            }
        }
        // Newest first; of two current keys (replicas that rotated at once) the newer signs
        // and the other is published until it is retired at the next rotation.
        keys.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.kid.cmp(&b.kid)));
        *self
            .keys
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = keys;
        Ok(())
    }

    /// Stores a new key and retires the ones it replaces.
    async fn rotate(&self) -> Result<(), OAuthError> {
        let now = now();
        let (key, pkcs8) =
            Key::generate(now).map_err(|e| OAuthError::store("generate a signing key", e))?;
        self.grants
            .put(
                KEYS,
                &key.kid,
                &StoredKey {
                    key: key.kid.clone(),
                    pkcs8: STANDARD.encode(&pkcs8),
                    created: now,
                    retired: None,
                },
            )
            .await?;
        let stored: Vec<StoredKey> = self.grants.list(KEYS, 64).await?;
        for mut old in stored {
            if old.key != key.kid && old.retired.is_none() {
                old.retired = Some(now);
                self.grants.put(KEYS, &old.key.clone(), &old).await?;
            }
        }
        tracing::info!(kid = %key.kid, "authorization server: a new signing key signs tokens");
        Ok(())
    }
}

impl KeyProvider for SigningKeys {
    fn key_set(&self) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { self.jwks().await.map_err(|e| e.to_string()) })
    }
}

/// The DER inside a PEM document.
fn pem_der(pem: &str) -> Result<Vec<u8>, String> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("-----") && !line.is_empty())
        .collect();
    if body.is_empty() {
        return Err("the signing key file holds no PEM block".to_owned());
    }
    STANDARD
        .decode(body)
        .map_err(|e| format!("the signing key file is not PEM: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryGrants;
    use std::sync::Arc;

    fn keys(rotate_after: Duration) -> SigningKeys {
        let grants = Grants::new(Arc::new(MemoryGrants::default()));
        SigningKeys::new(grants, None, rotate_after, Duration::from_secs(600)).unwrap()
    }

    #[tokio::test]
    async fn a_signed_token_verifies_with_the_published_key() {
        let keys = keys(Duration::from_secs(3600));
        let token = keys
            .sign(&json!({"sub": "alice", "exp": now() + 60}))
            .await
            .unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.typ.as_deref(), Some("at+jwt"));
        let set: jsonwebtoken::jwk::JwkSet =
            serde_json::from_value(keys.jwks().await.unwrap()).unwrap();
        let jwk = set.find(header.kid.as_deref().unwrap()).unwrap();
        let key = jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
        validation.validate_aud = false;
        let claims = jsonwebtoken::decode::<Value>(&token, &key, &validation).unwrap();
        assert_eq!(claims.claims["sub"], "alice");
    }

    #[tokio::test]
    async fn a_rotated_key_keeps_being_published_while_its_tokens_live() {
        let keys = keys(Duration::ZERO);
        let first = keys.sign(&json!({"sub": "a"})).await.unwrap();
        let second = keys.sign(&json!({"sub": "b"})).await.unwrap();
        let kid = |token: &str| jsonwebtoken::decode_header(token).unwrap().kid.unwrap();
        assert_ne!(
            kid(&first),
            kid(&second),
            "a zero rotation period rotates every time"
        );
        let published = keys.jwks().await.unwrap().to_string();
        assert!(published.contains(&kid(&first)) && published.contains(&kid(&second)));
    }

    #[tokio::test]
    async fn a_supplied_key_signs_every_token_and_is_the_only_one_published() {
        let pkcs8 = generate_pkcs8().unwrap();
        let body = STANDARD.encode(&pkcs8);
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n");
        let grants = Grants::new(Arc::new(MemoryGrants::default()));
        let keys =
            SigningKeys::new(grants, Some(&pem), Duration::ZERO, Duration::from_secs(60)).unwrap();
        let kid = |token: &str| jsonwebtoken::decode_header(token).unwrap().kid.unwrap();
        let first = keys.sign(&json!({"sub": "a"})).await.unwrap();
        let second = keys.sign(&json!({"sub": "b"})).await.unwrap();
        assert_eq!(kid(&first), kid(&second), "a supplied key is never rotated");
        let published = keys.jwks().await.unwrap();
        assert_eq!(published["keys"].as_array().unwrap().len(), 1);
        assert_eq!(published["keys"][0]["kid"], kid(&first).as_str());
    }

    #[test]
    fn a_supplied_key_must_be_a_p256_private_key() {
        let grants = Grants::new(Arc::new(MemoryGrants::default()));
        let ttl = Duration::from_secs(60);
        let refused = SigningKeys::new(grants, Some("not pem"), ttl, ttl)
            .err()
            .unwrap();
        assert!(
            refused.contains("not PEM") || refused.contains("P-256"),
            "{refused}"
        );
    }
}
