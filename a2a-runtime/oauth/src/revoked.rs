//! Access tokens revoked before they expire (RFC 7009): their `jti`s, by digest, kept until
//! their `exp`, and what every agent's verifier asks of this server's tokens. A revocation made
//! in this process is honoured at once (the verifiers forget the tokens they had verified);
//! another replica's, once a verifier checks the token again (`--jwt-cache-ttl`, 60 s).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use a2a_runtime_core::auth::KeyProvider;
use a2a_runtime_types::util::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::OAuthError;
use crate::keys::SigningKeys;
use crate::secret::digest_of;
use crate::server::Inner;
use crate::store::{Grants, REVOKED};

/// A revoked access token: the digest of its `jti`, until its `exp`.
#[derive(Serialize, Deserialize)]
struct Revoked {
    key: String,
    expires: i64,
}

/// This server's signing keys as its agents verify with them, with what it revoked.
pub(crate) struct OwnKeys {
    keys: Arc<SigningKeys>,
    grants: Grants,
    revocations: Arc<AtomicU64>,
}

impl OwnKeys {
    pub(crate) fn new(keys: Arc<SigningKeys>, grants: Grants, revocations: Arc<AtomicU64>) -> Self {
        Self {
            keys,
            grants,
            revocations,
        }
    }
}

impl KeyProvider for OwnKeys {
    fn key_set(&self) -> BoxFuture<'_, Result<Value, String>> {
        self.keys.key_set()
    }

    fn revoked<'a>(
        &'a self,
        claims: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let Some(jti) = claims.get("jti").and_then(Value::as_str) else {
                return Ok(false);
            };
            let found: Option<Revoked> = self
                .grants
                .get(REVOKED, &digest_of(jti))
                .await
                .map_err(|e| e.to_string())?;
            Ok(found.is_some())
        })
    }

    fn revocations(&self) -> u64 {
        self.revocations.load(Ordering::Relaxed)
    }
}

/// Revokes `token` if it is an access token this server signed for `client_id` (any other
/// token is none of this client's to revoke: RFC 7009 answers 200 all the same); whether it
/// did.
pub(crate) async fn revoke_access(
    inner: &Inner,
    token: &str,
    client_id: &str,
) -> Result<bool, OAuthError> {
    let Ok(caller) = inner.own_tokens.verify_token(token).await else {
        return Ok(false);
    };
    let claims = caller.claims();
    let (Some(jti), Some(expires)) = (
        claims.get("jti").and_then(Value::as_str),
        claims.get("exp").and_then(Value::as_i64),
    ) else {
        return Ok(false);
    };
    if claims.get("client_id").and_then(Value::as_str) != Some(client_id) {
        return Ok(false);
    }
    let key = digest_of(jti);
    let record = Revoked {
        key: key.clone(),
        expires,
    };
    inner.grants.put(REVOKED, &key, &record).await?;
    inner.revocations.fetch_add(1, Ordering::Relaxed);
    Ok(true)
}
