//! A remote MCP server's tool as the host runs it: the caller's input sent as the tool's
//! arguments, the remote's progress and questions relayed to the caller while it runs, a
//! cancellation of the host's call sent on as `notifications/cancelled`, and its result given
//! back as the skill's output (structured content as data, other content as parts).

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, RequestMetaObject, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use super::link::McpLink;
use super::relay::InFlight;
use super::settings::McpSource;
use crate::failure::{INVALID_ANSWER, remote_failure};
use a2a_runtime_core::call::{Invocation, SkillOutput, SkillResult};
use a2a_runtime_core::context::TaskContext;
use a2a_runtime_core::registry::{DefinedSkill, RunSkill};
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::Protocol;
use a2a_runtime_types::model::{Part, PartContent};
use a2a_runtime_types::outgoing::Outgoing;
use a2a_runtime_types::util::BoxFuture;

/// Runs one tool of a remote MCP server.
pub(crate) struct McpCall {
    pub(crate) link: Arc<McpLink>,
    /// The tool's name on the remote.
    pub(crate) tool: String,
}

impl RunSkill for McpCall {
    fn run(&self, mut invocation: Invocation) -> BoxFuture<'static, SkillResult> {
        let input = DefinedSkill::input(&mut invocation);
        let context = invocation.context.clone();
        let link = Arc::clone(&self.link);
        let tool = self.tool.clone();
        Box::pin(async move {
            let arguments = match input? {
                Value::Object(arguments) => arguments,
                _ => serde_json::Map::new(),
            };
            call(&link, tool, arguments, &context).await
        })
    }
}

/// Sends the call, relays what the remote asks and reports while it runs, and reads its result.
async fn call(
    link: &Arc<McpLink>,
    tool: String,
    arguments: serde_json::Map<String, Value>,
    context: &TaskContext,
) -> SkillResult {
    let session = link.session().await?;
    let mut params = CallToolRequestParams::new(tool.clone());
    params.arguments = Some(arguments);
    // A CLIENT span for the forwarded call when the caller's trace is reported, its context
    // carried in `_meta` (SEP-414); else the caller's context as it is.
    let server = match &link.source {
        McpSource::Http(url) => url.as_str(),
        McpSource::Stdio(_) => "",
    };
    let span = Outgoing::start(Protocol::Mcp, "tools/call", Some(&tool), server);
    let mut options = PeerRequestOptions::with_timeout(link.settings.timeout);
    options.reset_timeout_on_progress = true;
    options.meta = trace_meta(span.as_ref().map(Outgoing::context));
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let peer = session.service.peer().clone();
    let handle = match peer.send_cancellable_request(request, options).await {
        Ok(handle) => handle,
        Err(error) => return Err(link.failed(&session, error).await),
    };
    let id = handle.id.clone();
    let progress_token = handle.progress_token.clone();
    let in_flight = InFlight {
        progress_token,
        context: context.clone(),
    };
    session.calls.register(id.clone(), in_flight);
    let answered = tokio::select! {
        answered = handle.await_response() => Some(answered),
        () = context.cancelled() => None,
    };
    session.calls.remove(&id);
    if let Some(span) = span {
        span.finish(match &answered {
            Some(Ok(ServerResult::CallToolResult(result))) if result.is_error == Some(true) => {
                Some("tool_error".to_owned())
            }
            Some(Ok(_)) => None,
            Some(Err(rmcp::ServiceError::McpError(error))) => Some(error.code.0.to_string()),
            Some(Err(_)) => Some("transport".to_owned()),
            None => Some("canceled".to_owned()),
        });
    }
    let Some(answered) = answered else {
        let reason = "the host's caller canceled the call".to_owned();
        let cancel = CancelledNotificationParam::new(Some(id), Some(reason));
        if let Err(error) = peer.notify_cancelled(cancel).await {
            tracing::warn!(remote = %link.id, %error, "the remote was not told of a cancellation");
        }
        return Err(SkillError::new("the call was canceled"));
    };
    match answered {
        Ok(ServerResult::CallToolResult(result)) => output(result),
        Ok(_) => {
            let message = link.named("answered tools/call with another result");
            Err(remote_failure(&link.id, message, INVALID_ANSWER))
        }
        Err(rmcp::ServiceError::Timeout { .. }) => Err(link.unreachable(&format!(
            "tools/call `{tool}` was not answered within {} of the last progress",
            a2a_runtime_types::util::duration_text(link.settings.timeout)
        ))),
        Err(error) => Err(link.failed(&session, error).await),
    }
}

/// The trace carried to the remote in the request's `_meta` (SEP-414): the forwarded call's
/// span, else the caller's context.
fn trace_meta(span: Option<TraceContext>) -> Option<RequestMetaObject> {
    let trace = span.or_else(|| Some(TraceContext::current()?.outgoing()))?;
    let mut meta = RequestMetaObject::new();
    meta.set_traceparent(trace.traceparent());
    if let Some(state) = trace.tracestate() {
        meta.set_tracestate(state);
    }
    Some(meta)
}

/// A tool result as the skill's output: structured content as data; other content as parts
/// (text as text, images and audio as their bytes, links and resources as their text or URI);
/// an error result as the skill's error, in the remote's words.
fn output(result: CallToolResult) -> SkillResult {
    let parts: Vec<Part> = result.content.iter().filter_map(part).collect();
    if result.is_error == Some(true) {
        let text: Vec<&str> = parts
            .iter()
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut error = SkillError::new(text.join("\n"));
        if let Some(details) = result.structured_content {
            error = error.with_data(details);
        }
        return Err(error);
    }
    Ok(match result.structured_content {
        Some(structured) => SkillOutput::Data(structured),
        None if parts.is_empty() => SkillOutput::Empty,
        None => SkillOutput::Parts(parts),
    })
}

/// One content block as a part.
fn part(content: &ContentBlock) -> Option<Part> {
    let value = serde_json::to_value(content).ok()?;
    let field = |key: &str| value.get(key).and_then(Value::as_str);
    match field("type")? {
        "text" => Some(Part::text(field("text")?)),
        "image" | "audio" => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(field("data")?)
                .ok()?;
            Some(Part::raw(
                bytes,
                field("mimeType").unwrap_or("application/octet-stream"),
            ))
        }
        "resource_link" => Some(Part::text(field("uri")?)),
        "resource" => {
            let resource = value.get("resource")?;
            let text = resource.get("text").or_else(|| resource.get("uri"))?;
            Some(Part::text(text.as_str()?))
        }
        _ => None,
    }
}
