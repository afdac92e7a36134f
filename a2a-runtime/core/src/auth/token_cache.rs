//! Tokens verified recently, so a client that sends the same bearer token on every request
//! (what OAuth clients do for the token's lifetime) pays for one signature check per `ttl`, not
//! one per request. Time claims are checked again on every hit; the cache is bounded.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use super::Caller;

/// Entries kept at most; beyond it, stale and expired ones go first, then everything.
const MAX_ENTRIES: usize = 10_000;

/// One verified token: who it names and the window its time claims allow.
struct Verified {
    caller: Caller,
    /// `exp + leeway`, seconds since the epoch.
    expires: i64,
    /// `nbf - leeway`, seconds since the epoch.
    not_before: i64,
    verified_at: Instant,
}

/// Verified bearer tokens by the SHA-256 of the token.
pub struct TokenCache {
    ttl: Duration,
    entries: Mutex<HashMap<[u8; 32], Verified>>,
}

impl TokenCache {
    /// A cache whose entries are trusted for `ttl` (zero: nothing is cached).
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Forgets every verified token (a revocation was made: each is verified again).
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }

    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The caller `token` was verified as, if that happened less than `ttl` ago and its time
    /// claims still hold at `now` (seconds since the epoch).
    pub fn get(&self, token: &str, now: i64) -> Option<Caller> {
        if self.ttl.is_zero() {
            return None;
        }
        let key = Self::key(token);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get(&key)?;
        if entry.verified_at.elapsed() < self.ttl && now < entry.expires && now >= entry.not_before
        {
            return Some(entry.caller.clone());
        }
        entries.remove(&key);
        None
    }

    /// Remembers that `token` verified as `caller`, valid from `not_before` until `expires`
    /// (seconds since the epoch, leeway included).
    pub fn insert(&self, token: &str, caller: &Caller, not_before: i64, expires: i64) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= MAX_ENTRIES {
            let now = chrono::Utc::now().timestamp();
            let ttl = self.ttl;
            entries.retain(|_, e| e.verified_at.elapsed() < ttl && now < e.expires);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(
            Self::key(token),
            Verified {
                caller: caller.clone(),
                expires,
                not_before,
                verified_at: Instant::now(),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_rechecks_the_time_claims_and_the_ttl() {
        let cache = TokenCache::new(Duration::from_secs(60));
        let caller = Caller::authenticated("bearer", "ada");
        cache.insert("t1", &caller, 100, 200);
        assert_eq!(
            cache.get("t1", 150).map(|c| c.principal().to_owned()),
            Some("ada".into())
        );
        assert!(cache.get("t1", 99).is_none(), "not yet valid");
        assert!(
            cache.get("t1", 150).is_none(),
            "a failed hit drops the entry"
        );
        cache.insert("t1", &caller, 100, 200);
        assert!(cache.get("t1", 200).is_none(), "expired");
        assert!(cache.get("t2", 150).is_none(), "another token");
        let off = TokenCache::new(Duration::ZERO);
        off.insert("t1", &caller, 100, 200);
        assert!(off.get("t1", 150).is_none(), "zero ttl caches nothing");
    }
}
