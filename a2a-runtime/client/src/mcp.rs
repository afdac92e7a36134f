//! A remote agent's skills as MCP tools, called with rmcp's client over streamable HTTP; the
//! skills' questions (elicitations, and 2026-07-28 `input_required` rounds, which rmcp turns into
//! the same requests) go to the [`SkillClient`](super::SkillClient)'s answerer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::header::{HeaderName, HeaderValue};

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

use super::ClientError;
use super::credentials::{ClientIdentity, CredentialSource};
use super::mcp_http::McpHttp;
use super::skills::{Answerer, Question};
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::Protocol;
use a2a_runtime_types::outgoing::Outgoing;

/// The MCP revision asked for: the session era, whose elicitations every server sends.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// Answers a server's elicitations with the answerer, if one is set.
struct Elicitor {
    answerer: Arc<Mutex<Option<Answerer>>>,
    /// The skills being called, to name the one that asks when only one is.
    calling: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Elicitor {
    fn get_info(&self) -> ClientConfig {
        let info = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": { "elicitation": { "form": {} } },
            "clientInfo": { "name": "a2a-runtime", "version": env!("CARGO_PKG_VERSION") },
        });
        serde_json::from_value(info).unwrap_or_default()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let answerer = self
            .answerer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(answerer) = answerer else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let skill = match self
            .calling
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_slice()
        {
            [one] => one.clone(),
            _ => String::new(),
        };
        let question = Question {
            skill,
            prompt: message,
            schema: serde_json::to_value(&requested_schema).ok(),
        };
        Ok(match answerer(question).await {
            // A form's content is an object; any other answer is its `answer` property.
            Some(Value::Object(content)) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            Some(other) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({ "answer": other })),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

/// The credential an MCP endpoint is called with, on every request of the session.
#[derive(Clone)]
#[non_exhaustive]
pub enum McpCredential {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// A header of the caller's choosing, such as an API key: its name and value.
    Header(String, String),
    /// `Authorization: Bearer <token>`, the token from a source asked for each request (for
    /// example [`ClientCredentials`](crate::ClientCredentials), a service's OAuth sign-in).
    Source(Arc<dyn CredentialSource>),
}

impl std::fmt::Debug for McpCredential {
    /// Names the kind, never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bearer(_) => f.write_str("Bearer(..)"),
            Self::Header(name, _) => write!(f, "Header({name}, ..)"),
            Self::Source(source) => write!(f, "Source({source:?})"),
        }
    }
}

/// The transport's settings for `url` with `credential`: a header that cannot be sent is an
/// error naming it, before anything is sent.
fn transport_config(
    url: &str,
    credential: Option<&McpCredential>,
) -> Result<StreamableHttpClientTransportConfig, ClientError> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    Ok(match credential {
        // A source's token is asked for by the client, request by request (`McpHttp`).
        None | Some(McpCredential::Source(_)) => config,
        Some(McpCredential::Bearer(token)) => config.auth_header(token.clone()),
        Some(McpCredential::Header(name, value)) => {
            let invalid = |reason: String| ClientError::InvalidResponse {
                field: format!("header `{name}`"),
                reason: format!("cannot be sent: {reason}"),
            };
            let name = HeaderName::try_from(name.as_str()).map_err(|e| invalid(e.to_string()))?;
            let mut value =
                HeaderValue::try_from(value.as_str()).map_err(|e| invalid(e.to_string()))?;
            value.set_sensitive(true);
            config.custom_headers(HashMap::from([(name, value)]))
        }
    })
}

/// Redirects an MCP request may follow, one after the other.
const MAX_MCP_REDIRECTS: usize = 10;

/// The HTTP client of an MCP session: the runtime's HTTPS; no idle connections kept (a reused
/// connection whose last answer was not read to its end stalls on delayed ACKs); and only 307
/// and 308 redirects within the endpoint's origin followed, which keep the method and body:
/// another status would drop the JSON-RPC message, another origin would receive the session id
/// and the credential. A refused redirect reaches the transport as the answer it is.
fn mcp_http(
    url: &str,
    keep_connections: bool,
    identity: Option<&ClientIdentity>,
) -> Result<reqwest::Client, ClientError> {
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_MCP_REDIRECTS {
            attempt.error(format!("more than {MAX_MCP_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    let idle = if keep_connections { usize::MAX } else { 0 };
    let http = match identity {
        Some(identity) => identity.client_builder()?,
        None => a2a_runtime_types::https::client_builder()?,
    };
    http.pool_max_idle_per_host(idle)
        .redirect(redirects)
        .build()
        .map_err(|source| ClientError::Transport {
            url: url.to_owned(),
            source,
        })
}

/// The streamable HTTP transport this client opens MCP sessions with, for a caller that runs a
/// session of its own (the host fronting a remote MCP server): the runtime's HTTPS, idle
/// connections kept, redirects only within the endpoint's origin, `credential` sent with each
/// request, and `identity` (a client certificate and its key) shown to a server that asks for
/// one. An unsendable credential header is an error naming it.
pub fn streamable_http(
    url: &str,
    credential: Option<&McpCredential>,
    identity: Option<&ClientIdentity>,
) -> Result<StreamableHttpClientTransport<McpHttp>, ClientError> {
    let config = transport_config(url, credential)?;
    let source = match credential {
        Some(McpCredential::Source(source)) => Some(Arc::clone(source)),
        _ => None,
    };
    let http = McpHttp::new(mcp_http(url, KEEP_CONNECTIONS, identity)?, source);
    Ok(StreamableHttpClientTransport::with_client(http, config))
}

/// Whether a session of [`streamable_http`] keeps idle connections for its next requests.
const KEEP_CONNECTIONS: bool = true;

/// An MCP session with an agent, whose tools are its skills.
pub(crate) struct McpSkills {
    url: String,
    service: RunningService<RoleClient, Elicitor>,
    answerer: Arc<Mutex<Option<Answerer>>>,
    calling: Arc<Mutex<Vec<String>>>,
}

impl McpSkills {
    /// Opens a session with the MCP endpoint at `url`, sending `credential` with each request.
    pub(crate) async fn connect(
        url: String,
        credential: Option<&McpCredential>,
    ) -> Result<Self, ClientError> {
        let config = transport_config(&url, credential)?;
        let source = match credential {
            Some(McpCredential::Source(source)) => Some(Arc::clone(source)),
            _ => None,
        };
        let http = McpHttp::new(mcp_http(&url, false, None)?, source);
        let transport = StreamableHttpClientTransport::with_client(http, config);
        let answerer = Arc::new(Mutex::new(None));
        let calling = Arc::new(Mutex::new(Vec::new()));
        let elicitor = Elicitor {
            answerer: Arc::clone(&answerer),
            calling: Arc::clone(&calling),
        };
        let service = elicitor
            .serve(transport)
            .await
            .map_err(|e| ClientError::Mcp {
                url: url.clone(),
                reason: format!("the session could not start: {e}"),
            })?;
        Ok(Self {
            url,
            service,
            answerer,
            calling,
        })
    }

    /// The endpoint.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Answers elicitations with `answerer` from now on.
    pub(crate) fn answer_with(&self, answerer: Answerer) {
        *self.answerer.lock().unwrap_or_else(PoisonError::into_inner) = Some(answerer);
    }

    /// Calls tool `skill` with `input`; its output as JSON (`structuredContent`, else its text).
    pub(crate) async fn call(
        &self,
        skill: &str,
        input: Map<String, Value>,
    ) -> Result<Value, ClientError> {
        let mut params = CallToolRequestParams::new(skill.to_owned());
        params.arguments = Some(input);
        // From a skill, the call carries its trace in `_meta` (SEP-414): its own `CLIENT` span
        // when the server reports traces, else the skill's context.
        let span = Outgoing::start(Protocol::Mcp, "tools/call", Some(skill), &self.url);
        let trace = match &span {
            Some(span) => Some(span.context()),
            None => TraceContext::current().map(|trace| trace.outgoing()),
        };
        if let Some(trace) = trace {
            let mut meta = rmcp::model::RequestMetaObject::new();
            meta.set_traceparent(trace.traceparent());
            if let Some(state) = trace.tracestate() {
                meta.set_tracestate(state);
            }
            params.meta = Some(meta);
        }
        self.calling
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(skill.to_owned());
        let result = self.service.call_tool(params).await;
        if let Some(span) = span {
            let error_type = match &result {
                Ok(result) if result.is_error == Some(true) => Some("tool_error".to_owned()),
                Ok(_) => None,
                Err(rmcp::ServiceError::McpError(error)) => Some(error.code.0.to_string()),
                Err(_) => Some("transport".to_owned()),
            };
            span.finish(error_type);
        }
        {
            let mut calling = self.calling.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(at) = calling.iter().position(|s| s == skill) {
                calling.remove(at);
            }
        }
        let result = result.map_err(|e| ClientError::Mcp {
            url: self.url.clone(),
            reason: format!("tools/call `{skill}` failed: {e}"),
        })?;
        let text: Vec<String> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        if result.is_error == Some(true) {
            let text = text.join("\n");
            return Err(ClientError::SkillFailed {
                skill: skill.to_owned(),
                message: failure_message(text, result.structured_content.as_ref()),
                data: result.structured_content,
            });
        }
        Ok(match result.structured_content {
            Some(structured) => structured,
            None if text.is_empty() => Value::Null,
            None => Value::String(text.join("\n")),
        })
    }
}

/// A tool error's message. An error with details has their JSON as its text (what a model is
/// shown); its message is then their `message` (or `error`) string, when they have one.
fn failure_message(text: String, details: Option<&Value>) -> String {
    let said = |key: &str| details?.get(key)?.as_str().map(str::to_owned);
    said("message").or_else(|| said("error")).unwrap_or(text)
}
