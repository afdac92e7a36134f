//! A2A errors as gRPC statuses: the code from the error table, the message, and the same
//! details the JSON bindings carry (`ErrorInfo`, `BadRequest`, `RetryInfo`) as a binary
//! `google.rpc.Status` in `grpc-status-details-bin`.

use axum::response::{IntoResponse, Response};
use tonic::Code;

use crate::A2aError;
use a2a_runtime_types::protocol::a2a::grpc::status::RpcStatus;

/// `error` as a gRPC status.
pub(super) fn status(error: &A2aError) -> tonic::Status {
    let code = code(error);
    let message = match error {
        // The JSON endpoints speak 0.3 as well; this service, 1.0 only.
        A2aError::VersionNotSupported(requested) => format!(
            "A2A-Version `{requested}` is not supported: lf.a2a.v1.A2AService speaks A2A 1.0 \
             (this agent serves 0.3 over JSON-RPC and HTTP+JSON)"
        ),
        _ => error.to_string(),
    };
    let details = RpcStatus::from_json_details(code as i32, &message, &error.details());
    let details = prost::Message::encode_to_vec(&details);
    let mut status = tonic::Status::with_details(code, message, details.into());
    if let Some(challenge) = error
        .scope_challenge()
        .and_then(|c| tonic::metadata::MetadataValue::try_from(c).ok())
    {
        status.metadata_mut().insert("www-authenticate", challenge);
    }
    status
}

/// The gRPC code of `error`: the table's, except that a method the service lacks is
/// `UNIMPLEMENTED`, as every gRPC server answers it.
fn code(error: &A2aError) -> Code {
    if matches!(error, A2aError::MethodNotFound { .. }) {
        return Code::Unimplemented;
    }
    match error.grpc_status() {
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "OUT_OF_RANGE" => Code::OutOfRange,
        "DEADLINE_EXCEEDED" => Code::DeadlineExceeded,
        "NOT_FOUND" => Code::NotFound,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "UNAVAILABLE" => Code::Unavailable,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        _ => Code::Internal,
    }
}

/// A request refused before its method ran (by the gate: credentials, size), as gRPC answers
/// every error: HTTP 200 with the status in the headers ("trailers-only").
pub fn refusal(error: &A2aError) -> Response {
    let mut response = status(error)
        .into_http::<axum::body::Body>()
        .into_response();
    if let Some(seconds) = error.retry_after() {
        response
            .headers_mut()
            .insert(axum::http::header::RETRY_AFTER, seconds.into());
    }
    response
}
