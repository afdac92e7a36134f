//! Reading request parameters into wire types, with errors that name the field at fault.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::A2aError;

/// Reads `text` (JSON-RPC `params` or an HTTP+JSON body, as sent) straight into `T` when it
/// is plainly in ProtoJSON's JSON names: no member name holds a `_` (a proto field name) or an
/// escape, and every integer is unquoted, or `T` would not read. `None` otherwise, and for
/// anything `T` does not read: the lenient tree ([`params`] over `proto_json::lenient`) then
/// reads it, with the errors that name the field, so the two readings agree on every document.
pub fn strict<T: DeserializeOwned>(text: &[u8]) -> Option<T> {
    if !plain_member_names(text) {
        return None;
    }
    serde_json::from_slice(text).ok()
}

/// Whether no member name in the JSON `text` holds a `_` or a `\` escape: one pass over the
/// bytes, telling names from values by the `:` that follows a name.
fn plain_member_names(text: &[u8]) -> bool {
    let mut at = 0;
    while let Some(offset) = text[at..].iter().position(|&b| b == b'"') {
        let start = at + offset + 1;
        let mut end = start;
        let mut plain = true;
        while let Some(&b) = text.get(end) {
            match b {
                b'"' => break,
                b'\\' => {
                    plain = false;
                    end += 1;
                }
                b'_' => plain = false,
                _ => {}
            }
            end += 1;
        }
        at = end + 1;
        let next = text
            .get(at..)
            .and_then(|rest| rest.iter().find(|b| !b.is_ascii_whitespace()));
        if !plain && next == Some(&b':') {
            return false;
        }
    }
    true
}

/// Deserializes `value` (JSON-RPC `params` or an HTTP+JSON body) into `T`.
pub fn params<T: DeserializeOwned>(value: Value) -> Result<T, A2aError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let reason = e.into_inner().to_string();
        let (field, reason) = match reason
            .strip_prefix("missing field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((name, _)) => (
                if path == "." {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                },
                "is required".to_owned(),
            ),
            None => (
                if path == "." {
                    "params".to_owned()
                } else {
                    path
                },
                reason,
            ),
        };
        A2aError::invalid_params(field, reason)
    })
}

#[cfg(test)]
mod tests {
    use super::plain_member_names;

    #[test]
    fn member_names_with_an_underscore_or_an_escape_are_told_from_values() {
        assert!(plain_member_names(
            br#"{"role":"ROLE_USER","parts":[{"text":"a_b \" c_d"}]}"#
        ));
        assert!(!plain_member_names(br#"{"message":{"message_id":"m1"}}"#));
        assert!(!plain_member_names(br#"{"a" : 1, "history_length" :2}"#));
        assert!(!plain_member_names(br#"{"histor\u0079Length":2}"#));
        assert!(plain_member_names(br#"{"text":"x\\","n":1}"#));
    }
}
