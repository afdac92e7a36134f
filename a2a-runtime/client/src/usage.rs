//! Reading a server's usage (`GET /usage`, which its admins may read when it records usage, and
//! `GET /usage/me`, a caller's own): totals per caller, skill or agent over a span of hours,
//! bounded in size and time.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::ClientError;
use super::body::{DEFAULT_MAX_RESPONSE_BYTES, read_ok};

/// What to ask `/usage`.
#[derive(Debug, Clone, Default)]
pub struct UsageRequest {
    /// From this time (RFC 3339; the server rounds it down to the hour). Default: 30 days ago.
    pub since: Option<String>,
    /// Until this time (RFC 3339). Default: now.
    pub until: Option<String>,
    /// `caller` (the default), `skill` or `agent`.
    pub by: Option<String>,
    /// Only this agent's calls (an agent id on a host).
    pub agent: Option<String>,
    /// At most this many groups (1 to 1000; default 100).
    pub limit: Option<usize>,
    /// Only the calls of the caller the credentials name (`/usage/me`, which any
    /// authenticated caller may read), grouped by `skill` (the default) or `agent`.
    pub mine: bool,
}

/// What `/usage` answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageReport {
    /// The first hour counted (RFC 3339).
    pub since: String,
    /// The end of the span (RFC 3339).
    pub until: String,
    /// What the totals are grouped by: `caller`, `skill` or `agent`.
    pub by: String,
    /// The totals, the busiest group first.
    pub totals: Vec<UsageLine>,
}

/// One group's usage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageLine {
    /// The caller (`scheme:principal`), skill or agent.
    pub key: String,
    /// Calls, refused ones included.
    pub calls: u64,
    /// Calls that ran.
    pub ran: u64,
    /// Calls that failed.
    pub failed: u64,
    /// Calls refused (by scope or quota).
    pub refused: u64,
    /// Time the calls ran, in milliseconds.
    pub duration_ms: u64,
    /// Bytes given.
    pub input_bytes: u64,
    /// Bytes produced.
    pub output_bytes: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    since: String,
    until: String,
    by: String,
    usage: Vec<serde_json::Map<String, Value>>,
}

/// Reads the usage of the server at `server_url` (its root: a host's, not an agent's), sending
/// `headers` (credentials of a caller granted the server's admin scope), within `timeout`.
pub async fn fetch_usage(
    server_url: &str,
    request: &UsageRequest,
    headers: &[(String, String)],
    timeout: Duration,
) -> Result<UsageReport, ClientError> {
    let invalid = |reason: String| ClientError::InvalidUrl {
        url: server_url.to_owned(),
        reason,
    };
    let mut url = reqwest::Url::parse(server_url).map_err(|e| invalid(e.to_string()))?;
    url.set_path(if request.mine { "/usage/me" } else { "/usage" });
    let query = [
        ("since", request.since.clone()),
        ("until", request.until.clone()),
        ("by", request.by.clone()),
        ("agent", request.agent.clone()),
        ("limit", request.limit.map(|limit| limit.to_string())),
    ];
    for (name, value) in query {
        if let Some(value) = value {
            url.query_pairs_mut().append_pair(name, &value);
        }
    }
    let transport = |source| ClientError::Transport {
        url: url.to_string(),
        source,
    };
    let http = a2a_runtime_types::https::client_builder()?
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(transport)?;
    let mut get = http.get(url.clone());
    for (name, value) in headers {
        get = get.header(name.as_str(), value.as_str());
    }
    let response = get.send().await.map_err(transport)?;
    let body = read_ok(response, url.as_str(), DEFAULT_MAX_RESPONSE_BYTES).await?;
    let wire: Wire = serde_json::from_slice(&body).map_err(|e| ClientError::InvalidResponse {
        field: String::new(),
        reason: e.to_string(),
    })?;
    Ok(report(wire))
}

fn report(wire: Wire) -> UsageReport {
    // Grouped `claim:NAME`, each line names its group under the claim's name.
    let field = wire
        .by
        .strip_prefix("claim:")
        .unwrap_or(&wire.by)
        .to_owned();
    let totals = wire
        .usage
        .iter()
        .map(|line| {
            let count = |name: &str| line.get(name).and_then(Value::as_u64).unwrap_or(0);
            UsageLine {
                key: line
                    .get(field.as_str())
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                calls: count("calls"),
                ran: count("ran"),
                failed: count("failed"),
                refused: count("refused"),
                duration_ms: count("durationMs"),
                input_bytes: count("inputBytes"),
                output_bytes: count("outputBytes"),
            }
        })
        .collect();
    UsageReport {
        since: wire.since,
        until: wire.until,
        by: wire.by,
        totals,
    }
}
