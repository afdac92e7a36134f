//! Every A2A request error, and the one place each is given its wire form: a JSON-RPC code per
//! protocol version, an HTTP status with a `google.rpc.Status` body for HTTP+JSON, and the
//! `google.rpc.ErrorInfo` reason both carry.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Version;
use a2a_runtime_core::dispatch::MissingScope;
use a2a_runtime_core::quota::{Busy, BusyKind};
use a2a_runtime_core::task::{StoreError, TaskError};
use a2a_runtime_types::protocol::jsonrpc::code;

/// Why an A2A request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum A2aError {
    #[error("invalid JSON: {0}")]
    Parse(String),
    #[error("{0}")]
    InvalidRequest(String),
    #[error("request body exceeds the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// The body paused or lasted longer than the server allows (HTTP 408).
    #[error("{0}")]
    BodyTooSlow(String),
    #[error("{message}")]
    MethodNotFound { message: String },
    #[error("{field}: {reason}")]
    InvalidParams { field: String, reason: String },
    #[error("{0}")]
    Internal(String),
    /// A state the task reached but the store did not take (HTTP 503): the task is not lost
    /// yet, but its answer cannot be promised.
    #[error("{message}")]
    NotStored { task: String, message: String },
    #[error("task `{0}` not found")]
    TaskNotFound(String),
    /// A tenant (or agent id in a path) no agent of this server answers to.
    #[error(
        "tenant: `{tenant}` is not an agent of this server; it hosts {known} (GET /agents lists them)"
    )]
    UnknownTenant { tenant: String, known: String },
    /// A push config id the task does not have: a not-found, with A2A's not-found code.
    #[error("task `{task}` has no push config `{config}`")]
    PushConfigNotFound { task: String, config: String },
    #[error("{0}")]
    TaskNotCancelable(String),
    #[error(
        "push notifications are not supported by this agent (capabilities.pushNotifications is false)"
    )]
    PushNotSupported,
    #[error("{0}")]
    Unsupported(String),
    /// A message part the routed skill cannot read.
    #[error(
        "{field}: media type `{media_type}` is not accepted by skill `{skill}`; it accepts {}",
        accepted.join(", ")
    )]
    ContentTypeNotSupported {
        field: String,
        media_type: String,
        skill: &'static str,
        accepted: Vec<String>,
    },
    /// The HTTP request's own `Content-Type` (HTTP+JSON binding).
    #[error("{}", media_type_message(.0))]
    UnsupportedMediaType(String),
    #[error("A2A-Version `{0}` is not supported; this agent speaks A2A 1.0 and 0.3")]
    VersionNotSupported(String),
    /// A `required` extension of the card that the request did not activate.
    #[error(
        "this agent requires extension `{0}`: activate it by listing it in the `A2A-Extensions` \
         request header"
    )]
    ExtensionRequired(String),
    /// Over a per-caller quota, or the server at capacity: retry later.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// An `Idempotency-Key` an earlier, different request of the caller holds (HTTP 422).
    #[error("Idempotency-Key: {0}")]
    KeyReused(String),
    /// No valid credentials (HTTP 401).
    #[error("{0}")]
    Unauthenticated(String),
    /// The caller lacks scopes the skill needs (HTTP 403), checked before any work.
    #[error("{0}")]
    InsufficientScope(MissingScope),
}

fn media_type_message(given: &str) -> String {
    if given.is_empty() {
        "Content-Type is missing; send `application/a2a+json` or `application/json`".into()
    } else {
        format!(
            "Content-Type `{given}` is not supported; send `application/a2a+json` or \
             `application/json`"
        )
    }
}

/// When to retry after the store was full of live tasks.
const STORE_FULL_RETRY: std::time::Duration = std::time::Duration::from_secs(5);

/// Whole seconds, at least one (`Retry-After` takes integers).
fn retry_seconds(busy: &Busy) -> u64 {
    busy.retry_after.as_secs_f64().ceil().max(1.0) as u64
}

/// How one error is identified on every binding.
struct Kind {
    /// The A2A 1.0 / 0.3 JSON-RPC code.
    code: i64,
    /// The `google.rpc.ErrorInfo` reason.
    reason: &'static str,
    /// The `google.rpc.Status` status name (the gRPC code).
    status: &'static str,
    /// The HTTP status of the HTTP+JSON binding.
    http: StatusCode,
}

impl A2aError {
    /// A tenant (or a path's agent id) no agent of this server answers to; `tenant` is
    /// repeated only in part when long, since the error names it three times.
    pub fn unknown_tenant(tenant: &str, known: impl Into<String>) -> Self {
        Self::UnknownTenant {
            tenant: a2a_runtime_types::util::echoed(tenant).into_owned(),
            known: known.into(),
        }
    }

    pub fn invalid_params(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParams {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The single table of codes, reasons and statuses (a2a-spec.md §7; HTTP statuses from the
    /// A2A 1.0 specification §5.4).
    fn kind(&self) -> Kind {
        let (code, reason, status, http) = match self {
            Self::Parse(_) => (
                code::PARSE_ERROR,
                "PARSE_ERROR",
                "INVALID_ARGUMENT",
                StatusCode::BAD_REQUEST,
            ),
            Self::InvalidRequest(_) => (
                code::INVALID_REQUEST,
                "INVALID_REQUEST",
                "INVALID_ARGUMENT",
                StatusCode::BAD_REQUEST,
            ),
            // OUT_OF_RANGE over gRPC: what tonic answers a message over the same limit, so a
            // host's root (which reads the body first) and an agent answer alike.
            Self::PayloadTooLarge { .. } => (
                code::INVALID_REQUEST,
                "PAYLOAD_TOO_LARGE",
                "OUT_OF_RANGE",
                StatusCode::PAYLOAD_TOO_LARGE,
            ),
            Self::BodyTooSlow(_) => (
                code::INVALID_REQUEST,
                "REQUEST_TIMEOUT",
                "DEADLINE_EXCEEDED",
                StatusCode::REQUEST_TIMEOUT,
            ),
            Self::MethodNotFound { .. } => (
                code::METHOD_NOT_FOUND,
                "METHOD_NOT_FOUND",
                "NOT_FOUND",
                StatusCode::NOT_FOUND,
            ),
            Self::InvalidParams { .. } => (
                code::INVALID_PARAMS,
                "INVALID_PARAMS",
                "INVALID_ARGUMENT",
                StatusCode::BAD_REQUEST,
            ),
            Self::Internal(_) => (
                code::INTERNAL_ERROR,
                "INTERNAL_ERROR",
                "INTERNAL",
                StatusCode::INTERNAL_SERVER_ERROR,
            ),
            Self::NotStored { .. } => (
                code::INTERNAL_ERROR,
                "TASK_NOT_STORED",
                "UNAVAILABLE",
                StatusCode::SERVICE_UNAVAILABLE,
            ),
            Self::TaskNotFound(_) => (-32001, "TASK_NOT_FOUND", "NOT_FOUND", StatusCode::NOT_FOUND),
            // A field naming nothing here: invalid params in JSON-RPC (the field is `tenant`),
            // a not-found on HTTP+JSON (the path names it).
            Self::UnknownTenant { .. } => (
                code::INVALID_PARAMS,
                "TENANT_NOT_FOUND",
                "NOT_FOUND",
                StatusCode::NOT_FOUND,
            ),
            // A2A names no error of its own for a missing config: it is the task-not-found of
            // every binding (the config is a resource under the task), its ids in the metadata.
            Self::PushConfigNotFound { .. } => {
                (-32001, "TASK_NOT_FOUND", "NOT_FOUND", StatusCode::NOT_FOUND)
            }
            Self::TaskNotCancelable(_) => (
                -32002,
                "TASK_NOT_CANCELABLE",
                "FAILED_PRECONDITION",
                StatusCode::CONFLICT,
            ),
            Self::PushNotSupported => (
                -32003,
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
                "FAILED_PRECONDITION",
                StatusCode::BAD_REQUEST,
            ),
            Self::Unsupported(_) => (
                -32004,
                "UNSUPPORTED_OPERATION",
                "FAILED_PRECONDITION",
                StatusCode::BAD_REQUEST,
            ),
            Self::ContentTypeNotSupported { .. } => (
                -32005,
                "CONTENT_TYPE_NOT_SUPPORTED",
                "INVALID_ARGUMENT",
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ),
            Self::UnsupportedMediaType(_) => (
                code::INVALID_REQUEST,
                "UNSUPPORTED_MEDIA_TYPE",
                "INVALID_ARGUMENT",
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ),
            Self::ExtensionRequired(_) => (
                -32008,
                "EXTENSION_SUPPORT_REQUIRED",
                "FAILED_PRECONDITION",
                StatusCode::BAD_REQUEST,
            ),
            Self::VersionNotSupported(_) => (
                -32009,
                "VERSION_NOT_SUPPORTED",
                "FAILED_PRECONDITION",
                StatusCode::BAD_REQUEST,
            ),
            // A2A defines no code for this; -32029 is ours (in the A2A range, 29 for HTTP 429),
            // and the ErrorInfo reason is the standard gRPC one.
            Self::Busy(_) => (
                code::BUSY,
                "RESOURCE_EXHAUSTED",
                "RESOURCE_EXHAUSTED",
                StatusCode::TOO_MANY_REQUESTS,
            ),
            // Invalid params on JSON-RPC and gRPC; HTTP+JSON answers 422, the status the
            // Idempotency-Key draft gives a key reused for another request.
            Self::KeyReused(_) => (
                code::INVALID_PARAMS,
                "IDEMPOTENCY_KEY_REUSED",
                "INVALID_ARGUMENT",
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            Self::Unauthenticated(_) => (
                code::UNAUTHENTICATED,
                "UNAUTHENTICATED",
                "UNAUTHENTICATED",
                StatusCode::UNAUTHORIZED,
            ),
            Self::InsufficientScope(_) => (
                code::PERMISSION_DENIED,
                "PERMISSION_DENIED",
                "PERMISSION_DENIED",
                StatusCode::FORBIDDEN,
            ),
        };
        Kind {
            code,
            reason,
            status,
            http,
        }
    }

    /// The JSON-RPC code in protocol `version`. The early draft gave -32006 to -32009 other
    /// meanings (a2a-spec.md §10), so those are remapped for it; 0.3 has no -32008.
    pub fn jsonrpc_code(&self, version: Version) -> i64 {
        let code = self.kind().code;
        match (version, code) {
            (Version::V0_1, -32007) => -32004,
            (Version::V0_1, -32009 | -32008) | (Version::V0_3, -32008) => code::INVALID_REQUEST,
            (Version::V0_1, -32006) => code::INTERNAL_ERROR,
            _ => code,
        }
    }

    /// The HTTP status of a JSON-RPC error response: 200, as the reference SDKs send, except
    /// for an oversized body and an unsupported `Content-Type` (its own HTTP statuses).
    pub fn jsonrpc_http_status(&self) -> StatusCode {
        match self {
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyTooSlow(_) => StatusCode::REQUEST_TIMEOUT,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            Self::InsufficientScope(_) => StatusCode::FORBIDDEN,
            _ => StatusCode::OK,
        }
    }

    /// The `Retry-After` seconds of a retryable refusal.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::Busy(busy) => Some(retry_seconds(busy)),
            _ => None,
        }
    }

    /// The `WWW-Authenticate` challenge of a refusal for missing scope (RFC 6750 §3.1).
    pub fn scope_challenge(&self) -> Option<String> {
        match self {
            Self::InsufficientScope(missing) => Some(a2a_runtime_core::auth::insufficient_scope(
                &missing.needed,
                None,
            )),
            _ => None,
        }
    }

    /// The gRPC status name of the error (`NOT_FOUND`), as the table gives it.
    pub fn grpc_status(&self) -> &'static str {
        self.kind().status
    }

    /// The HTTP status of an HTTP+JSON error response.
    pub fn http_status(&self) -> StatusCode {
        self.kind().http
    }

    /// `error.data` of JSON-RPC, `error.details` of HTTP+JSON: ProtoJSON `Any` objects,
    /// `google.rpc.ErrorInfo` always, plus `google.rpc.BadRequest` naming the field at fault.
    pub fn details(&self) -> Value {
        let metadata = match self {
            Self::TaskNotFound(id) => json!({ "taskId": id }),
            Self::UnknownTenant { tenant, .. } => json!({ "tenant": tenant }),
            Self::ExtensionRequired(uri) => json!({ "extension": uri }),
            Self::VersionNotSupported(v) => {
                json!({ "requestedVersion": v, "supportedVersions": "1.0,0.3" })
            }
            Self::PayloadTooLarge { limit } => json!({ "limitBytes": limit.to_string() }),
            Self::ContentTypeNotSupported {
                media_type,
                skill,
                accepted,
                ..
            } => json!({
                "mediaType": media_type,
                "skill": skill,
                "acceptedMediaTypes": accepted.join(","),
            }),
            Self::UnsupportedMediaType(given) => json!({ "contentType": given }),
            Self::Busy(busy) => json!({ "retryAfterSeconds": retry_seconds(busy).to_string() }),
            Self::InsufficientScope(missing) => json!({
                "skill": missing.skill,
                "missingScopes": missing.missing.join(" "),
                "requiredScopes": missing.needed.join(" "),
            }),
            Self::NotStored { task, .. } => json!({ "taskId": task }),
            Self::PushConfigNotFound { task, config } => {
                json!({ "taskId": task, "configId": config })
            }
            _ => json!({}),
        };
        let mut details = vec![json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": self.kind().reason,
            "domain": "a2a-protocol.org",
            "metadata": metadata,
        })];
        let violation = match self {
            Self::InvalidParams { field, reason } => Some((field.as_str(), reason.clone())),
            Self::ContentTypeNotSupported { field, .. } => Some((field.as_str(), self.to_string())),
            Self::UnknownTenant { .. } => Some(("tenant", self.to_string())),
            Self::KeyReused(_) => Some(("Idempotency-Key", self.to_string())),
            _ => None,
        };
        if let Self::Busy(busy) = self {
            details.push(json!({
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                "retryDelay": format!("{}s", retry_seconds(busy)),
            }));
        }
        if let Some((field, description)) = violation {
            details.push(json!({
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{ "field": field, "description": description }],
            }));
        }
        Value::Array(details)
    }

    /// The HTTP+JSON error body: a `google.rpc.Status`.
    pub fn status_body(&self) -> Value {
        json!({
            "error": {
                "code": self.kind().http.as_u16(),
                "status": self.kind().status,
                "message": self.to_string(),
                "details": self.details(),
            }
        })
    }
}

impl From<MissingScope> for A2aError {
    fn from(missing: MissingScope) -> Self {
        Self::InsufficientScope(missing)
    }
}

impl From<TaskError> for A2aError {
    fn from(error: TaskError) -> Self {
        match error {
            TaskError::NotFound(id) => Self::TaskNotFound(id),
            TaskError::Forbidden(missing) => missing.into(),
            e @ TaskError::KeyReused { .. } => Self::KeyReused(e.to_string()),
            TaskError::Store(StoreError::Unsupported(what)) => Self::Unsupported(format!(
                "this server's task store does not keep {what}: send the request without an \
                 Idempotency-Key header"
            )),
            TaskError::Quota(busy) => Self::Busy(busy),
            e @ (TaskError::Terminal { .. }
            | TaskError::Busy(_)
            | TaskError::AwaitingAuth(_)
            | TaskError::NotAwaitingAuth { .. }
            | TaskError::NoSuchQuestion { .. }
            | TaskError::Ended { .. }
            | TaskError::NotRunning(_)) => Self::Unsupported(e.to_string()),
            e @ TaskError::PushConfigLimit { .. } => Self::invalid_params("url", e.to_string()),
            e @ TaskError::NotCancelable { .. } => Self::TaskNotCancelable(e.to_string()),
            e @ TaskError::ContextMismatch { .. } => {
                Self::invalid_params("message.contextId", e.to_string())
            }
            TaskError::Store(StoreError::InvalidPageToken) => {
                Self::invalid_params("pageToken", StoreError::InvalidPageToken.to_string())
            }
            TaskError::Store(StoreError::Full(held)) => Self::Busy(Busy::new(
                BusyKind::Store,
                format!("the task store is full ({held} tasks held, none finished)"),
                STORE_FULL_RETRY,
            )),
            TaskError::Store(e) => Self::Internal(e.to_string()),
            TaskError::NotStored { ref id, .. } => Self::NotStored {
                task: id.clone(),
                message: error.to_string(),
            },
        }
    }
}
