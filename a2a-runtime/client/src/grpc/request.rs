//! The 1.0 JSON params the client builds for every binding, as `a2a.proto`'s requests: the same
//! fields, by the proto's numbers, with the interface's tenant. The params come from this
//! client, so one that cannot be converted is a request that cannot be sent, naming its field.

use serde_json::Value;

use crate::ClientError;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use a2a_runtime_types::protocol::a2a::grpc::{convert, json};
use a2a_runtime_types::protocol::a2a::v1;

/// Why `field` of the params cannot be sent.
fn unsendable(field: &str, reason: impl std::fmt::Display) -> ClientError {
    ClientError::InvalidResponse {
        field: format!("params.{field}"),
        reason: format!("cannot be sent: {reason}"),
    }
}

/// The string `key` of `params` (empty when it is not there, as the proto leaves it).
fn text(params: &Value, key: &str) -> String {
    params
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The count `key` of `params`, as the proto's `int32`.
fn count(params: &Value, key: &str) -> Result<Option<i32>, ClientError> {
    params
        .get(key)
        .and_then(Value::as_u64)
        .map(|n| i32::try_from(n).map_err(|_| unsendable(key, format!("{n} exceeds an int32"))))
        .transpose()
}

/// The object `key` of `params` as a `Struct`.
fn object(params: &Value, key: &str) -> Option<prost_types::Struct> {
    params
        .get(key)
        .and_then(Value::as_object)
        .map(json::to_struct)
}

/// `SendMessageRequest` (sending, streaming or not).
pub(super) fn send(
    params: &Value,
    tenant: String,
) -> Result<wire::SendMessageRequest, ClientError> {
    let message: v1::MessageIn =
        serde_json::from_value(params["message"].clone()).map_err(|e| unsendable("message", e))?;
    let message = message
        .into_model("message")
        .map_err(|(field, reason)| unsendable(&field, reason))?;
    let configuration = params.get("configuration").unwrap_or(&Value::Null);
    let accepted = configuration
        .get("acceptedOutputModes")
        .and_then(Value::as_array)
        .map(|modes| modes.iter().filter_map(Value::as_str).map(str::to_owned))
        .into_iter()
        .flatten()
        .collect();
    Ok(wire::SendMessageRequest {
        tenant,
        message: Some(convert::message(&message)),
        configuration: Some(wire::SendMessageConfiguration {
            accepted_output_modes: accepted,
            task_push_notification_config: None,
            history_length: count(configuration, "historyLength")?,
            return_immediately: configuration
                .get("returnImmediately")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }),
        metadata: object(params, "metadata"),
    })
}

/// `GetTaskRequest`.
pub(super) fn get(params: &Value, tenant: String) -> Result<wire::GetTaskRequest, ClientError> {
    Ok(wire::GetTaskRequest {
        tenant,
        id: text(params, "id"),
        history_length: count(params, "historyLength")?,
    })
}

/// `CancelTaskRequest`.
pub(super) fn cancel(params: &Value, tenant: String) -> wire::CancelTaskRequest {
    wire::CancelTaskRequest {
        tenant,
        id: text(params, "id"),
        metadata: object(params, "metadata"),
    }
}

/// `SubscribeToTaskRequest`.
pub(super) fn subscribe(params: &Value, tenant: String) -> wire::SubscribeToTaskRequest {
    wire::SubscribeToTaskRequest {
        tenant,
        id: text(params, "id"),
    }
}

/// `ListTasksRequest`: the state by its 1.0 name, the time as RFC 3339.
pub(super) fn list(params: &Value, tenant: String) -> Result<wire::ListTasksRequest, ClientError> {
    let status = match params.get("status").and_then(Value::as_str) {
        None => 0,
        Some(name) => v1::parse_state(name)
            .map(|state| convert::state(state) as i32)
            .ok_or_else(|| unsendable("status", format!("`{name}` is not a task state")))?,
    };
    let after = params
        .get("statusTimestampAfter")
        .and_then(Value::as_str)
        .map(|at| {
            chrono::DateTime::parse_from_rfc3339(at)
                .map(|at| convert::timestamp(&at.to_utc()))
                .map_err(|e| unsendable("statusTimestampAfter", e))
        })
        .transpose()?;
    Ok(wire::ListTasksRequest {
        tenant,
        context_id: text(params, "contextId"),
        status,
        page_size: count(params, "pageSize")?,
        page_token: text(params, "pageToken"),
        history_length: count(params, "historyLength")?,
        status_timestamp_after: after,
        include_artifacts: params.get("includeArtifacts").and_then(Value::as_bool),
    })
}

/// `TaskPushNotificationConfig`, as a create sends it.
pub(super) fn push_config(params: &Value, tenant: String) -> wire::TaskPushNotificationConfig {
    let authentication = params
        .get("authentication")
        .map(|auth| wire::AuthenticationInfo {
            scheme: text(auth, "scheme"),
            credentials: text(auth, "credentials"),
        });
    wire::TaskPushNotificationConfig {
        tenant,
        id: text(params, "id"),
        task_id: text(params, "taskId"),
        url: text(params, "url"),
        token: text(params, "token"),
        authentication,
    }
}

/// `TaskPushNotificationConfigRef` (get, delete).
pub(super) fn push_ref(params: &Value, tenant: String) -> wire::TaskPushNotificationConfigRef {
    wire::TaskPushNotificationConfigRef {
        tenant,
        task_id: text(params, "taskId"),
        id: text(params, "id"),
    }
}

/// `ListTaskPushNotificationConfigsRequest`.
pub(super) fn push_list(
    params: &Value,
    tenant: String,
) -> Result<wire::ListTaskPushNotificationConfigsRequest, ClientError> {
    Ok(wire::ListTaskPushNotificationConfigsRequest {
        tenant,
        task_id: text(params, "taskId"),
        page_size: count(params, "pageSize")?.unwrap_or(0),
        page_token: text(params, "pageToken"),
    })
}
