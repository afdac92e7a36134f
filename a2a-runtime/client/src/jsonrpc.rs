//! The JSON-RPC 2.0 binding: every operation is a POST of `{jsonrpc, id, method, params}` to the
//! interface's URL, answered by `{result}` or `{error}` (streams: one such envelope per event).

use reqwest::Method;
use serde_json::{Value, json};

use super::ClientError;
use super::dialect::{Dialect, Op};
use super::endpoint::{Prepared, Reading, json_body};
use super::error::RemoteError;

/// The request calling `op` with `params` (`id` numbers it; `tenant`, from the interface, is
/// named in the params as 1.0 asks).
pub(super) fn request(
    url: &reqwest::Url,
    dialect: Dialect,
    tenant: Option<&str>,
    id: u64,
    op: Op,
    mut params: Value,
) -> Result<Prepared, ClientError> {
    let method = dialect.method(op)?;
    if let (Some(tenant), Value::Object(fields)) = (tenant, &mut params) {
        fields.insert("tenant".into(), json!(tenant));
    }
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Ok(Prepared {
        wire: super::endpoint::Wire::JsonRpc,
        method: Method::POST,
        url: url.clone(),
        body: Some(json_body(&request)?),
        idempotency_key: None,
    })
}

/// The result of an answer to `op` (`answer`: its body, if it is a JSON object).
pub(super) fn result(answer: Option<Value>, status: u16, op: Op) -> Result<Value, Reading> {
    // A JSON-RPC error may come with any status (401, 403, 429 …): read it when there is one.
    let Some(Value::Object(mut answer)) = answer else {
        return Err(Reading::Unexpected);
    };
    if let Some(error) = answer.get("error") {
        return Err(Reading::Remote(Box::new(RemoteError::from_jsonrpc(error))));
    }
    match answer.remove("result") {
        Some(result) if (200..300).contains(&status) => Ok(result),
        Some(_) => Err(Reading::Unexpected),
        // A delete has nothing to answer, and servers that drop null members (the 0.3 Python
        // SDK) drop its `result: null` too.
        None if op == Op::PushDelete && (200..300).contains(&status) => Ok(Value::Null),
        None => Err(Reading::Invalid(ClientError::InvalidResponse {
            field: "result".into(),
            reason: "is missing, and there is no `error` either".into(),
        })),
    }
}

/// The result an event of a stream carries, or the error it reports.
pub(super) fn event(mut event: Value) -> Result<Value, ClientError> {
    if let Some(error) = event.get("error") {
        return Err(RemoteError::from_jsonrpc(error).into());
    }
    event
        .as_object_mut()
        .and_then(|event| event.remove("result"))
        .ok_or_else(|| ClientError::InvalidResponse {
            field: "result".into(),
            reason: "is missing from an event".into(),
        })
}
