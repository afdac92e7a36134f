//! A2A over HTTP+JSON (a2a-spec.md §8): the 1.0 routes (`/message:send`, `/tasks/{id}`, …, each
//! also under a `/{tenant}` prefix) and the 0.3 routes under `/v1/`, all below a configurable
//! prefix and over the shared [`A2aService`]. Errors are `google.rpc.Status` bodies with the
//! HTTP status of A2A 1.0 §5.4; streams are SSE of bare `StreamResponse`s.

pub mod handlers;
pub mod v0_3;
pub mod v1;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::sse::Frames;
use super::{A2aError, A2aService, Version};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::TaskEvents;
use a2a_runtime_types::model::Binding;
use a2a_runtime_types::protocol::a2a::v1 as wire_v1;

/// What an operation answers.
enum Reply {
    Json(Vec<u8>),
    Stream(TaskEvents, Frames),
}

/// How an agent's HTTP+JSON routes take the request's tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tenants {
    /// The agent is the server's only one: the 1.0 routes are served under any `/{tenant}`
    /// prefix too (the tenant names nothing else).
    Any,
    /// The agent is mounted under its tenant by a server hosting several, which selects it by
    /// that prefix: its routes take no tenant of their own.
    Mounted,
}

/// The HTTP+JSON routes of `service`, under `prefix` (empty, or starting with `/`).
pub fn routes(service: Arc<A2aService>, prefix: &str, tenants: Tenants) -> Router {
    let v1 = handlers::routes::<v1::V1>();
    let legacy = handlers::routes::<v0_3::V0_3>();
    let mut router = Router::new().merge(v1.clone());
    if tenants == Tenants::Any {
        router = router.nest("/{tenant}", v1);
    }
    let mut router = router.nest("/v1", legacy);
    if !prefix.is_empty() {
        router = Router::new().nest(prefix, router);
    }
    router.with_state(service)
}

/// A request as every operation reads it: its version, query and body.
struct Request {
    query: HashMap<String, String>,
    body: Bytes,
}

impl Request {
    /// Checks the request's `A2A-Version` and `Content-Type` for a route of `version`.
    fn read(
        service: &A2aService,
        version: Version,
        headers: &HeaderMap,
        uri: &Uri,
        body: Result<Bytes, BytesRejection>,
    ) -> Result<Self, A2aError> {
        match super::requested_version(headers, uri) {
            Some(requested) => match Version::parse(&requested) {
                Some(given) if given == version => {}
                _ => return Err(A2aError::VersionNotSupported(requested)),
            },
            None if version == Version::V1_0 && service.settings.require_version_header => {
                return Err(A2aError::VersionNotSupported("0.3".into()));
            }
            None => {}
        }
        service.settings.extensions.check(headers)?;
        let body = body
            .map_err(|rejection| super::unread_body(&rejection, service.settings.max_body_bytes))?;
        // A bodyless POST (`:cancel`) needs no Content-Type (RFC 9110 §8.3).
        if !body.is_empty() {
            super::check_json_content_type(headers, true)?;
        }
        let query = uri
            .query()
            .map(|q| {
                url_pairs(q)
                    .into_iter()
                    .collect::<HashMap<String, String>>()
            })
            .unwrap_or_default();
        Ok(Self { query, body })
    }

    /// The body as sent (empty for none; [`json`](Self::json) reads that as `{}`).
    fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body as JSON (an empty body is `{}`), read as ProtoJSON readers read it: proto
    /// field names and quoted integers too (`proto_json.rs`).
    fn json(&self) -> Result<Value, A2aError> {
        if self.body.is_empty() {
            return Ok(Value::Object(serde_json::Map::new()));
        }
        serde_json::from_slice(&self.body)
            .map(a2a_runtime_types::protocol::a2a::proto_json::lenient)
            .map_err(|e| A2aError::Parse(e.to_string()))
    }

    /// A query parameter.
    fn text(&self, name: &str) -> Option<String> {
        self.query.get(name).cloned()
    }

    /// An integer query parameter.
    fn integer(&self, name: &str) -> Result<Option<i64>, A2aError> {
        self.query
            .get(name)
            .map(|v| {
                v.parse().map_err(|_| {
                    A2aError::invalid_params(name, format!("must be an integer, got `{v}`"))
                })
            })
            .transpose()
    }

    /// The `ListTasks` query parameters (the same names in 1.0 and 0.3).
    fn list_query(&self) -> Result<wire_v1::ListTasksRequest, A2aError> {
        Ok(wire_v1::ListTasksRequest {
            context_id: self.text("contextId"),
            status: self.text("status"),
            page_size: self.integer("pageSize")?,
            page_token: self.text("pageToken"),
            history_length: self.integer("historyLength")?,
            status_timestamp_after: self.text("statusTimestampAfter"),
            include_artifacts: self.boolean("includeArtifacts")?,
        })
    }

    /// A boolean query parameter (`true`/`false`).
    fn boolean(&self, name: &str) -> Result<bool, A2aError> {
        match self.query.get(name).map(String::as_str) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(A2aError::invalid_params(
                name,
                format!("must be `true` or `false`, got `{other}`"),
            )),
        }
    }
}

/// `a=1&b=x%20y` → pairs, percent-decoded (`+` is a space).
fn url_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    // Two hex digits make one byte.
                    out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `{id}` or `{id}:{verb}` from a path segment.
fn split_verb(segment: &str) -> (&str, Option<&str>) {
    match segment.rsplit_once(':') {
        Some((id, verb)) => (id, Some(verb)),
        None => (segment, None),
    }
}

/// Which A2A operation a request is, and when it arrived (when the agent's meter is on).
struct Operation {
    name: &'static str,
    version: Version,
    started: Option<std::time::Instant>,
}

impl Operation {
    /// Operation `name` of `version`, arriving now.
    fn start(service: &A2aService, name: &'static str, version: Version) -> Self {
        Self {
            name,
            version,
            started: service.manager.meter().clock(),
        }
    }
}

/// The response to `operation`, reported to the agent's meter.
fn respond(
    service: &A2aService,
    operation: Operation,
    caller: &CallerId,
    reply: Result<Reply, A2aError>,
) -> Response {
    if operation.started.is_some() {
        let Operation {
            name,
            version,
            started,
        } = operation;
        let (binding, error) = (Binding::HttpJson, reply.as_ref().err());
        crate::metering::report(service, started, name, version, binding, error, caller);
    }
    match reply {
        Ok(Reply::Json(body)) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response(),
        Ok(Reply::Stream(events, frames)) => super::sse::respond(
            events,
            frames,
            service.settings.sse_keep_alive,
            service.shutdown.clone(),
        ),
        Err(error) => error_response(&error),
    }
}

/// An HTTP+JSON error: the status of A2A 1.0 §5.4 and a `google.rpc.Status` body.
pub fn error_response(error: &A2aError) -> Response {
    let body = serde_json::to_vec(&error.status_body()).unwrap_or_default();
    let mut response = (
        error.http_status(),
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response();
    super::add_error_headers(&mut response, error);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_percent_decoded() {
        assert_eq!(
            url_pairs("contextId=a%20b&status=TASK_STATE_WORKING&x=1+2&bad=%zz"),
            vec![
                ("contextId".into(), "a b".into()),
                ("status".into(), "TASK_STATE_WORKING".into()),
                ("x".into(), "1 2".into()),
                ("bad".into(), "%zz".into()),
            ]
        );
        assert_eq!(
            percent_decode("2026-01-01T00%3A00%3A00Z"),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(percent_decode("%4"), "%4");
    }

    #[test]
    fn verbs_follow_the_last_colon() {
        assert_eq!(split_verb("abc:cancel"), ("abc", Some("cancel")));
        assert_eq!(split_verb("abc"), ("abc", None));
    }
}
