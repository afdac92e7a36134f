//! The HTTP+JSON binding: each operation is a route under the interface's URL (1.0: `/message:send`,
//! `/tasks/{id}` …, below `/{tenant}` when the interface names one; 0.3: the same under `/v1`),
//! its request in the body or the query, its response the bare body, errors a
//! `google.rpc.Status` with the HTTP status.

use reqwest::Method;
use serde_json::Value;

use super::ClientError;
use super::dialect::{Dialect, Op};
use super::endpoint::{Prepared, Reading, json_body};
use super::error::RemoteError;

/// The request calling `op` with `params` (the JSON-RPC params of `dialect`, whose fields the
/// route puts in its path, query or body).
pub(super) fn request(
    base: &reqwest::Url,
    dialect: Dialect,
    tenant: Option<&str>,
    op: Op,
    params: Value,
) -> Result<Prepared, ClientError> {
    let text = |key: &str| {
        params
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let configs = "pushNotificationConfigs";
    let (method, path, query, body): (Method, Vec<String>, Vec<&str>, bool) = match op {
        Op::Send => (Method::POST, vec!["message:send".into()], vec![], true),
        Op::Stream => (Method::POST, vec!["message:stream".into()], vec![], true),
        Op::Get => (
            Method::GET,
            vec!["tasks".into(), text("id")],
            vec!["historyLength"],
            false,
        ),
        Op::Cancel => (
            Method::POST,
            vec!["tasks".into(), format!("{}:cancel", text("id"))],
            vec![],
            false,
        ),
        // The 1.0 proto says GET, its prose and most servers POST; 0.3 servers serve GET.
        Op::Subscribe => (
            if dialect == Dialect::V1 {
                Method::POST
            } else {
                Method::GET
            },
            vec!["tasks".into(), format!("{}:subscribe", text("id"))],
            vec![],
            false,
        ),
        Op::List => {
            let keys = params
                .as_object()
                .map(|fields| fields.keys().map(String::as_str).collect())
                .unwrap_or_default();
            (Method::GET, vec!["tasks".into()], keys, false)
        }
        Op::PushSet => {
            // 1.0 sends the config with its `taskId`; the 0.3 proto names the task `tasks/{id}`.
            let task = match params.get("parent").and_then(Value::as_str) {
                Some(parent) => parent.trim_start_matches("tasks/").to_owned(),
                None => text("taskId"),
            };
            let path = vec!["tasks".into(), task, configs.into()];
            (Method::POST, path, vec![], true)
        }
        Op::PushGet | Op::PushDelete => {
            let method = if op == Op::PushGet {
                Method::GET
            } else {
                Method::DELETE
            };
            let path = vec!["tasks".into(), text("taskId"), configs.into(), text("id")];
            (method, path, vec![], false)
        }
        Op::PushList => {
            let path = vec!["tasks".into(), text("taskId"), configs.into()];
            (Method::GET, path, vec!["pageToken"], false)
        }
        Op::ExtendedCard => {
            let name = if dialect == Dialect::V1 {
                "extendedAgentCard"
            } else {
                "card"
            };
            (Method::GET, vec![name.into()], vec![], false)
        }
    };
    let mut url = base.clone();
    {
        let mut segments = url
            .path_segments_mut()
            .map_err(|()| ClientError::InvalidUrl {
                url: base.to_string(),
                reason: "cannot be a base for HTTP+JSON routes".into(),
            })?;
        segments.pop_if_empty();
        match (dialect, tenant) {
            (Dialect::V1, Some(tenant)) => {
                segments.push(tenant);
            }
            (Dialect::V1, None) => {}
            (Dialect::V0_3 | Dialect::V0_3Proto, _) => {
                segments.push("v1");
            }
        }
        segments.extend(&path);
    }
    let pairs: Vec<(&str, String)> = query
        .into_iter()
        .filter_map(|key| Some((key, query_value(params.get(key)?)?)))
        .collect();
    if !pairs.is_empty() {
        url.query_pairs_mut().extend_pairs(pairs);
    }
    let body = if body {
        Some(json_body(&params)?)
    } else {
        None
    };
    Ok(Prepared {
        wire: super::endpoint::Wire::Rest,
        method,
        url,
        body,
        idempotency_key: None,
    })
}

/// A query parameter's text: strings as they are, numbers and booleans as JSON writes them.
fn query_value(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The response of an answer (`answer`: its body, if it is JSON; `empty`: it had none).
pub(super) fn result(answer: Option<Value>, status: u16, empty: bool) -> Result<Value, Reading> {
    if (200..300).contains(&status) {
        return match answer {
            Some(answer) => Ok(answer),
            // A delete may answer 204 with no body.
            None if empty => Ok(Value::Object(serde_json::Map::new())),
            None => Err(Reading::Unexpected),
        };
    }
    match answer.as_ref().and_then(|answer| error(answer, status)) {
        Some(error) => Err(Reading::Remote(Box::new(error))),
        None => Err(Reading::Unexpected),
    }
}

/// The response an event of a stream carries, or the error it reports.
pub(super) fn event(event: Value) -> Result<Value, ClientError> {
    if let Some(status) = event.get("error").and_then(|e| e.get("code")?.as_u64()) {
        let status = u16::try_from(status).unwrap_or(500);
        if let Some(error) = error(&event, status) {
            return Err(error.into());
        }
    }
    Ok(event)
}

/// The error an error body describes: a `google.rpc.Status` (`{error: {code, status, message,
/// details}}`), or the looser bodies of 0.3 servers (`{message}`, RFC 9457 `{title, detail}`).
fn error(body: &Value, status: u16) -> Option<RemoteError> {
    if let Some(status_body) = body.get("error").filter(|e| e.is_object()) {
        return Some(RemoteError::from_status(status_body, status));
    }
    let text = |key: &str| body.get(key).and_then(Value::as_str);
    let message = text("message")
        .or_else(|| text("detail"))
        .or_else(|| text("title"))?;
    Some(RemoteError {
        code: i64::from(status),
        message: message.to_owned(),
        info: None,
        data: Some(body.clone()),
        http_status: Some(status),
        grpc_status: None,
    })
}
