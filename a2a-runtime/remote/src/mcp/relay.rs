//! What a remote MCP server asks of the host while it runs a tool, relayed to the caller of
//! that tool: progress notifications (matched by progress token), elicitations and sampling
//! requests (matched by the call whose response stream carried them over streamable HTTP; over
//! stdio, which carries no such tie, by the one call in flight). A request no call can be
//! found for, or whose caller cannot answer it, is refused with an error saying why.

// Sampling is deprecated for 2026-07-28 (SEP-2577); 2025-era servers still send it.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorCode, ProgressNotificationParam, ProgressToken,
    RequestId,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};
use tokio::sync::Notify;

use a2a_runtime_core::ask::{AskError, Sampling};
use a2a_runtime_core::content::{PromptContent, PromptMessage};
use a2a_runtime_core::context::TaskContext;

/// The MCP revision the host speaks to remotes: the session era, which every server serves.
const PROTOCOL_VERSION: &str = "2025-11-25";
/// How long a request or notification from the remote waits for its call to be registered
/// (the remote may answer before the host has noted the request it sent).
const REGISTRATION_WAIT: Duration = Duration::from_secs(2);

/// One tool call in flight to the remote.
pub(crate) struct InFlight {
    pub(crate) progress_token: ProgressToken,
    pub(crate) context: TaskContext,
}

/// The tool calls in flight on one session, by request id.
#[derive(Default)]
pub(crate) struct Calls {
    by_request: Mutex<HashMap<RequestId, Arc<InFlight>>>,
    registered: Notify,
}

impl Calls {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Arc<InFlight>>> {
        self.by_request
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes the call sent as `id`.
    pub(crate) fn register(&self, id: RequestId, call: InFlight) {
        self.calls().insert(id, Arc::new(call));
        self.registered.notify_waiters();
    }

    /// The call sent as `id` ended.
    pub(crate) fn remove(&self, id: &RequestId) {
        self.calls().remove(id);
    }

    /// The call `pick` finds, waiting a moment for it to be registered.
    async fn find(
        &self,
        pick: impl Fn(&HashMap<RequestId, Arc<InFlight>>) -> Option<Arc<InFlight>>,
    ) -> Option<Arc<InFlight>> {
        let deadline = tokio::time::Instant::now() + REGISTRATION_WAIT;
        loop {
            let registered = self.registered.notified();
            if let Some(found) = pick(&self.calls()) {
                return Some(found);
            }
            if tokio::time::timeout_at(deadline, registered).await.is_err() {
                return None;
            }
        }
    }

    /// The call a request from the remote belongs to: the one whose response stream carried
    /// it, else the only one in flight.
    async fn asking(&self, context: &RequestContext<RoleClient>) -> Option<Arc<InFlight>> {
        let origin = context.extensions.get::<InboundStreamOrigin>().cloned();
        self.find(|calls| match &origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => calls.get(id).cloned(),
            _ if calls.len() == 1 => calls.values().next().cloned(),
            _ => None,
        })
        .await
    }
}

/// The host's client side of a session with a remote MCP server.
pub(crate) struct Relay {
    pub(crate) remote: String,
    pub(crate) calls: Arc<Calls>,
    /// Told when the remote says its tool list changed.
    pub(crate) changed: Arc<Notify>,
}

impl Relay {
    fn no_call(&self, what: &str) -> ErrorData {
        tracing::warn!(remote = %self.remote, "{what} from the remote names no call in flight; refused");
        ErrorData::new(
            ErrorCode::INVALID_REQUEST,
            format!("{what} is refused: no call of the host's is waiting for it"),
            None,
        )
    }
}

/// The error a caller's refusal to answer becomes for the remote.
fn refused(error: &AskError) -> ErrorData {
    ErrorData::new(ErrorCode::INVALID_REQUEST, error.to_string(), None)
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        let info = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": { "elicitation": { "form": {} }, "sampling": {} },
            "clientInfo": { "name": "a2a-runtime host", "version": env!("CARGO_PKG_VERSION") },
        });
        serde_json::from_value(info).unwrap_or_default()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let Some(call) = self.calls.asking(&context).await else {
            return Err(self.no_call("an elicitation"));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        match call.context.ask_schema(message, schema).await {
            Ok(answered) => {
                Ok(ElicitResult::new(ElicitationAction::Accept)
                    .with_content(as_form(answered.value)))
            }
            Err(AskError::Declined { .. }) => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Err(AskError::Canceled { .. }) => Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Err(error) => Err(refused(&error)),
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(call) = self.calls.asking(&context).await else {
            return Err(self.no_call("a sampling request"));
        };
        let request = sampling(&serde_json::to_value(&params).unwrap_or_default());
        let sampled = call
            .context
            .sample(request)
            .await
            .map_err(|e| refused(&e))?;
        let result = json!({
            "model": sampled.model,
            "stopReason": sampled.stop_reason,
            "role": "assistant",
            "content": { "type": "text", "text": sampled.text },
        });
        serde_json::from_value(result).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let token = params.progress_token.clone();
        let found = self.calls.find(|calls| {
            calls
                .values()
                .find(|call| call.progress_token == token)
                .cloned()
        });
        let Some(call) = found.await else {
            return;
        };
        let done = params.progress.max(0.0) as u64;
        match (params.total, params.message) {
            (Some(total), Some(message)) => {
                call.context
                    .progress_with(done, total.max(0.0) as u64, message);
            }
            (Some(total), None) => call.context.progress_of(done, total.max(0.0) as u64),
            (None, Some(message)) => call.context.progress(message),
            (None, None) => {}
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

/// An answer as an elicitation's content: a form's object as it is, anything else under
/// `answer`.
fn as_form(value: Value) -> Value {
    match value {
        Value::Object(_) => value,
        other => json!({ "answer": other }),
    }
}

/// A sampling request's JSON as the host's caller is asked it: its text messages, system
/// prompt, token limit and temperature.
fn sampling(params: &Value) -> Sampling {
    let messages = params
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|message| {
            let text = message.pointer("/content/text")?.as_str()?.to_owned();
            Some(match message.get("role").and_then(Value::as_str) {
                Some("assistant") => PromptMessage::assistant(PromptContent::Text(text)),
                _ => PromptMessage::user_text(text),
            })
        })
        .collect();
    let mut request = Sampling::conversation(messages);
    if let Some(max) = params.get("maxTokens").and_then(Value::as_u64) {
        request = request.max_tokens(u32::try_from(max).unwrap_or(u32::MAX));
    }
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        request = request.system_prompt(system);
    }
    if let Some(temperature) = params.get("temperature").and_then(Value::as_f64) {
        request = request.temperature(temperature as f32);
    }
    request
}
