//! Every A2A request error, and the one function that maps it to a JSON-RPC code, an ErrorInfo
//! reason and an HTTP status.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::protocol::jsonrpc::code;
use crate::task::{StoreError, TaskError};

/// Why an A2A request failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestError {
    #[error("invalid JSON: {0}")]
    Parse(String),
    #[error("{0}")]
    InvalidRequest(String),
    #[error("request body exceeds the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("{message}")]
    MethodNotFound { message: String },
    #[error("{field}: {reason}")]
    InvalidParams { field: String, reason: String },
    #[error("{0}")]
    Internal(String),
    #[error("task `{0}` not found")]
    TaskNotFound(String),
    #[error("{0}")]
    TaskNotCancelable(String),
    #[error(
        "push notifications are not supported by this agent (capabilities.pushNotifications is false)"
    )]
    PushNotSupported,
    #[error("{0}")]
    Unsupported(String),
    #[error(
        "A2A-Version `{0}` is not supported; this agent speaks A2A 1.0 (send `A2A-Version: 1.0`)"
    )]
    VersionNotSupported(String),
}

/// The wire form of one error.
pub(crate) struct Mapped {
    pub(crate) code: i64,
    pub(crate) reason: &'static str,
    pub(crate) http: StatusCode,
}

impl RequestError {
    pub(crate) fn invalid_params(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParams {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The single mapping from error to JSON-RPC code, ErrorInfo reason and HTTP status.
    pub(crate) fn mapped(&self) -> Mapped {
        let (code, reason, http) = match self {
            Self::Parse(_) => (code::PARSE_ERROR, "PARSE_ERROR", StatusCode::OK),
            Self::InvalidRequest(_) => (code::INVALID_REQUEST, "INVALID_REQUEST", StatusCode::OK),
            Self::PayloadTooLarge { .. } => (
                code::INVALID_REQUEST,
                "PAYLOAD_TOO_LARGE",
                StatusCode::PAYLOAD_TOO_LARGE,
            ),
            Self::MethodNotFound { .. } => {
                (code::METHOD_NOT_FOUND, "METHOD_NOT_FOUND", StatusCode::OK)
            }
            Self::InvalidParams { .. } => (code::INVALID_PARAMS, "INVALID_PARAMS", StatusCode::OK),
            Self::Internal(_) => (code::INTERNAL_ERROR, "INTERNAL_ERROR", StatusCode::OK),
            Self::TaskNotFound(_) => (-32001, "TASK_NOT_FOUND", StatusCode::OK),
            Self::TaskNotCancelable(_) => (-32002, "TASK_NOT_CANCELABLE", StatusCode::OK),
            Self::PushNotSupported => (-32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", StatusCode::OK),
            Self::Unsupported(_) => (-32004, "UNSUPPORTED_OPERATION", StatusCode::OK),
            Self::VersionNotSupported(_) => (-32009, "VERSION_NOT_SUPPORTED", StatusCode::OK),
        };
        Mapped { code, reason, http }
    }

    /// `error.data`: a list of ProtoJSON `Any` objects: `google.rpc.ErrorInfo` always, plus
    /// `google.rpc.BadRequest` naming the field for invalid params.
    pub(crate) fn data(&self) -> Value {
        let mapped = self.mapped();
        let metadata = match self {
            Self::TaskNotFound(id) => json!({ "taskId": id }),
            Self::VersionNotSupported(v) => {
                json!({ "requestedVersion": v, "supportedVersions": "1.0" })
            }
            Self::PayloadTooLarge { limit } => json!({ "limitBytes": limit.to_string() }),
            _ => json!({}),
        };
        let mut data = vec![json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": mapped.reason,
            "domain": "a2a-protocol.org",
            "metadata": metadata,
        })];
        if let Self::InvalidParams { field, reason } = self {
            data.push(json!({
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{ "field": field, "description": reason }],
            }));
        }
        Value::Array(data)
    }
}

impl From<TaskError> for RequestError {
    fn from(error: TaskError) -> Self {
        match error {
            TaskError::NotFound(id) => Self::TaskNotFound(id),
            e @ TaskError::Terminal { .. } => Self::Unsupported(e.to_string()),
            e @ (TaskError::Busy(_)
            | TaskError::AwaitingAuth(_)
            | TaskError::NotAwaitingAuth { .. }
            | TaskError::NoSuchQuestion { .. }
            | TaskError::Ended { .. }
            | TaskError::NotRunning(_)) => Self::Unsupported(e.to_string()),
            e @ TaskError::NotCancelable { .. } => Self::TaskNotCancelable(e.to_string()),
            e @ TaskError::ContextMismatch { .. } => {
                Self::invalid_params("message.contextId", e.to_string())
            }
            TaskError::InvalidMessage { field, reason } => Self::invalid_params(field, reason),
            TaskError::Route(route) => Self::invalid_params(route.field(), route.to_string()),
            TaskError::Store(StoreError::InvalidPageToken) => {
                Self::invalid_params("pageToken", StoreError::InvalidPageToken.to_string())
            }
            TaskError::Store(e) => Self::Internal(e.to_string()),
        }
    }
}
