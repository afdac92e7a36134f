//! Finding a JSON-RPC request's `params.tenant` (A2A 1.0) without parsing the request: a server
//! hosting several agents behind one URL must choose the agent before the agent's front-end
//! reads the request, and reading it twice would double its cost. The scan only walks the
//! JSON's structure (strings, nesting); anything it does not expect makes it give up, and the
//! caller then parses the request as usual.

/// What a scan of a request body found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tenant {
    /// `params.tenant` is this (non-empty) string.
    Named(String),
    /// The request names no tenant (no `params`, no `tenant`, or an empty one).
    Absent,
    /// The scan could not tell (malformed JSON, duplicate members, a tenant that is not a
    /// string, an unexpected shape): parse the request to know.
    Unknown,
}

/// The tenant `body` (a JSON-RPC request object) names.
pub fn scan(body: &[u8]) -> Tenant {
    scan_request(body).unwrap_or(Tenant::Unknown)
}

fn scan_request(body: &[u8]) -> Option<Tenant> {
    let mut tenant = None;
    let mut seen_params = false;
    let end = object(body, whitespace(body, 0), |key, at| {
        if key != b"\"params\"" {
            return value_end(body, at);
        }
        if seen_params {
            return None;
        }
        seen_params = true;
        let (end, found) = scan_params(body, at)?;
        tenant = found;
        Some(end)
    })?;
    if whitespace(body, end) != body.len() {
        return None;
    }
    Some(match tenant {
        Some(name) if !name.is_empty() => Tenant::Named(name),
        _ => Tenant::Absent,
    })
}

/// Scans the params value at `at`: where it ends, and its `tenant` if it is an object with one.
fn scan_params(body: &[u8], at: usize) -> Option<(usize, Option<String>)> {
    if body.get(at)? != &b'{' {
        // `null` names no tenant; any other shape is for the parser to refuse.
        let end = value_end(body, at)?;
        return (&body[at..end] == b"null").then_some((end, None));
    }
    let mut tenant = None;
    let end = object(body, at, |key, at| {
        let end = value_end(body, at)?;
        if key == b"\"tenant\"" {
            if tenant.is_some() {
                return None;
            }
            // A string, escapes and all, as JSON reads it.
            tenant = Some(serde_json::from_slice::<String>(&body[at..end]).ok()?);
        }
        Some(end)
    })?;
    Some((end, tenant))
}

/// Walks the object at `at`, handing each member's key (quoted, as sent) and where its value
/// starts to `member`, which says where the value ends; where the object ends.
pub(crate) fn object(
    body: &[u8],
    at: usize,
    mut member: impl FnMut(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    let mut at = expect(body, at, b'{')?;
    let mut first = true;
    loop {
        at = whitespace(body, at);
        if body.get(at)? == &b'}' {
            return Some(at + 1);
        }
        if !first {
            at = whitespace(body, expect(body, at, b',')?);
        }
        first = false;
        let key_start = at;
        at = string_end(body, at)?;
        let key = &body[key_start..at];
        at = whitespace(body, expect(body, whitespace(body, at), b':')?);
        at = member(key, at)?;
    }
}

/// The index after `byte` at `at`.
fn expect(body: &[u8], at: usize, byte: u8) -> Option<usize> {
    (body.get(at) == Some(&byte)).then_some(at + 1)
}

/// The first index at or after `at` that is not JSON whitespace.
pub(crate) fn whitespace(body: &[u8], mut at: usize) -> usize {
    while matches!(body.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The index after the string starting at `at`.
pub(crate) fn string_end(body: &[u8], at: usize) -> Option<usize> {
    if body.get(at)? != &b'"' {
        return None;
    }
    let mut at = at + 1;
    loop {
        match body.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// The index after the value starting at `at`.
pub(crate) fn value_end(body: &[u8], at: usize) -> Option<usize> {
    match body.get(at)? {
        b'"' => string_end(body, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match body.get(at)? {
                    b'"' => {
                        at = string_end(body, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            let mut end = at;
            while body
                .get(end)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                end += 1;
            }
            (end > at).then_some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(body: &str) -> Tenant {
        scan(body.as_bytes())
    }

    #[test]
    fn the_tenant_of_params_is_found_wherever_params_are() {
        let named = |name: &str| Tenant::Named(name.to_owned());
        assert_eq!(
            scanned(
                r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"tenant":"booking","message":{"parts":[{"text":"a \"tenant\": x } ]"}]}}}"#
            ),
            named("booking")
        );
        assert_eq!(
            scanned(
                r#" { "params" : { "message" : {"tenant":"inner"} , "tenant" : "cur\u0072ency" } , "id" : "x" , "jsonrpc":"2.0" } "#
            ),
            named("currency"),
            "only params' own member counts; escapes are read as JSON reads them"
        );
        assert_eq!(
            scanned(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#),
            Tenant::Absent
        );
        assert_eq!(
            scanned(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask"}"#),
            Tenant::Absent
        );
        assert_eq!(
            scanned(r#"{"params":null,"id":[1,{"a":"}"}]}"#),
            Tenant::Absent
        );
        assert_eq!(scanned(r#"{"params":{"tenant":""}}"#), Tenant::Absent);
    }

    #[test]
    fn anything_unexpected_is_left_to_the_parser() {
        for body in [
            r#"{"params":{"tenant":"a"},"params":{"tenant":"b"}}"#,
            r#"{"params":{"tenant":"a","tenant":"b"}}"#,
            r#"{"params":{"tenant":7}}"#,
            r#"{"params":[1,2]}"#,
            r#"{"params":{"tenant":"a"}"#,
            r#"{"params":{"tenant":"a"}} trailing"#,
            r#"[{"params":{"tenant":"a"}}]"#,
            r#"{"params" {"tenant":"a"}}"#,
            r#"{"params":{"tenant":"a" "x":1}}"#,
            "",
            "not json",
        ] {
            assert_eq!(scanned(body), Tenant::Unknown, "{body}");
        }
    }

    #[test]
    fn the_scan_agrees_with_the_parser_on_well_formed_requests() {
        #[derive(serde::Deserialize)]
        struct Envelope {
            params: Option<Params>,
        }
        #[derive(serde::Deserialize)]
        struct Params {
            tenant: Option<String>,
        }
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{"data":{"tenant":"no","x":[1,2.5e3,true,null]}}]},"tenant":"yes"}}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"ListTasks","params":{"pageSize":5}}"#,
            r#"{"method":"X","params":{"tenant":"\ud83d\ude00"},"id":2,"jsonrpc":"2.0"}"#,
        ] {
            let parsed: Envelope = serde_json::from_str(body).unwrap();
            let expected = match parsed.params.and_then(|p| p.tenant) {
                Some(tenant) if !tenant.is_empty() => Tenant::Named(tenant),
                _ => Tenant::Absent,
            };
            assert_eq!(scanned(body), expected, "{body}");
        }
    }
}
