//! URI templates of resources: RFC 6570 level 1 (`{name}` expands to one path segment or query
//! value, never across a `/`), enough for resource families like `notes://{id}` or
//! `a2a://tasks/{taskId}/artifacts/{artifactId}`.

use std::collections::HashMap;

/// A parsed template: literal text and variables, alternating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Variable(String),
}

impl UriTemplate {
    /// Parses `template`; text outside braces is literal. (`#[resource]` checks templates at
    /// compile time, so this never sees an unclosed brace from generated code.)
    pub fn parse(template: &str) -> Self {
        let mut pieces = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                pieces.push(Piece::Literal(rest[open..].to_owned()));
                rest = "";
                break;
            };
            pieces.push(Piece::Variable(rest[open + 1..open + close].to_owned()));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_owned()));
        }
        Self { pieces }
    }

    /// The variables' values if `uri` matches: each variable takes the shortest non-empty text
    /// up to the next literal, and none spans a `/`. Values are percent-decoded.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let mut values = HashMap::new();
        let mut rest = uri;
        let mut pieces = self.pieces.iter().peekable();
        while let Some(piece) = pieces.next() {
            match piece {
                Piece::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Piece::Variable(name) => {
                    let end = match pieces.peek() {
                        Some(Piece::Literal(next)) => rest.find(next.as_str())?,
                        // Two variables in a row cannot be told apart; the template checks
                        // forbid it, and the last variable takes what is left.
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    values.insert(
                        name.clone(),
                        a2a_runtime_types::util::percent_decode(value)?,
                    );
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let mut found: Vec<_> = UriTemplate::parse(template)
            .matches(uri)?
            .into_iter()
            .collect();
        found.sort();
        Some(found)
    }

    #[test]
    fn variables_take_one_segment_each() {
        assert_eq!(
            values("test://template/{id}/data", "test://template/123/data"),
            Some(vec![("id".into(), "123".into())])
        );
        assert_eq!(
            values(
                "a2a://tasks/{taskId}/artifacts/{artifactId}",
                "a2a://tasks/t-1/artifacts/a%2Fb"
            ),
            Some(vec![
                ("artifactId".into(), "a/b".into()),
                ("taskId".into(), "t-1".into())
            ])
        );
    }

    #[test]
    fn uris_that_do_not_fit_do_not_match() {
        for uri in [
            "test://template//data",
            "test://template/1/2/data",
            "test://template/1/data/more",
            "test://other/1/data",
            "test://template/%zz/data",
        ] {
            assert_eq!(values("test://template/{id}/data", uri), None, "{uri}");
        }
        assert_eq!(
            values("notes://{id}", "notes://7"),
            Some(vec![("id".into(), "7".into())])
        );
    }
}
