//! The id of a JSON-RPC request too long to read whole: a transport that refuses it should still
//! answer under its id, or the client waits for an answer to a request that never gets one.
//! Only the line's first and last bytes are kept, so the id is looked for where clients write
//! it: before the params (`{"jsonrpc":"2.0","id":7,"method":…}`, the order the official SDKs
//! write) or as the object's last member (`…,"params":{…},"id":7}`: JSON members have no order,
//! and a serializer that sorts keys or appends the id puts it there).

use serde_json::Value;

use super::tenant::{object, string_end, value_end, whitespace};

/// The request's id, if `head` (the message's first bytes) or `tail` (its last bytes) shows it
/// as a top-level member: a string or an integer.
pub fn request_id(head: &[u8], tail: &[u8]) -> Option<Value> {
    in_head(head).or_else(|| in_tail(tail))
}

/// Walks the top-level members `head` holds in full; the id if one of them is `"id"`.
fn in_head(head: &[u8]) -> Option<Value> {
    let mut id = None;
    // The walk fails where the head is cut off; the members before that were read.
    let _ = object(head, whitespace(head, 0), |key, at| {
        let end = value_end(head, at)?;
        if key == b"\"id\"" && id.is_none() {
            id = scalar(&head[at..end]);
        }
        Some(end)
    });
    id
}

/// The id when the object's last member is `"id": <string or integer>`, read backwards from
/// the closing brace.
fn in_tail(tail: &[u8]) -> Option<Value> {
    let end = trimmed_end(tail, tail.len());
    let close = end.checked_sub(1)?;
    if tail[close] != b'}' {
        return None;
    }
    let value_end = trimmed_end(tail, close);
    let value_start = if tail.get(value_end.checked_sub(1)?)? == &b'"' {
        string_start(tail, value_end - 1)?
    } else {
        let mut at = value_end;
        while at > 0 && (tail[at - 1].is_ascii_digit() || tail[at - 1] == b'-') {
            at -= 1;
        }
        at
    };
    let colon = trimmed_end(tail, value_start).checked_sub(1)?;
    if tail[colon] != b':' {
        return None;
    }
    let key_end = trimmed_end(tail, colon);
    let key_start = key_end.checked_sub(4)?;
    if &tail[key_start..key_end] != b"\"id\"" || escaped(tail, key_start) {
        return None;
    }
    // The key must be a member of the top-level object: after a `,` (or the opening brace).
    let before = trimmed_end(tail, key_start).checked_sub(1)?;
    if !matches!(tail[before], b',' | b'{') {
        return None;
    }
    scalar(&tail[value_start..value_end])
}

/// An id's text as its value: a string or an integer (JSON-RPC's ids), nothing else.
fn scalar(text: &[u8]) -> Option<Value> {
    match text.first()? {
        b'"' if string_end(text, 0) == Some(text.len()) => serde_json::from_slice(text).ok(),
        b'-' | b'0'..=b'9' => std::str::from_utf8(text)
            .ok()?
            .parse::<i64>()
            .ok()
            .map(Value::from),
        _ => None,
    }
}

/// Where the text before `end` stops once trailing whitespace is dropped.
fn trimmed_end(text: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(text[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
        end -= 1;
    }
    end
}

/// The opening quote of the string whose closing quote is at `close`.
fn string_start(text: &[u8], close: usize) -> Option<usize> {
    let mut at = close;
    loop {
        at = text[..at].iter().rposition(|&b| b == b'"')?;
        if !escaped(text, at) {
            return Some(at);
        }
    }
}

/// Whether the byte at `at` is escaped: preceded by an odd number of backslashes.
fn escaped(text: &[u8], at: usize) -> bool {
    text[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The first and last `keep` bytes of `line`, as a transport keeps them.
    fn ends(line: &str, keep: usize) -> Option<Value> {
        let bytes = line.as_bytes();
        let head = &bytes[..keep.min(bytes.len())];
        let tail = &bytes[bytes.len().saturating_sub(keep)..];
        request_id(head, tail)
    }

    #[test]
    fn the_id_is_found_before_the_params_or_as_the_last_member() {
        let big = "x".repeat(10_000);
        let first = format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"a":"{big}"}}}}"#
        );
        assert_eq!(ends(&first, 64), Some(json!(42)));
        let last = format!(
            r#"{{"method":"tools/call","params":{{"a":"{big}"}},"jsonrpc":"2.0","id":"req-7"}}"#
        );
        assert_eq!(ends(&last, 64), Some(json!("req-7")));
        let spaced =
            format!("{{ \"method\": \"x\", \"params\": {{\"a\": \"{big}\"}}, \"id\" : -3 }}\n");
        assert_eq!(ends(&spaced, 64), Some(json!(-3)));
        let escaped = format!(r#"{{"params":{{"a":"{big}"}},"id":"a\"b"}}"#);
        assert_eq!(ends(&escaped, 64), Some(json!("a\"b")));
    }

    #[test]
    fn an_id_inside_the_params_is_not_taken_for_the_requests() {
        let big = "x".repeat(10_000);
        for line in [
            format!(r#"{{"method":"x","params":{{"a":"{big}","id":5}}}}"#),
            format!(r#"{{"method":"x","params":{{"a":"{big}","t":"{{\"id\":5}}"}}}}"#),
            format!(r#"{{"method":"x","params":{{"a":"{big}"}},"note":"\"id\":5}}"}}"#),
            format!(r#"{{"params":{{"id":5,"a":"{big}"}}}}"#),
            format!(r#"{{"id":{{"n":1}},"params":"{big}"}}"#),
            big.clone(),
        ] {
            assert_eq!(ends(&line, 64), None, "{}", &line[..80.min(line.len())]);
        }
    }
}
