//! Answers read within bounds: a card or a unary answer at most `max_bytes` (refused from its
//! `Content-Length` before any byte is read, else as soon as it grows past the bound), and a
//! stream that may stay silent at most `stream_idle` (keep-alive comments count as traffic).

use std::time::Duration;

use bytes::{Bytes, BytesMut};

/// How much of an answer the client reads, and how long a stream may stay silent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// The largest card, unary answer or stream event read.
    pub(crate) max_bytes: usize,
    /// The longest a stream may send nothing, not even a keep-alive.
    pub(crate) stream_idle: Duration,
}

/// The largest answer read unless set: the same bound as one stream event.
pub(crate) const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// How long a stream may stay silent unless set: agents send keep-alives every 15 s or so.
pub(crate) const DEFAULT_STREAM_IDLE: Duration = Duration::from_secs(60);

impl Default for ReadLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            stream_idle: DEFAULT_STREAM_IDLE,
        }
    }
}

/// Why a body was not read whole.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Reading failed.
    Transport(reqwest::Error),
    /// The body is larger than the bound.
    TooLarge,
}

/// The whole body of `response`, at most `limit` bytes.
pub(crate) async fn read_bounded(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Bytes, BodyError> {
    let declared = response.content_length().unwrap_or(0);
    if declared > u64::try_from(limit).unwrap_or(u64::MAX) {
        return Err(BodyError::TooLarge);
    }
    let mut first: Option<Bytes> = None;
    let mut joined = BytesMut::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        let held = first.as_ref().map_or(0, Bytes::len) + joined.len();
        if held + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        // Most answers come in one chunk: kept as it is, not copied.
        match first.take() {
            None if joined.is_empty() => first = Some(chunk),
            Some(earlier) => {
                joined.extend_from_slice(&earlier);
                joined.extend_from_slice(&chunk);
            }
            None => joined.extend_from_slice(&chunk),
        }
    }
    Ok(first.unwrap_or_else(|| joined.freeze()))
}

/// The body of a `200 OK` answer to a GET of `url`, at most `limit` bytes; any other status is
/// [`ClientError::Http`] quoting what it said.
pub(crate) async fn read_ok(
    response: reqwest::Response,
    url: &str,
    limit: usize,
) -> Result<Bytes, super::ClientError> {
    use super::ClientError;
    let status = response.status().as_u16();
    let body = read_bounded(response, limit)
        .await
        .map_err(|error| match error {
            BodyError::Transport(source) => ClientError::Transport {
                url: url.to_owned(),
                source,
            },
            BodyError::TooLarge => ClientError::InvalidResponse {
                field: String::new(),
                reason: format!("{url} is larger than {limit} bytes"),
            },
        })?;
    if status != 200 {
        return Err(ClientError::Http {
            url: url.to_owned(),
            status,
            body: super::endpoint::quote(&body),
        });
    }
    Ok(body)
}
