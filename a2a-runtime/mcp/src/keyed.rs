//! Idempotency keys on MCP: a task-augmented `tools/call` names its key in `_meta` (MCP has no
//! request headers over stdio, and `_meta` travels with the request on every transport). A
//! repeat returns the task the first call created instead of running the tool again.

use rmcp::ErrorData as McpError;
use rmcp::model::RequestMetaObject;
use serde_json::json;

use a2a_runtime_core::dispatch::Call;
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::{Fingerprint, IdempotencyKey, KeyedRequest};

/// The `_meta` key a tool call's idempotency key is sent under.
pub const META_KEY: &str = "a2a-runtime/idempotencyKey";

/// The keyed request a tool call makes, if its `_meta` names a key (the fingerprint, of the
/// tool and its arguments, is computed only then); a malformed key is invalid params.
pub fn keyed(
    meta: &RequestMetaObject,
    call: &Call,
    caller: &CallerId,
) -> Result<Option<KeyedRequest>, McpError> {
    let Some(value) = meta.get(META_KEY) else {
        return Ok(None);
    };
    let field = || Some(json!({ "field": format!("_meta.{META_KEY}") }));
    let key = value
        .as_str()
        .ok_or_else(|| "must be a string".to_owned())
        .and_then(|key| IdempotencyKey::parse(key).map_err(|error| error.to_string()))
        .map_err(|reason| {
            McpError::invalid_params(format!("_meta.{META_KEY} {reason}"), field())
        })?;
    Ok(Some(KeyedRequest {
        key,
        caller: std::sync::Arc::clone(caller.key()),
        fingerprint: Fingerprint::of("tools/call")
            .with_str(call.skill)
            .with(&call.arguments)
            .finish(),
    }))
}

/// The refusal of a plain (not task-augmented) `tools/call` of `tool` naming a key: such a
/// call keeps no record a repeat could find, so running it would pretend the key guarded it.
pub fn unkept(tool: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "_meta.{META_KEY} is honoured on task-augmented calls only (`params.task`, for \
             clients that declare the tasks capability); this call of `{tool}` ran nothing: \
             call it as a task, or without the key"
        ),
        Some(json!({ "field": format!("_meta.{META_KEY}") })),
    )
}
