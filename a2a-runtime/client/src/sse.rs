//! Server-sent events, read incrementally: the `data` of each event, as the stream delivers
//! them.

use bytes::{Buf, BytesMut};
use futures::{Stream, StreamExt};

use super::body::ReadLimits;

/// Why an event stream ended early.
#[derive(Debug)]
pub(crate) enum SseError {
    /// Reading the body failed.
    Transport(reqwest::Error),
    /// An event exceeded the client's bound on answers.
    TooLarge,
    /// Nothing arrived, not even a keep-alive comment, for the client's idle timeout.
    Idle,
}

/// The `data` of each event of `body`, in order; comments, `id`, `event` and `retry` fields
/// are skipped. Ends when the body does, or with an error when an event is larger than
/// `limits.max_bytes` or the body is silent for `limits.stream_idle`.
pub(crate) fn data_events(
    body: impl Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send + Unpin + 'static,
    limits: ReadLimits,
) -> impl Stream<Item = Result<String, SseError>> + Send {
    let state = (body, BytesMut::new(), false);
    futures::stream::unfold(state, move |(mut body, mut buffer, mut done)| async move {
        loop {
            if let Some(event) = take_event(&mut buffer) {
                if let Some(data) = event {
                    return Some((Ok(data), (body, buffer, done)));
                }
                continue;
            }
            if done {
                return None;
            }
            let Ok(next) = tokio::time::timeout(limits.stream_idle, body.next()).await else {
                return Some((Err(SseError::Idle), (body, BytesMut::new(), true)));
            };
            match next {
                Some(Ok(chunk)) => {
                    if buffer.len() + chunk.len() > limits.max_bytes {
                        return Some((Err(SseError::TooLarge), (body, BytesMut::new(), true)));
                    }
                    buffer.extend_from_slice(&chunk);
                }
                Some(Err(error)) => {
                    return Some((Err(SseError::Transport(error)), (body, buffer, true)));
                }
                None => {
                    // A last event without its blank line still counts.
                    done = true;
                    if !buffer.is_empty() {
                        buffer.extend_from_slice(b"\n\n");
                    }
                }
            }
        }
    })
}

/// Takes one complete event off the front of `buffer`: `None` if none is complete yet,
/// `Some(None)` for an event without data.
fn take_event(buffer: &mut BytesMut) -> Option<Option<String>> {
    let (end, separator) = find_blank_line(buffer)?;
    let raw = buffer.split_to(end);
    buffer.advance(separator);
    let text = String::from_utf8_lossy(&raw);
    let mut data: Option<String> = None;
    for line in text.lines().map(|line| line.trim_end_matches('\r')) {
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    Some(data)
}

/// Where the first blank line starts, and how long the separator is.
fn find_blank_line(buffer: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < buffer.len() {
        if buffer[i] == b'\n' {
            if buffer.get(i + 1) == Some(&b'\n') {
                return Some((i, 2));
            }
            if buffer.get(i + 1) == Some(&b'\r') && buffer.get(i + 2) == Some(&b'\n') {
                return Some((i, 3));
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_split_across_chunks_are_joined() {
        let chunks: Vec<Result<bytes::Bytes, reqwest::Error>> = vec![
            Ok(bytes::Bytes::from_static(
                b": keep-alive\n\nid: 1\ndata: {\"a\"",
            )),
            Ok(bytes::Bytes::from_static(
                b":1}\n\ndata: x\ndata: y\r\n\r\n",
            )),
            Ok(bytes::Bytes::from_static(b"data: last")),
        ];
        let events: Vec<String> = data_events(futures::stream::iter(chunks), ReadLimits::default())
            .map(|e| e.unwrap_or_default())
            .collect()
            .await;
        assert_eq!(events, ["{\"a\":1}", "x\ny", "last"]);
    }
}
