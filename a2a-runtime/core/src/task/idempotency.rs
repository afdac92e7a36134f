//! Idempotency keys: a client names a logical request with a key and sends it again, under the
//! same key, until it learns the outcome. A store keeps each key beside what the request did
//! (the task it created, in the same transaction), so a repeat finds the original outcome and
//! never does it twice, whichever process or replica it reaches.
//!
//! A key is scoped to the agent and the caller (an authenticated caller's principal, an
//! anonymous one's address), so one caller's key never names another's task. The request's
//! fingerprint tells a repeat from a different request reusing the key, which is refused.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use sha2::{Digest as _, Sha256};

/// The longest key accepted, in bytes (a UUID is 36; room for a client's own prefixes).
pub const MAX_KEY_BYTES: usize = 255;

/// How long a key is kept by default: a client retrying for longer than a day is not retrying.
pub const DEFAULT_KEY_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// A client's idempotency key, checked: 1 to [`MAX_KEY_BYTES`] visible ASCII characters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(Arc<str>);

/// Why a key is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key is empty.
    #[error("must not be empty")]
    Empty,
    /// The key is longer than [`MAX_KEY_BYTES`].
    #[error("is {0} bytes long; at most {MAX_KEY_BYTES} are accepted")]
    TooLong(usize),
    /// The key holds a character other than visible ASCII.
    #[error("must be visible ASCII characters (a UUID is a good key)")]
    NotVisibleAscii,
}

impl IdempotencyKey {
    /// `key`, if it is one.
    pub fn parse(key: &str) -> Result<Self, KeyError> {
        Self::check(key.as_bytes())?;
        Ok(Self(Arc::from(key)))
    }

    /// The key in a header value's bytes, if it is one.
    pub fn from_bytes(key: &[u8]) -> Result<Self, KeyError> {
        Self::check(key)?;
        // Checked as visible ASCII: valid UTF-8.
        let text = std::str::from_utf8(key).map_err(|_| KeyError::NotVisibleAscii)?;
        Ok(Self(Arc::from(text)))
    }

    fn check(key: &[u8]) -> Result<(), KeyError> {
        if key.is_empty() {
            return Err(KeyError::Empty);
        }
        if key.len() > MAX_KEY_BYTES {
            return Err(KeyError::TooLong(key.len()));
        }
        if !key.iter().all(|b| (0x21..=0x7e).contains(b)) {
            return Err(KeyError::NotVisibleAscii);
        }
        Ok(())
    }

    /// A fresh random key (a v4 UUID), for a client's logical request.
    pub fn generate() -> Self {
        Self(Arc::from(uuid::Uuid::new_v4().to_string()))
    }

    /// The key.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The shared text of the key.
    pub fn shared(&self) -> Arc<str> {
        Arc::clone(&self.0)
    }
}

impl fmt::Debug for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IdempotencyKey({:?})", &*self.0)
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a key is unique: one agent, one caller, the key. (Shared text: a scope is cloned into
/// the record, the store's index and the task that holds it, for every keyed request.)
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyScope {
    /// The agent (see [`StoredTask::agent`](super::StoredTask::agent)).
    pub agent: Arc<str>,
    /// The caller's identity: `principal:{owner}` for an authenticated caller, its address
    /// for an anonymous one (see [`CallerId::key`](crate::quota::CallerId::key)).
    pub caller: Arc<str>,
    /// The client's key.
    pub key: Arc<str>,
}

/// What a store keeps for a key: the request first made under it and what that did.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRecord {
    /// Where the key is unique.
    pub scope: KeyScope,
    /// The request's [`Fingerprint`]: a repeat has the same, another request under the key not.
    pub fingerprint: String,
    /// The task the request created or changed.
    pub task_id: String,
    /// For a push config write, the config's id.
    pub item: Option<String>,
    /// When the key is forgotten; until then it holds, after it a request may reuse it.
    pub expires_at: DateTime<Utc>,
}

impl KeyRecord {
    /// Whether the key is still held at `now`.
    pub fn holds_at(&self, now: DateTime<Utc>) -> bool {
        self.expires_at > now
    }
}

/// The outcome of [`TaskStore::claim_key`](super::TaskStore::claim_key).
#[derive(Debug, Clone, PartialEq)]
pub enum KeyClaim {
    /// The key was free (never used, or expired): it is now the caller's, with the task.
    Claimed,
    /// The key is held by this record; nothing was written.
    Held(KeyRecord),
}

/// A digest of what a request asks, to tell a repeat from another request reusing its key:
/// the operation's name, then each part of the request in its canonical JSON form.
pub struct Fingerprint(Sha256);

impl Fingerprint {
    /// The fingerprint of an `operation` (its name: requests of different operations never
    /// match), parts added with [`with`](Self::with).
    pub fn of(operation: &str) -> Self {
        let mut digest = Sha256::new();
        digest.update(operation.as_bytes());
        digest.update([0]);
        Self(digest)
    }

    /// Adds a part of the request: its serde JSON form, written straight into the digest.
    #[must_use]
    pub fn with(mut self, part: &impl serde::Serialize) -> Self {
        // A part that does not serialize adds its error's text, which still tells it apart.
        if let Err(error) = serde_json::to_writer(DigestWriter(&mut self.0), part) {
            self.0.update(error.to_string().as_bytes());
        }
        self.0.update([0]);
        self
    }

    /// Adds a string part.
    #[must_use]
    pub fn with_str(mut self, part: &str) -> Self {
        self.0.update(part.as_bytes());
        self.0.update([0]);
        self
    }

    /// The digest, as unpadded base64url (43 characters).
    pub fn finish(self) -> String {
        URL_SAFE_NO_PAD.encode(self.0.finalize())
    }
}

/// Writes into a digest.
struct DigestWriter<'a>(&'a mut Sha256);

impl std::io::Write for DigestWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A request made under a key: the key, who made it, and what it asks.
#[derive(Debug, Clone)]
pub struct KeyedRequest {
    /// The client's key.
    pub key: IdempotencyKey,
    /// The caller's identity (see [`KeyScope::caller`]).
    pub caller: Arc<str>,
    /// The request's [`Fingerprint`].
    pub fingerprint: String,
}

impl KeyedRequest {
    /// The key's scope on `agent`.
    pub fn scope(&self, agent: &Arc<str>) -> KeyScope {
        KeyScope {
            agent: Arc::clone(agent),
            caller: Arc::clone(&self.caller),
            key: self.key.shared(),
        }
    }

    /// The record of this request on `agent`, for `task_id`, kept for `ttl` from now.
    pub fn record(&self, agent: &Arc<str>, task_id: &str, ttl: std::time::Duration) -> KeyRecord {
        let ttl = chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
        KeyRecord {
            scope: self.scope(agent),
            fingerprint: self.fingerprint.clone(),
            task_id: task_id.to_owned(),
            item: None,
            expires_at: Utc::now()
                .checked_add_signed(ttl)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_within_bounds() {
        assert!(IdempotencyKey::parse("9b2d6f1e-6c1a-4f7e-8c55-3f1b2a9d0e47").is_ok());
        assert_eq!(IdempotencyKey::parse(""), Err(KeyError::Empty));
        assert_eq!(
            IdempotencyKey::parse(&"k".repeat(256)),
            Err(KeyError::TooLong(256))
        );
        assert_eq!(
            IdempotencyKey::parse("two words"),
            Err(KeyError::NotVisibleAscii)
        );
        assert_eq!(
            IdempotencyKey::from_bytes("clé".as_bytes()),
            Err(KeyError::NotVisibleAscii)
        );
    }

    #[test]
    fn fingerprints_tell_operations_and_parts_apart() {
        let a = Fingerprint::of("send")
            .with(&serde_json::json!({"x": 1}))
            .finish();
        let same = Fingerprint::of("send")
            .with(&serde_json::json!({"x": 1}))
            .finish();
        let other_part = Fingerprint::of("send")
            .with(&serde_json::json!({"x": 2}))
            .finish();
        let other_op = Fingerprint::of("cancel")
            .with(&serde_json::json!({"x": 1}))
            .finish();
        assert_eq!(a, same);
        assert_ne!(a, other_part);
        assert_ne!(a, other_op);
        assert_eq!(a.len(), 43);
    }
}
