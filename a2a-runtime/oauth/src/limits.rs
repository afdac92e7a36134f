//! How often one address may register, start authorizations and call the token endpoint,
//! and one client ask for tokens: a GCRA limit per key, answered 429 with `Retry-After`.

use std::num::NonZeroU32;
use std::sync::OnceLock;
use std::time::Duration;

use a2a_runtime_core::quota::{KeyedRate, LiveReplicas, RateRefusal};

use crate::OAuthError;

/// Keys kept before the limiters forget the idle ones.
const KEYS_BEFORE_CLEANUP: usize = 10_000;

/// Which limit a request counts against.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Limited {
    /// Dynamic registrations from one address.
    Register,
    /// Authorization requests (and consent decisions) from one address.
    Authorize,
    /// Token requests from one address.
    TokenByAddress,
    /// Token requests by one client.
    TokenByClient,
}

/// The limiters of one server.
pub(crate) struct RateLimits {
    register: KeyedRate<String>,
    authorize: KeyedRate<String>,
    token_address: KeyedRate<String>,
    token_client: KeyedRate<String>,
    /// How many replicas share the limits, when several serve one store: each admits its
    /// share, so together they admit each limit about once, not once per replica.
    replicas: OnceLock<LiveReplicas>,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            register: limiter(10, 10),
            authorize: limiter(60, 20),
            token_address: limiter(240, 60),
            token_client: limiter(120, 30),
            replicas: OnceLock::new(),
        }
    }
}

/// `per_minute` requests a minute, `burst` at once.
fn limiter(per_minute: u32, burst: u32) -> KeyedRate<String> {
    let rate = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    KeyedRate::new(rate, Duration::from_secs(60), burst)
}

impl RateLimits {
    /// Shares every limit among the replicas `live` counts (once).
    pub(crate) fn share_among(&self, live: LiveReplicas) {
        let _ = self.replicas.set(live);
    }

    /// Counts a request of `key` against `which`, refused when over it.
    pub(crate) fn check(&self, which: Limited, key: &str) -> Result<(), OAuthError> {
        let (limiter, what) = match which {
            Limited::Register => (&self.register, "client registrations from this address"),
            Limited::Authorize => (&self.authorize, "authorization requests from this address"),
            Limited::TokenByAddress => (&self.token_address, "token requests from this address"),
            Limited::TokenByClient => (&self.token_client, "token requests of this client"),
        };
        let key = key.to_owned();
        let cost = limiter.shared_cost(self.replicas.get());
        if let Err(refusal) = limiter.check(&key, cost) {
            let retry_after = match refusal {
                RateRefusal::Later(wait) => wait,
                RateRefusal::Never => Duration::from_secs(60),
            };
            return Err(OAuthError::RateLimited {
                reason: format!("too many {what}; try again later"),
                retry_after,
            });
        }
        if limiter.len() > KEYS_BEFORE_CLEANUP {
            limiter.retain_recent();
        }
        Ok(())
    }
}
