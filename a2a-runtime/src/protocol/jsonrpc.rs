//! JSON-RPC 2.0 envelopes.

use serde::Serialize;
use serde_json::Value;

/// Standard JSON-RPC error codes.
pub(crate) mod code {
    pub(crate) const PARSE_ERROR: i64 = -32700;
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    pub(crate) const INTERNAL_ERROR: i64 = -32603;
}

/// A request as received, after envelope validation.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) id: Value,
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// Why an envelope is not a valid request: (message, the id if one could be read).
pub(crate) type EnvelopeError = (String, Value);

/// Validates the envelope: an object with `jsonrpc: "2.0"`, a string `method`, a string or
/// integer `id`, and object (or absent) `params`. Batches are not supported.
pub(crate) fn parse_request(value: Value) -> Result<Request, EnvelopeError> {
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

#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorObject<'a>,
}

/// The `error` member of a response.
#[derive(Serialize)]
pub(crate) struct ErrorObject<'a> {
    pub(crate) code: i64,
    pub(crate) message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
}

/// Serializes a success response.
pub(crate) fn success<T: Serialize>(id: &Value, result: T) -> Vec<u8> {
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
pub(crate) fn failure(id: &Value, error: &ErrorObject<'_>) -> Vec<u8> {
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
