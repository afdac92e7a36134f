//! The error details gRPC carries in `grpc-status-details-bin`: a `google.rpc.Status` whose
//! details hold a `google.rpc.ErrorInfo` naming the A2A error (A2A 1.0 makes it a MUST).

use std::collections::HashMap;

/// The `domain` of every A2A error's `ErrorInfo`.
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// The type URL of an `ErrorInfo` packed in an `Any`.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// The type URL of a `BadRequest` packed in an `Any`.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// The type URL of a `RetryInfo` packed in an `Any`.
pub const RETRY_INFO_TYPE: &str = "type.googleapis.com/google.rpc.RetryInfo";

/// `google.rpc.Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RpcStatus {
    /// The gRPC status code.
    #[prost(int32, tag = "1")]
    pub code: i32,
    /// What went wrong, for a developer.
    #[prost(string, tag = "2")]
    pub message: String,
    /// Typed details.
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<prost_types::Any>,
}

/// `google.rpc.ErrorInfo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ErrorInfo {
    /// The error's name (`TASK_NOT_FOUND`).
    #[prost(string, tag = "1")]
    pub reason: String,
    /// Who defines the reason: [`ERROR_DOMAIN`].
    #[prost(string, tag = "2")]
    pub domain: String,
    /// More about this occurrence.
    #[prost(map = "string, string", tag = "3")]
    pub metadata: HashMap<String, String>,
}

/// `google.rpc.BadRequest`: the fields at fault.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BadRequest {
    /// One per field.
    #[prost(message, repeated, tag = "1")]
    pub field_violations: Vec<FieldViolation>,
}

/// `google.rpc.BadRequest.FieldViolation`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FieldViolation {
    /// The field's path (`message.parts[0]`).
    #[prost(string, tag = "1")]
    pub field: String,
    /// What is wrong with it.
    #[prost(string, tag = "2")]
    pub description: String,
}

/// `google.rpc.RetryInfo`: when to try again.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RetryInfo {
    /// How long to wait.
    #[prost(message, optional, tag = "1")]
    pub retry_delay: Option<prost_types::Duration>,
}

impl RpcStatus {
    /// A status of `code` with `message` and `details`, the ProtoJSON `Any` objects an A2A
    /// error carries on the JSON bindings (`ErrorInfo`, `BadRequest`, `RetryInfo`), packed as
    /// binary `Any`s; details of other types are left out.
    pub fn from_json_details(code: i32, message: &str, details: &serde_json::Value) -> Self {
        let details = details
            .as_array()
            .map(|details| details.iter().filter_map(any_of).collect())
            .unwrap_or_default();
        Self {
            code,
            message: message.to_owned(),
            details,
        }
    }

    /// The A2A error this status names, if its details hold an `ErrorInfo` of
    /// [`ERROR_DOMAIN`].
    pub fn error_info(&self) -> Option<ErrorInfo> {
        self.details
            .iter()
            .filter(|any| any.type_url == ERROR_INFO_TYPE)
            .filter_map(|any| <ErrorInfo as prost::Message>::decode(any.value.as_slice()).ok())
            .find(|info| info.domain == ERROR_DOMAIN)
    }

    /// How long its `RetryInfo` asks the caller to wait, if it holds one.
    pub fn retry_delay(&self) -> Option<std::time::Duration> {
        let any = self
            .details
            .iter()
            .find(|a| a.type_url == RETRY_INFO_TYPE)?;
        let info = <RetryInfo as prost::Message>::decode(any.value.as_slice()).ok()?;
        let delay = info.retry_delay?;
        let seconds = u64::try_from(delay.seconds).ok()?;
        let nanos = u32::try_from(delay.nanos).ok()?;
        Some(std::time::Duration::new(seconds, nanos))
    }

    /// Its details as the ProtoJSON `Any` objects the JSON bindings carry, the inverse of
    /// [`from_json_details`](Self::from_json_details): what a client reads the same way
    /// whichever binding answered. A detail of another type keeps only its `@type`.
    pub fn json_details(&self) -> serde_json::Value {
        self.details.iter().map(json_of).collect()
    }
}

/// One binary `Any` as its ProtoJSON object.
fn json_of(any: &prost_types::Any) -> serde_json::Value {
    use prost::Message as _;
    use serde_json::json;
    let bytes = any.value.as_slice();
    let mut detail = match any.type_url.as_str() {
        ERROR_INFO_TYPE => ErrorInfo::decode(bytes).ok().map(
            |info| json!({"reason": info.reason, "domain": info.domain, "metadata": info.metadata}),
        ),
        BAD_REQUEST_TYPE => BadRequest::decode(bytes).ok().map(|request| {
            let violations: Vec<_> = request
                .field_violations
                .iter()
                .map(|v| json!({"field": v.field, "description": v.description}))
                .collect();
            json!({ "fieldViolations": violations })
        }),
        RETRY_INFO_TYPE => RetryInfo::decode(bytes).ok().map(|info| {
            let seconds = info.retry_delay.map_or(0, |d| d.seconds);
            json!({ "retryDelay": format!("{seconds}s") })
        }),
        _ => None,
    }
    .unwrap_or_else(|| json!({}));
    detail["@type"] = json!(any.type_url);
    detail
}

/// One ProtoJSON detail as a binary `Any`, when its type is one of the three.
fn any_of(detail: &serde_json::Value) -> Option<prost_types::Any> {
    let text = |value: &serde_json::Value| value.as_str().unwrap_or_default().to_owned();
    let (type_url, value) = match detail["@type"].as_str()? {
        ERROR_INFO_TYPE => {
            let metadata = detail["metadata"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| {
                            (
                                k.clone(),
                                v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let info = ErrorInfo {
                reason: text(&detail["reason"]),
                domain: text(&detail["domain"]),
                metadata,
            };
            (ERROR_INFO_TYPE, prost::Message::encode_to_vec(&info))
        }
        BAD_REQUEST_TYPE => {
            let field_violations = detail["fieldViolations"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| FieldViolation {
                    field: text(&v["field"]),
                    description: text(&v["description"]),
                })
                .collect();
            (
                BAD_REQUEST_TYPE,
                prost::Message::encode_to_vec(&BadRequest { field_violations }),
            )
        }
        RETRY_INFO_TYPE => {
            let seconds = detail["retryDelay"]
                .as_str()?
                .trim_end_matches('s')
                .parse()
                .ok()?;
            let retry_delay = Some(prost_types::Duration { seconds, nanos: 0 });
            (
                RETRY_INFO_TYPE,
                prost::Message::encode_to_vec(&RetryInfo { retry_delay }),
            )
        }
        _ => return None,
    };
    Some(prost_types::Any {
        type_url: type_url.to_owned(),
        value,
    })
}
