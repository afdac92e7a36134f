//! How often one address may register, start authorizations and call the token endpoint,
//! and one client ask for tokens: a GCRA limit per key, answered 429 with `Retry-After`.

use std::num::NonZeroU32;
use std::time::Duration;

use std::sync::OnceLock;

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
    register: Limiter,
    authorize: Limiter,
    token_address: Limiter,
    token_client: Limiter,
    /// How many replicas share the limits, when several serve one store: each admits its
    /// share, so together they admit each limit about once, not once per replica.
    replicas: OnceLock<LiveReplicas>,
}

/// One limit: a rate per key, and the burst it allows.
struct Limiter {
    rate: KeyedRate<String>,
    burst: u32,
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
fn limiter(per_minute: u32, burst: u32) -> Limiter {
    let rate = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
    let most = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    Limiter {
        rate: KeyedRate::new(rate, Duration::from_secs(60), most),
        burst: most.get(),
    }
}

impl RateLimits {
    /// Shares every limit among the replicas `live` counts (once).
    pub(crate) fn share_among(&self, live: LiveReplicas) {
        let _ = self.replicas.set(live);
    }

    /// What one request costs of `limiter` here: the replicas sharing it, within its burst.
    fn cost(&self, limiter: &Limiter) -> u32 {
        let live = self.replicas.get().map_or(1, |live| live());
        u32::try_from(live)
            .unwrap_or(u32::MAX)
            .clamp(1, limiter.burst.max(1))
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
        if let Err(refusal) = limiter.rate.check(&key, self.cost(limiter)) {
            let retry_after = match refusal {
                RateRefusal::Later(wait) => wait,
                RateRefusal::Never => Duration::from_secs(60),
            };
            return Err(OAuthError::RateLimited {
                reason: format!("too many {what}; try again later"),
                retry_after,
            });
        }
        if limiter.rate.len() > KEYS_BEFORE_CLEANUP {
            limiter.rate.retain_recent();
        }
        Ok(())
    }
}
