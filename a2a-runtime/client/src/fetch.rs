//! Reading an agent's card: from its own URL, or from the well-known paths under a base URL,
//! bounded in size and time, revalidated with its `ETag`, fresh for as long as its
//! `Cache-Control` says.

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, ETAG, HeaderMap, HeaderValue, IF_NONE_MATCH};
use serde_json::Value;

use super::body::{BodyError, DEFAULT_MAX_RESPONSE_BYTES, read_bounded};
use super::{AgentCard, ClientError, DEFAULT_TIMEOUT};

/// Where cards are published (RFC 8615), newest first: A2A 0.3 and later, then 0.1 and 0.2.
const CARD_PATHS: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

impl AgentCard {
    /// Reads the card of the agent at `base_url` (or at the card's own URL) as
    /// [`A2aClient::connect`](crate::A2aClient::connect) does, without choosing an interface: for inspecting or validating
    /// a card, even one that offers nothing this client speaks.
    pub async fn fetch(base_url: &str) -> Result<Self, ClientError> {
        let http = a2a_runtime_types::https::client_builder()?
            .connect_timeout(DEFAULT_TIMEOUT)
            .build()
            .map_err(|source| ClientError::Transport {
                url: base_url.to_owned(),
                source,
            })?;
        let base = reqwest::Url::parse(base_url).map_err(|e| ClientError::InvalidUrl {
            url: base_url.to_owned(),
            reason: e.to_string(),
        })?;
        let max_bytes = DEFAULT_MAX_RESPONSE_BYTES;
        match fetch_card(&http, &base, None, DEFAULT_TIMEOUT, max_bytes).await? {
            Fetched::Card { card, .. } => Ok(Arc::unwrap_or_clone(card)),
            Fetched::NotModified { .. } => Err(ClientError::Card {
                url: base_url.to_owned(),
                reason: "the server answered 304 Not Modified to a first request".into(),
            }),
        }
    }
}

/// A card read, or unchanged since the `ETag` sent; with how long it stays fresh, when its
/// server said.
pub(super) enum Fetched {
    Card {
        card: Arc<AgentCard>,
        url: reqwest::Url,
        etag: Option<HeaderValue>,
        fresh_for: Option<Duration>,
    },
    NotModified {
        fresh_for: Option<Duration>,
    },
}

/// How long a response stays fresh by its `Cache-Control` (RFC 9111 §5.2.2): none for
/// `no-store` or `no-cache`; else `s-maxage` (a client that republishes the card, as a host
/// does, is a shared cache) or `max-age`; `None` when it says neither or says it unreadably.
pub(super) fn fresh_for(headers: &HeaderMap) -> Option<Duration> {
    let mut max_age = None;
    let mut shared_max_age = None;
    let directives = headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','));
    for directive in directives {
        let (name, argument) = match directive.split_once('=') {
            Some((name, argument)) => (name.trim(), Some(argument.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        let seconds = || argument.and_then(|a| a.parse::<u64>().ok());
        match name.to_ascii_lowercase().as_str() {
            "no-store" | "no-cache" => return Some(Duration::ZERO),
            "max-age" => max_age = seconds().or(max_age),
            "s-maxage" => shared_max_age = seconds().or(shared_max_age),
            _ => {}
        }
    }
    shared_max_age.or(max_age).map(Duration::from_secs)
}

/// Reads the card at `url` (a card's own URL) or under it (a base URL: the well-known paths,
/// newest first, the next tried on 404).
pub(super) async fn fetch_card(
    http: &reqwest::Client,
    url: &reqwest::Url,
    etag: Option<HeaderValue>,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Fetched, ClientError> {
    let candidates: Vec<reqwest::Url> = if url.path().ends_with(".json") {
        vec![url.clone()]
    } else {
        CARD_PATHS
            .iter()
            .map(|path| {
                let mut candidate = url.clone();
                let base = url.path().trim_end_matches('/');
                candidate.set_path(&format!("{base}{path}"));
                candidate
            })
            .collect()
    };
    let mut last = None;
    for candidate in candidates {
        let mut request = http.get(candidate.clone()).timeout(timeout);
        if let Some(etag) = &etag {
            request = request.header(IF_NONE_MATCH, etag.clone());
        }
        let response = request
            .send()
            .await
            .map_err(|source| ClientError::Transport {
                url: candidate.to_string(),
                source,
            })?;
        let fresh_for = fresh_for(response.headers());
        match response.status() {
            StatusCode::NOT_MODIFIED => return Ok(Fetched::NotModified { fresh_for }),
            StatusCode::NOT_FOUND => {
                last = Some(candidate);
                continue;
            }
            status if !status.is_success() => {
                return Err(ClientError::Card {
                    url: candidate.to_string(),
                    reason: format!("HTTP {status}"),
                });
            }
            _ => {}
        }
        let etag = response.headers().get(ETAG).cloned();
        let bytes = read_bounded(response, max_bytes)
            .await
            .map_err(|error| ClientError::Card {
                url: candidate.to_string(),
                reason: match error {
                    BodyError::TooLarge => format!(
                        "the card is larger than {max_bytes} bytes, the most this client reads"
                    ),
                    BodyError::Transport(e) => format!("could not be read: {e}"),
                },
            })?;
        let raw: Value = serde_json::from_slice(&bytes).map_err(|e| ClientError::Card {
            url: candidate.to_string(),
            reason: format!("not JSON: {e}"),
        })?;
        let card = AgentCard::from_json(raw).map_err(|reason| ClientError::Card {
            url: candidate.to_string(),
            reason,
        })?;
        return Ok(Fetched::Card {
            card: Arc::new(card),
            url: candidate,
            etag,
            fresh_for,
        });
    }
    Err(ClientError::Card {
        url: last.map_or_else(|| url.to_string(), |u| u.to_string()),
        reason: "HTTP 404 at every well-known path (agent-card.json, agent.json)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache_control(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(CACHE_CONTROL, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn a_card_is_fresh_for_its_max_age_or_its_shared_max_age() {
        let secs = |values: &[&str]| fresh_for(&cache_control(values)).map(|d| d.as_secs());
        assert_eq!(secs(&["public, max-age=60"]), Some(60));
        assert_eq!(secs(&["max-age=60, s-maxage=10"]), Some(10));
        assert_eq!(secs(&["public", "Max-Age=\"30\""]), Some(30));
        assert_eq!(secs(&["max-age=60, no-cache"]), Some(0));
        assert_eq!(secs(&["no-store"]), Some(0));
        assert_eq!(secs(&["public"]), None);
        assert_eq!(secs(&["max-age=soon"]), None);
        assert_eq!(secs(&[]), None);
    }
}
