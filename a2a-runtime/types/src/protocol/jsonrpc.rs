//! JSON-RPC 2.0 envelopes.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// JSON-RPC error codes: the standard ones, and the refusals every front-end (A2A and MCP)
/// answers alike.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A retryable refusal: over a caller's quota, or the server at capacity (HTTP 429). Ours,
    /// in the implementation range: -32029 mirrors the HTTP status.
    pub const BUSY: i64 = -32029;
    /// No valid credentials (HTTP 401). A2A and MCP define none; like -32029 it mirrors the
    /// HTTP status.
    pub const UNAUTHENTICATED: i64 = -32041;
    /// A scope the caller lacks (HTTP 403), mirroring the HTTP status.
    pub const PERMISSION_DENIED: i64 = -32043;
}

/// A request as received, after envelope validation.
#[derive(Debug)]
pub struct Request {
    pub id: Value,
    pub method: String,
    pub params: Value,
}

/// Why an envelope is not a valid request: (message, the id if one could be read).
pub type EnvelopeError = (String, Value);

/// Validates the envelope: an object with `jsonrpc: "2.0"`, a string `method`, a string or
/// integer `id`, and object (or absent) `params`. Batches are not supported.
pub fn parse_request(value: Value) -> Result<Request, EnvelopeError> {
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err((
                "batch requests are not supported; send one request per HTTP call".into(),
                Value::Null,
            ));
        }
        _ => {
            return Err((
                "a JSON-RPC request must be a JSON object".into(),
                Value::Null,
            ));
        }
    };
    let id = match object.remove("id") {
        Some(id @ (Value::String(_) | Value::Number(_)))
            if !id.as_f64().is_some_and(|f| f.fract() != 0.0) =>
        {
            id
        }
        Some(Value::Null) | None => return Err((
            "`id` is required and must be a string or an integer (notifications are not supported)"
                .into(),
            Value::Null,
        )),
        Some(_) => return Err(("`id` must be a string or an integer".into(), Value::Null)),
    };
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return Err((format!("`jsonrpc` must be \"2.0\", got {other}"), id)),
        None => return Err(("`jsonrpc` is required and must be \"2.0\"".into(), id)),
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        _ => return Err(("`method` is required and must be a string".into(), id)),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(params @ Value::Object(_)) => params,
        Some(_) => return Err(("`params` must be an object".into(), id)),
    };
    Ok(Request { id, method, params })
}

/// A request's envelope read in place, its params still JSON text: the common case, read
/// without building a tree of the whole body.
#[derive(Debug)]
pub struct Borrowed<'a> {
    pub id: Value,
    pub method: &'a str,
    /// The params object as sent; `None` when absent or `null`.
    pub params: Option<&'a RawValue>,
}

/// Reads a well-formed request's envelope in place. `None` for anything else (a batch, a
/// missing or mistyped member, an escaped method name, an id that is not a plain string or a
/// 64-bit integer, duplicate members): [`parse_request`] on the parsed body then decides, with
/// the message it would give, so both readings accept and refuse exactly the same requests.
pub fn parse_borrowed(body: &[u8]) -> Option<Borrowed<'_>> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: &'a str,
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        method: &'a str,
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    let envelope: Envelope<'_> = serde_json::from_slice(body).ok()?;
    if envelope.jsonrpc != "2.0" {
        return None;
    }
    let id = envelope.id.get();
    let id = match id.as_bytes().first()? {
        b'"' => serde_json::from_str(id).ok()?,
        b'-' | b'0'..=b'9' => Value::from(id.parse::<i64>().ok()?),
        _ => return None,
    };
    let params = match envelope.params {
        Some(raw) if raw.get().starts_with('{') => Some(raw),
        Some(raw) if raw.get() == "null" => None,
        Some(_) => return None,
        None => None,
    };
    Some(Borrowed {
        id,
        method: envelope.method,
        params,
    })
}

/// The member of the object that stands for an integer id larger than 64 bits, holding its text
/// as sent. Ids are strings or numbers, never objects, so it cannot be mistaken for one.
const EXACT_ID: &str = "\u{0}exact-id";

/// `id` as it is to be echoed: an integer too large for 64 bits (read as a float, which would
/// be written back as `1e20`) is kept as the text `body` sent it in. Other ids are returned as
/// they are, and only such an id costs a second look at the body.
pub fn id_as_sent(id: Value, body: &[u8]) -> Value {
    if !matches!(&id, Value::Number(number) if number.is_f64()) {
        return id;
    }
    #[derive(Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
    }
    match serde_json::from_slice::<IdOnly<'_>>(body) {
        Ok(sent) => {
            let text = Value::String(sent.id.get().to_owned());
            Value::Object(Map::from_iter([(EXACT_ID.to_owned(), text)]))
        }
        Err(_) => id,
    }
}

/// Writes an id, an exact one (see [`id_as_sent`]) as the text it was sent in.
fn write_id<S: Serializer>(id: &&Value, serializer: S) -> Result<S::Ok, S::Error> {
    if let Some(Value::String(text)) = id.get(EXACT_ID)
        && let Ok(raw) = RawValue::from_string(text.clone())
    {
        return raw.serialize(serializer);
    }
    id.serialize(serializer)
}

#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    #[serde(serialize_with = "write_id")]
    id: &'a Value,
    result: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    #[serde(serialize_with = "write_id")]
    id: &'a Value,
    error: ErrorObject<'a>,
}

/// The `error` member of a response.
#[derive(Serialize)]
pub struct ErrorObject<'a> {
    pub code: i64,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Serializes a success response.
/// A request id as telemetry names it (`jsonrpc.request.id`): a string as it is, a number in
/// decimal; `None` for a notification's or a null id.
pub fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

pub fn success<T: Serialize>(id: &Value, result: T) -> Vec<u8> {
    serde_json::to_vec(&Success {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_else(|e| {
        failure(
            id,
            &ErrorObject {
                code: code::INTERNAL_ERROR,
                message: &format!("could not serialize the result: {e}"),
                data: None,
            },
        )
    })
}

/// Serializes an error response.
pub fn failure(id: &Value, error: &ErrorObject<'_>) -> Vec<u8> {
    let body = Failure {
        jsonrpc: "2.0",
        id,
        error: ErrorObject {
            code: error.code,
            message: error.message,
            data: error.data.clone(),
        },
    };
    // A map of strings and numbers always serializes.
    serde_json::to_vec(&body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_id_beyond_64_bits_is_written_back_as_sent_and_others_as_they_are() {
        let body = br#"{"jsonrpc":"2.0","id":100000000000000000000,"method":"X"}"#;
        let parsed: Value = serde_json::from_slice(body).unwrap();
        let id = id_as_sent(parse_request(parsed).unwrap().id, body);
        let written = String::from_utf8(success(&id, 1)).unwrap();
        assert_eq!(
            written,
            r#"{"jsonrpc":"2.0","id":100000000000000000000,"result":1}"#
        );
        let small = id_as_sent(json!(7), b"{}");
        assert_eq!(small, json!(7));
    }

    #[test]
    fn the_borrowed_reading_accepts_exactly_what_the_parsed_one_does() {
        let bodies: [&[u8]; 14] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"X","params":{"a":[1]}}"#,
            br#"{"jsonrpc":"2.0","id":"a\"b","method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":-7,"method":"X","params":null}"#,
            br#"{"jsonrpc":"1.0","id":1,"method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":1.5,"method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":1e3,"method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":null,"method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":{},"method":"X"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"X","params":[1]}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"X","method":"Y"}"#,
            br#"{"jsonrpc":"2.0","id":100000000000000000000,"method":"X"}"#,
            br#"[{"jsonrpc":"2.0","id":1,"method":"X"}]"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"X"} trailing"#,
        ];
        for body in bodies {
            let Some(borrowed) = parse_borrowed(body) else {
                continue;
            };
            let parsed = parse_request(serde_json::from_slice(body).unwrap()).unwrap();
            assert_eq!(borrowed.id, parsed.id, "{}", String::from_utf8_lossy(body));
            assert_eq!(borrowed.method, parsed.method);
            let params = borrowed
                .params
                .map_or(json!({}), |raw| serde_json::from_str(raw.get()).unwrap());
            assert_eq!(params, parsed.params);
        }
        let read = |body: &[u8]| parse_borrowed(body).is_some();
        assert!(read(bodies[0]) && read(bodies[1]) && read(bodies[2]));
        assert!(bodies[3..].iter().all(|body| !read(body)));
    }

    #[test]
    fn envelope_rules() {
        assert!(parse_request(json!({"jsonrpc":"2.0","id":1,"method":"X"})).is_ok());
        assert!(parse_request(json!({"jsonrpc":"2.0","id":"a","method":"X","params":{}})).is_ok());
        assert_eq!(
            parse_request(json!({"jsonrpc":"1.0","id":1,"method":"X"}))
                .unwrap_err()
                .1,
            json!(1)
        );
        assert!(parse_request(json!([])).is_err());
        assert!(parse_request(json!({"jsonrpc":"2.0","method":"X"})).is_err());
        assert!(parse_request(json!({"jsonrpc":"2.0","id":1.5,"method":"X"})).is_err());
        assert!(parse_request(json!({"jsonrpc":"2.0","id":1,"method":"X","params":[1]})).is_err());
    }
}
