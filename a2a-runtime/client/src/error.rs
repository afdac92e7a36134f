//! [`ClientError`]: everything a call to a remote agent can end in, with the server's own code,
//! message and `ErrorInfo` when it answered with an error.

use serde_json::Value;

/// Why a call to a remote agent failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The URL given, or one the card offers, is not a valid absolute URL.
    #[error("`{url}` is not a valid URL: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The request could not be made or its answer not read: connection refused, TLS, timeout.
    #[error("request to {url} failed: {source}")]
    Transport {
        /// Where the request went.
        url: String,
        /// The underlying error.
        #[source]
        source: reqwest::Error,
    },
    /// HTTPS could not be set up (the platform's certificate verifier did not start): no
    /// request was made.
    #[error("{0}")]
    Https(#[from] a2a_runtime_types::https::HttpsError),
    /// A gRPC call failed on the way: the connection could not be made (refused, TLS) or was
    /// lost, or the call took longer than the client waits.
    #[error("gRPC call to {address} failed: {reason}")]
    GrpcTransport {
        /// The interface's address (`host:port`).
        address: String,
        /// What failed, innermost cause last.
        reason: String,
        /// The call timed out.
        timed_out: bool,
    },
    /// The answer (or one stream event) is larger than this client reads.
    #[error(
        "{url} answered more than {limit} bytes, the most this client reads (raise it with \
         ClientBuilder::max_response_bytes)"
    )]
    TooLarge {
        /// Where the request went.
        url: String,
        /// The bound, in bytes.
        limit: usize,
    },
    /// A stream sent nothing, not even a keep-alive, for longer than the client waits.
    #[error(
        "the stream from {url} sent nothing for {} (ClientBuilder::stream_idle_timeout)",
        a2a_runtime_types::util::duration_text(*.idle)
    )]
    StreamIdle {
        /// Where the stream came from.
        url: String,
        /// How long it was silent.
        idle: std::time::Duration,
    },
    /// The server answered with an HTTP status the call does not expect, and no protocol error.
    #[error("{url} answered HTTP {status}: {body}")]
    Http {
        /// Where the request went.
        url: String,
        /// The status code.
        status: u16,
        /// The start of the body, for the reader.
        body: String,
    },
    /// The agent answered with a protocol error.
    #[error("{0}")]
    Remote(Box<RemoteError>),
    /// The answer is not what the protocol says it must be.
    #[error("invalid answer from the agent: `{field}` {reason}")]
    InvalidResponse {
        /// The path of the offending field (empty for the whole answer).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No agent card could be read at the URL.
    #[error("no agent card at {url}: {reason}")]
    Card {
        /// The URL tried last.
        url: String,
        /// Why it could not be used.
        reason: String,
    },
    /// No credential could be had for the call: the token endpoint refused or could not be
    /// read.
    #[error("no credential from {url}: {reason}")]
    Credential {
        /// The token endpoint.
        url: String,
        /// Why not.
        reason: String,
    },
    /// The task that delegated the call was canceled; the remote task (if it had started) was
    /// asked to cancel too.
    #[error("canceled{}", remote_task.as_ref().map(|t| format!("; remote task {t} was asked to cancel")).unwrap_or_default())]
    Canceled {
        /// The remote task, if the agent had started one.
        remote_task: Option<String>,
    },
    /// The agent's protocol version has no such operation.
    #[error("the agent speaks A2A {version}, which cannot {operation}")]
    Unsupported {
        /// What was asked.
        operation: &'static str,
        /// The version the client speaks with the agent.
        version: String,
    },
    /// The skill failed (its task failed, was canceled or rejected; its MCP result is an
    /// error).
    #[error("skill `{skill}` failed: {message}")]
    SkillFailed {
        /// The skill's id.
        skill: String,
        /// Why, as the agent said.
        message: String,
        /// The structured details the skill attached to its error (`SkillError::with_data`):
        /// over A2A the data part of the failed task's status message, over MCP the error
        /// result's `structuredContent`.
        data: Option<serde_json::Value>,
    },
    /// The skill asked a question that was not answered (no answerer, or it declined).
    #[error("skill `{skill}` asks \"{prompt}\" and no answer was given")]
    InputRequired {
        /// The skill's id.
        skill: String,
        /// The question.
        prompt: String,
        /// The A2A task waiting for the answer, which a later message may still give.
        task_id: Option<String>,
    },
    /// An MCP session or call failed.
    #[error("MCP at {url}: {reason}")]
    Mcp {
        /// The MCP endpoint.
        url: String,
        /// What failed.
        reason: String,
    },
    /// The card offers no interface this client speaks.
    #[error(
        "the agent offers no interface this client speaks (it offers: {}); this client speaks \
         JSON-RPC in A2A 1.0, 0.3 and 0.2, HTTP+JSON in 1.0 and 0.3, and gRPC in 1.0 when built \
         with the `grpc` feature",
        if offered.is_empty() { "none".to_owned() } else { offered.join(", ") }
    )]
    NoInterface {
        /// The card's interfaces, as `binding version url`.
        offered: Vec<String>,
    },
    /// The client was told to call through one binding ([`only`]) and the card offers no
    /// interface of it that this client speaks.
    ///
    /// [`only`]: super::ClientBuilder::only
    #[error(
        "the agent offers no {binding} interface this client speaks (it offers: {})",
        if offered.is_empty() { "none".to_owned() } else { offered.join(", ") }
    )]
    BindingNotOffered {
        /// The binding asked for.
        binding: String,
        /// The card's interfaces, as `binding version url`.
        offered: Vec<String>,
    },
}

impl ClientError {
    /// The failure as a span's `error.type` names it: the agent's code, an HTTP status, or the
    /// kind of failure.
    pub fn error_type(&self) -> String {
        match self {
            Self::Remote(error) => error.code.to_string(),
            Self::Http { status, .. } => status.to_string(),
            Self::Transport { .. } | Self::GrpcTransport { .. } | Self::Https(_) => {
                "transport".to_owned()
            }
            Self::StreamIdle { .. } => "timeout".to_owned(),
            Self::TooLarge { .. } => "too_large".to_owned(),
            Self::SkillFailed { .. } => "tool_error".to_owned(),
            Self::Canceled { .. } => "canceled".to_owned(),
            Self::Credential { .. } => "credential".to_owned(),
            _ => "invalid".to_owned(),
        }
    }
}

/// An error the agent answered with: its JSON-RPC code, message and details.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteError {
    /// The JSON-RPC error code (for example -32001, task not found). Over HTTP+JSON, the code
    /// JSON-RPC gives the error's `ErrorInfo` reason, so one error has one code on every
    /// binding; the HTTP status when the reason is not one of A2A's.
    pub code: i64,
    /// The server's message.
    pub message: String,
    /// The `google.rpc.ErrorInfo` detail, when the server sent one.
    pub info: Option<ErrorInfo>,
    /// The error's `data` member as sent (over HTTP+JSON, the status's `details`).
    pub data: Option<Value>,
    /// The HTTP status of an HTTP+JSON error.
    pub http_status: Option<u16>,
    /// The status code of a gRPC error (5 is `NOT_FOUND`).
    pub grpc_status: Option<i32>,
}

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the agent answered error {}: {}",
            self.code, self.message
        )?;
        if let Some(info) = &self.info {
            write!(f, " ({})", info.reason)?;
        }
        Ok(())
    }
}

/// `google.rpc.ErrorInfo`: the machine-readable reason of an A2A error.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    /// The reason, such as `TASK_NOT_FOUND`.
    pub reason: String,
    /// The domain, `a2a-protocol.org` for A2A's own errors.
    pub domain: String,
    /// Details, such as the `taskId`.
    pub metadata: serde_json::Map<String, Value>,
}

const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

impl RemoteError {
    /// Reads a JSON-RPC `error` object. v1.0 servers put `ErrorInfo` in a `data` array of
    /// typed details; v0.3 servers sent free-form `data`, kept as is.
    pub(crate) fn from_jsonrpc(error: &Value) -> Self {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let data = error.get("data").cloned();
        let info = data.as_ref().and_then(error_info);
        Self {
            code,
            message,
            info,
            data,
            http_status: None,
            grpc_status: None,
        }
    }

    /// Reads the `error` of an HTTP+JSON error body (a `google.rpc.Status`) answered with HTTP
    /// `status`.
    pub(crate) fn from_status(error: &Value, status: u16) -> Self {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let data = error.get("details").cloned();
        let info = data.as_ref().and_then(error_info);
        let code = info
            .as_ref()
            .and_then(|info| jsonrpc_code(&info.reason))
            .unwrap_or(i64::from(status));
        Self {
            code,
            message,
            info,
            data,
            http_status: Some(status),
            grpc_status: None,
        }
    }

    /// Reads a gRPC error status: its code, message and details (as the ProtoJSON `Any`s
    /// HTTP+JSON carries). [`code`](Self::code) is that of its `ErrorInfo` reason, as over
    /// HTTP+JSON; else `http_equivalent`, the HTTP status the gRPC code stands for.
    #[cfg(feature = "grpc")]
    pub(crate) fn from_grpc(
        grpc_status: i32,
        http_equivalent: u16,
        message: String,
        details: Value,
    ) -> Self {
        let info = error_info(&details);
        let code = info
            .as_ref()
            .and_then(|info| jsonrpc_code(&info.reason))
            .unwrap_or(i64::from(http_equivalent));
        Self {
            code,
            message,
            info,
            data: Some(details).filter(|d| d.as_array().is_some_and(|d| !d.is_empty())),
            http_status: None,
            grpc_status: Some(grpc_status),
        }
    }

    /// The ErrorInfo reason, if the server gave one.
    pub fn reason(&self) -> Option<&str> {
        self.info.as_ref().map(|info| info.reason.as_str())
    }
}

/// The JSON-RPC code of an A2A `ErrorInfo` reason (a2a-spec.md §7; the generic reasons are the
/// Python SDK's).
fn jsonrpc_code(reason: &str) -> Option<i64> {
    Some(match reason {
        "TASK_NOT_FOUND" | "PUSH_NOTIFICATION_CONFIG_NOT_FOUND" => -32001,
        "TASK_NOT_CANCELABLE" => -32002,
        "PUSH_NOTIFICATION_NOT_SUPPORTED" => -32003,
        "UNSUPPORTED_OPERATION" => -32004,
        "CONTENT_TYPE_NOT_SUPPORTED" => -32005,
        "INVALID_AGENT_RESPONSE" => -32006,
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED" => -32007,
        "EXTENSION_SUPPORT_REQUIRED" => -32008,
        "VERSION_NOT_SUPPORTED" => -32009,
        "INVALID_REQUEST" => -32600,
        "METHOD_NOT_FOUND" => -32601,
        "INVALID_PARAMS" => -32602,
        "INTERNAL_ERROR" => -32603,
        _ => return None,
    })
}

/// The `ErrorInfo` among a list of typed details.
fn error_info(details: &Value) -> Option<ErrorInfo> {
    details.as_array()?.iter().find_map(|detail| {
        if detail.get("@type").and_then(Value::as_str) != Some(ERROR_INFO_TYPE) {
            return None;
        }
        Some(ErrorInfo {
            reason: detail.get("reason")?.as_str()?.to_owned(),
            domain: detail
                .get("domain")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            metadata: detail
                .get("metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        })
    })
}

impl From<RemoteError> for ClientError {
    fn from(error: RemoteError) -> Self {
        Self::Remote(Box::new(error))
    }
}

impl From<(String, String)> for ClientError {
    fn from((field, reason): (String, String)) -> Self {
        Self::InvalidResponse { field, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_v1_error_carries_its_error_info() {
        let error = RemoteError::from_jsonrpc(&json!({
            "code": -32001,
            "message": "task t1 not found",
            "data": [{
                "@type": ERROR_INFO_TYPE,
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"taskId": "t1"}
            }]
        }));
        assert_eq!(error.code, -32001);
        assert_eq!(error.reason(), Some("TASK_NOT_FOUND"));
        let info = error.info.as_ref().map(|i| i.metadata["taskId"].clone());
        assert_eq!(info, Some(json!("t1")));
    }

    #[test]
    fn an_http_json_error_has_the_code_of_its_reason() {
        let body = json!({
            "code": 404,
            "status": "NOT_FOUND",
            "message": "task t1 not found",
            "details": [{"@type": ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]
        });
        let error = RemoteError::from_status(&body, 404);
        assert_eq!((error.code, error.http_status), (-32001, Some(404)));
        let error = RemoteError::from_status(&json!({"message": "slow down"}), 429);
        assert_eq!((error.code, error.reason()), (429, None));
    }

    #[test]
    fn a_v0_3_error_keeps_its_free_form_data() {
        let error = RemoteError::from_jsonrpc(&json!({
            "code": -32602, "message": "bad", "data": {"field": "message"}
        }));
        assert_eq!(error.info, None);
        assert_eq!(error.data, Some(json!({"field": "message"})));
    }
}
