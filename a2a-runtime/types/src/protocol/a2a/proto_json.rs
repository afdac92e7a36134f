//! What ProtoJSON readers accept besides what writers send (the protobuf JSON mapping): a
//! field by its proto name (`message_id`) as well as its JSON name (`messageId`), an integer
//! as a quoted string (`"historyLength": "2"`, as 64-bit integers are always written), and
//! `bytes` in standard or URL-safe base64, padded or not. The official SDKs read with
//! protobuf's parser, which accepts all of them, so clients send them.

use base64::Engine;
use base64::alphabet::{STANDARD, URL_SAFE};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

/// Members whose values are free-form JSON (`google.protobuf.Struct`): their keys are the
/// sender's own and are never renamed.
const FREE_FORM: [&str; 2] = ["metadata", "data"];

/// Integer members (their JSON names) a reader takes as a quoted string too.
const INTEGERS: [&str; 2] = ["historyLength", "pageSize"];

/// `value` with every proto field name turned into its JSON name and quoted integers unquoted,
/// outside free-form members. A document already in JSON names is returned unchanged, with
/// nothing copied.
pub fn lenient(value: Value) -> Value {
    if is_strict(&value) {
        return value;
    }
    rewritten(value)
}

/// Whether `value` is in JSON names with unquoted integers already (a read, no copy).
fn is_strict(value: &Value) -> bool {
    match value {
        Value::Object(object) => object.iter().all(|(key, value)| {
            !key.contains('_')
                && (FREE_FORM.contains(&key.as_str())
                    || (!INTEGERS.contains(&key.as_str()) || !value.is_string())
                        && is_strict(value))
        }),
        Value::Array(items) => items.iter().all(is_strict),
        _ => true,
    }
}

fn rewritten(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(lenient_object(object)),
        Value::Array(items) => Value::Array(items.into_iter().map(rewritten).collect()),
        other => other,
    }
}

fn lenient_object(object: Map<String, Value>) -> Map<String, Value> {
    let mut renamed = Map::with_capacity(object.len());
    for (key, value) in object {
        let key = match key.contains('_') {
            true => json_name(&key),
            false => key,
        };
        let value = if FREE_FORM.contains(&key.as_str()) {
            value
        } else if INTEGERS.contains(&key.as_str()) {
            unquoted(value)
        } else {
            rewritten(value)
        };
        // A field sent under both names keeps one of them (protobuf refuses such a message).
        renamed.insert(key, value);
    }
    renamed
}

/// A proto field name's JSON name: `push_notification_config` → `pushNotificationConfig`.
fn json_name(proto: &str) -> String {
    let mut name = String::with_capacity(proto.len());
    let mut upper = false;
    for c in proto.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                name.extend(c.to_uppercase());
                upper = false;
            }
            c => name.push(c),
        }
    }
    name
}

/// A quoted integer as a number; anything else as it is (the reader names what is wrong).
fn unquoted(value: Value) -> Value {
    match &value {
        Value::String(text) => text.trim().parse::<i64>().map_or(value, Value::from),
        _ => value,
    }
}

const INDIFFERENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_ANY_PADDING: GeneralPurpose = GeneralPurpose::new(&STANDARD, INDIFFERENT);
const URL_SAFE_ANY_PADDING: GeneralPurpose = GeneralPurpose::new(&URL_SAFE, INDIFFERENT);

/// Proto `bytes` as sent: standard or URL-safe base64, with or without padding.
pub fn decode_bytes(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    STANDARD_ANY_PADDING
        .decode(text)
        .or_else(|error| URL_SAFE_ANY_PADDING.decode(text).map_err(|_| error))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn proto_names_become_json_names_outside_free_form_members() {
        let sent = json!({
            "message": {"message_id": "m", "task_id": "t", "metadata": {"keep_me": 1},
                        "content": [{"data": {"data": {"snake_key": true}}}]},
            "configuration": {"history_length": "2", "push_notification": {"url": "u"}},
        });
        assert_eq!(
            lenient(sent),
            json!({
                "message": {"messageId": "m", "taskId": "t", "metadata": {"keep_me": 1},
                            "content": [{"data": {"data": {"snake_key": true}}}]},
                "configuration": {"historyLength": 2, "pushNotification": {"url": "u"}},
            })
        );
    }

    #[test]
    fn bytes_are_read_in_either_alphabet_with_or_without_padding() {
        let bytes = [0xfb_u8, 0xff, 0x01];
        for text in ["+/8B", "-_8B"] {
            assert_eq!(decode_bytes(text).unwrap(), bytes, "{text}");
        }
        assert_eq!(decode_bytes("YQ").unwrap(), b"a");
        assert_eq!(decode_bytes("YQ==").unwrap(), b"a");
        assert!(decode_bytes("not base64!").is_err());
    }
}
