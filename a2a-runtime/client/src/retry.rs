//! When a failed call is tried again: a refusal that says when to come back (HTTP 429 or
//! `RESOURCE_EXHAUSTED`, with `Retry-After`) for any call, since nothing was done; a lost
//! connection, a timeout or a 502/503/504 only for calls that are safe to repeat.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

use super::ClientError;

/// How a client retries. The default makes 3 attempts, backing off from 200 ms to 5 s, and
/// waits at most 30 s for a `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 disables retries).
    pub max_attempts: u32,
    /// The wait before the second attempt; doubled for each next one.
    pub initial_backoff: Duration,
    /// The longest wait between attempts when the agent does not say.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; a longer one ends the call with the refusal.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// One attempt per call.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The wait before attempt `attempt + 1` after `failure`, or `None` to give up.
    pub(crate) fn next(
        &self,
        attempt: u32,
        failure: &Failure,
        idempotent: bool,
    ) -> Option<Duration> {
        if attempt >= self.max_attempts {
            return None;
        }
        if let Some(after) = failure.retry_after {
            return (after <= self.max_retry_after).then_some(after);
        }
        if !(idempotent && failure.transient) {
            return None;
        }
        Some(a2a_runtime_types::util::backoff(
            self.initial_backoff,
            attempt,
            self.max_backoff,
        ))
    }
}

/// A failed attempt, with what decides whether another may follow.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) error: ClientError,
    /// The agent asked to come back after this long (it did nothing with the request).
    pub(crate) retry_after: Option<Duration>,
    /// The request may not have arrived, or the agent was briefly unavailable.
    pub(crate) transient: bool,
}

impl Failure {
    /// A failure that no retry can mend.
    pub(crate) fn fatal(error: ClientError) -> Self {
        Self {
            error,
            retry_after: None,
            transient: false,
        }
    }

    /// A request to `url` that failed on the way: retryable when safe to repeat, if the
    /// connection failed or timed out.
    pub(crate) fn transport(url: &str, source: reqwest::Error) -> Self {
        Self {
            transient: source.is_connect() || source.is_timeout() || source.is_request(),
            error: ClientError::Transport {
                url: url.to_owned(),
                source,
            },
            retry_after: None,
        }
    }

    /// An answer with HTTP `status` (and `Retry-After`, if it had one) that is `error`.
    pub(crate) fn answered(error: ClientError, status: u16, retry_after: Option<Duration>) -> Self {
        let busy = status == 429
            || matches!(&error, ClientError::Remote(remote) if remote.reason() == Some("RESOURCE_EXHAUSTED"));
        Self {
            retry_after: busy.then(|| retry_after.unwrap_or(Duration::from_secs(1))),
            transient: matches!(status, 502..=504),
            error,
        }
    }
}

/// A `Retry-After` in seconds (the HTTP-date form is read as "not said").
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(retry_after: Option<u64>, transient: bool) -> Failure {
        Failure {
            error: ClientError::InvalidResponse {
                field: String::new(),
                reason: String::new(),
            },
            retry_after: retry_after.map(Duration::from_secs),
            transient,
        }
    }

    #[test]
    fn a_refusal_with_retry_after_is_retried_for_any_call_until_the_attempts_run_out() {
        let policy = RetryPolicy::default();
        let busy = failure(Some(2), false);
        assert_eq!(policy.next(1, &busy, false), Some(Duration::from_secs(2)));
        assert_eq!(policy.next(3, &busy, false), None);
        assert_eq!(policy.next(1, &failure(Some(31), false), true), None);
    }

    #[test]
    fn a_lost_connection_is_retried_only_for_calls_safe_to_repeat() {
        let policy = RetryPolicy::default();
        let lost = failure(None, true);
        assert_eq!(policy.next(1, &lost, false), None);
        let wait = policy.next(2, &lost, true).unwrap();
        assert!(wait >= Duration::from_millis(200) && wait < Duration::from_millis(400));
        assert_eq!(policy.next(1, &failure(None, false), true), None);
        assert_eq!(RetryPolicy::none().next(1, &lost, true), None);
    }
}
