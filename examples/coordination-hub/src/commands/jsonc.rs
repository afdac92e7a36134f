//! JSON with comments and trailing commas (JSONC), as VS Code and Cursor read their
//! `mcp.json`: read by blanking what JSON lacks (so every offset still points into the file as
//! written), and edited in place, so the person's comments, order and other servers stay.

/// `text` with its comments and trailing commas turned into spaces (newlines kept): valid JSON
/// when `text` is valid JSONC, each byte where it was.
pub(crate) fn blanked(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at),
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    out[at] = b' ';
                    at += 1;
                }
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                let end = text[at + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| at + 2 + e + 2);
                for byte in &mut out[at..end] {
                    if *byte != b'\n' {
                        *byte = b' ';
                    }
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    blank_trailing_commas(&mut out);
    // Only ASCII bytes were replaced, by ASCII spaces: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The index just past the string starting at `at` (its opening quote).
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Blanks each comma that only whitespace separates from a closing `}` or `]`.
fn blank_trailing_commas(out: &mut [u8]) {
    let mut at = 0;
    while at < out.len() {
        match out[at] {
            b'"' => at = string_end(out, at),
            b',' => {
                let next = out[at + 1..].iter().position(|b| !b.is_ascii_whitespace());
                if next.is_some_and(|n| matches!(out[at + 1 + n], b'}' | b']')) {
                    out[at] = b' ';
                }
                at += 1;
            }
            _ => at += 1,
        }
    }
}

/// Where member `key` of the object opening at `open` (a `{`) is in `json`: the start of its
/// key and the span of its value; `None` when the object has no such member.
pub(crate) fn member(json: &str, open: usize, key: &str) -> Option<(usize, usize, usize)> {
    let bytes = json.as_bytes();
    let mut at = skip_space(bytes, open + 1);
    while bytes.get(at) == Some(&b'"') {
        let key_start = at;
        let key_end = string_end(bytes, at);
        let name: String = serde_json::from_str(&json[key_start..key_end]).ok()?;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_start = skip_space(bytes, at + 1);
        let value_end = value_end(bytes, value_start)?;
        if name == key {
            return Some((key_start, value_start, value_end));
        }
        at = skip_space(bytes, value_end);
        if bytes.get(at) == Some(&b',') {
            at = skip_space(bytes, at + 1);
        }
    }
    None
}

/// The index just past the JSON value starting at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => Some(string_end(bytes, at)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => bytes[at..]
            .iter()
            .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
            .map(|n| at + n),
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// `text` (JSONC) with `entry` (pretty JSON, one level deep) as member `name` of the object
/// member `servers` of its root: replacing that member's value if it has one, else added first
/// in the object (made if missing). Everything else stays as written.
pub(crate) fn with_server(text: &str, servers: &str, name: &str, entry: &str) -> Option<String> {
    let json = blanked(text);
    let root = skip_space(json.as_bytes(), 0);
    if json.as_bytes().get(root) != Some(&b'{') {
        return None;
    }
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let Some((_, object, _)) = member(&json, root, servers) else {
        let pair = format!(
            "\n  {}: {{\n    {}: {entry}\n  }}",
            quoted(servers),
            quoted(name)
        );
        return Some(insert_first(text, &json, root, &pair));
    };
    if json.as_bytes().get(object) != Some(&b'{') {
        return None;
    }
    if let Some((_, start, end)) = member(&json, object, name) {
        return Some(format!("{}{entry}{}", &text[..start], &text[end..]));
    }
    let pair = format!("\n    {}: {entry}", quoted(name));
    Some(insert_first(text, &json, object, &pair))
}

/// `text` with `pair` put first in the object opening at `open`, a comma after it when other
/// members follow.
fn insert_first(text: &str, json: &str, open: usize, pair: &str) -> String {
    let next = skip_space(json.as_bytes(), open + 1);
    let comma = if json.as_bytes().get(next) == Some(&b'}') {
        ""
    } else {
        ","
    };
    format!("{}{pair}{comma}{}", &text[..=open], &text[open + 1..])
}
