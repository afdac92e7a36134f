//! MCP requests and content calls as the agent's meter reports them: each method's duration
//! and error type (OpenTelemetry's `mcp.server.operation.duration`: the JSON-RPC error code,
//! `tool_error` for a tool result with `isError`), and resource reads and prompts as calls.

use std::borrow::Cow;

use rmcp::model::{CallToolResponse, ErrorCode, GetPromptResponse, ReadResourceResponse};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde::Serialize;

use super::service::{binding_of, caller_of};
use a2a_runtime_core::observe::{
    CallKind, CallOutcome, CallRecord, Meter, Metered, OperationDetail, OperationRecord,
};
use a2a_runtime_types::model::Protocol;

/// A result whose success may still be a failure to report (a tool result with `isError`).
pub trait Reported {
    /// The error type of a successful answer that reports a failure.
    fn error_type(&self) -> Option<&'static str> {
        None
    }
}

impl Reported for CallToolResponse {
    fn error_type(&self) -> Option<&'static str> {
        match self {
            CallToolResponse::Complete(result) if result.is_error == Some(true) => {
                Some("tool_error")
            }
            _ => None,
        }
    }
}

macro_rules! reported {
    ($($result:ty),* $(,)?) => { $(impl Reported for $result {})* };
}

reported!(
    (),
    ReadResourceResponse,
    GetPromptResponse,
    rmcp::model::ListToolsResult,
    rmcp::model::ListResourcesResult,
    rmcp::model::ListResourceTemplatesResult,
    rmcp::model::ListPromptsResult,
    rmcp::model::CompleteResult,
    rmcp::model::GetTaskResult,
    rmcp::model::CustomResult,
    rmcp::model::ListSkillsResult,
    rmcp::model::GetSkillResult,
);

/// Runs `method` (about `target`, a tool or prompt name, given only when the meter is on) and
/// reports it to `meter`.
pub async fn timed<T: Reported>(
    meter: &Meter,
    method: &'static str,
    target: Option<String>,
    context: &RequestContext<RoleServer>,
    run: impl Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    let started = meter.clock();
    let result = run.await;
    meter.operation(started, |duration| {
        let error_type = match &result {
            Ok(answer) => answer.error_type().map(Cow::Borrowed),
            Err(error) => Some(Cow::Owned(error.code.0.to_string())),
        };
        let caller = caller_of(context);
        caller.note(|span| describe(span, context));
        OperationRecord::new(Protocol::Mcp, binding_of(context), method, duration)
            .about(target.map(Cow::Owned))
            .failed(error_type)
            .traced(caller.trace().cloned())
            .detailed(caller.detail())
    });
    result
}

/// What an MCP request's span says beyond its method: its JSON-RPC id, its session and the
/// revision it was made in (the header's, else a stateless request's own `_meta`).
fn describe(span: &mut OperationDetail, context: &RequestContext<RoleServer>) {
    span.request_id = Some(context.id.to_string());
    let parts = context.extensions.get::<axum::http::request::Parts>();
    let header = |name: &str| {
        parts
            .and_then(|parts| parts.headers.get(name))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    span.session_id = header("mcp-session-id");
    span.protocol_version = header("mcp-protocol-version").or_else(|| {
        context
            .meta
            .protocol_version()
            .map(|version| version.as_str().to_owned())
    });
}

/// A resource read or prompt of `name`, reported as a call.
pub fn content_call(
    meter: &Meter,
    kind: CallKind,
    name: &str,
    context: &RequestContext<RoleServer>,
) -> Metered {
    meter.start(|| {
        let caller = caller_of(context);
        CallRecord::begin(
            kind,
            name.to_owned(),
            Protocol::Mcp,
            binding_of(context),
            caller.caller().clone(),
        )
        .within(caller.trace())
    })
}

/// The answer to a resource read or a prompt: complete, or asking for input first.
pub trait ContentAnswer {
    /// The complete answer's size as JSON; `None` when it asks for input.
    fn size(&self) -> Option<usize>;
}

fn json_size<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len())
}

impl ContentAnswer for ReadResourceResponse {
    fn size(&self) -> Option<usize> {
        match self {
            ReadResourceResponse::Complete(result) => Some(json_size(result)),
            _ => None,
        }
    }
}

impl ContentAnswer for GetPromptResponse {
    fn size(&self) -> Option<usize> {
        match self {
            GetPromptResponse::Complete(result) => Some(json_size(result)),
            _ => None,
        }
    }
}

/// Ends a content call with `result`, its output the size of the answer as JSON.
pub fn content_ended<T: ContentAnswer>(metered: Metered, result: &Result<T, McpError>) {
    if !metered.is_on() {
        return;
    }
    match result {
        Ok(answer) => match answer.size() {
            Some(size) => metered.finish(CallOutcome::Completed, size),
            None => metered.finish(CallOutcome::InputRequired, 0),
        },
        Err(error) => {
            let outcome = match error.code {
                ErrorCode::INVALID_PARAMS | ErrorCode::RESOURCE_NOT_FOUND => {
                    CallOutcome::InvalidInput
                }
                _ => CallOutcome::Failed,
            };
            metered.fail(outcome, 0, error.message.to_string());
        }
    }
}
