//! The error details gRPC carries in `grpc-status-details-bin`: a `google.rpc.Status` whose
//! details hold a `google.rpc.ErrorInfo` naming the A2A error (A2A 1.0 makes it a MUST).

use std::collections::HashMap;

/// The `domain` of every A2A error's `ErrorInfo`.
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// The type URL of an `ErrorInfo` packed in an `Any`.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

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
    /// The error's name (`TaskNotFoundError`).
    #[prost(string, tag = "1")]
    pub reason: String,
    /// Who defines the reason: [`ERROR_DOMAIN`].
    #[prost(string, tag = "2")]
    pub domain: String,
    /// More about this occurrence.
    #[prost(map = "string, string", tag = "3")]
    pub metadata: HashMap<String, String>,
}

impl RpcStatus {
    /// A status of `code` with `message`, whose `ErrorInfo` names A2A error `reason`.
    pub fn a2a(code: i32, message: &str, reason: &str, metadata: HashMap<String, String>) -> Self {
        let info = ErrorInfo {
            reason: reason.to_owned(),
            domain: ERROR_DOMAIN.to_owned(),
            metadata,
        };
        Self {
            code,
            message: message.to_owned(),
            details: vec![prost_types::Any {
                type_url: ERROR_INFO_TYPE.to_owned(),
                value: prost::Message::encode_to_vec(&info),
            }],
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
}
