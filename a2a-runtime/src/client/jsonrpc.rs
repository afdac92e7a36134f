//! A2A over JSON-RPC 2.0 (in the endpoint's [`Dialect`]): one POST per call, the method's params
//! in, its result out, retried
//! as the client's [`RetryPolicy`] allows. A call made inside a traced skill continues its trace
//! (`traceparent`, `tracestate`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::dialect::{Dialect, Op};
use super::error::{ClientError, RemoteError};
use super::retry::{Failure, RetryPolicy, retry_after};
use super::sse::{SseError, data_events};
use crate::call::TraceContext;

/// The most of an unexpected body an error quotes.
const QUOTED_BODY: usize = 512;

/// Calls methods at one JSON-RPC endpoint.
#[derive(Debug)]
pub(crate) struct JsonRpc {
    url: String,
    dialect: Dialect,
    retry: RetryPolicy,
    /// The longest a call may take; streams have none (see [`ClientBuilder::timeout`]).
    ///
    /// [`ClientBuilder::timeout`]: super::ClientBuilder::timeout
    timeout: Duration,
    next_id: AtomicU64,
}

/// What a POST answered: its status and what its headers say, read once.
struct Answer {
    status: u16,
    /// `Retry-After`, in seconds.
    retry_after: Option<Duration>,
    is_json: bool,
    is_sse: bool,
    response: reqwest::Response,
}

impl JsonRpc {
    pub(crate) fn new(
        url: String,
        dialect: Dialect,
        retry: RetryPolicy,
        timeout: Duration,
    ) -> Self {
        Self {
            url,
            dialect,
            retry,
            timeout,
            next_id: AtomicU64::new(1),
        }
    }

    /// The A2A version spoken here.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// How this endpoint's calls are retried.
    pub(crate) fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// Calls `op` with `params`; its result, or the agent's error.
    pub(crate) async fn call(
        &self,
        http: &reqwest::Client,
        op: Op,
        params: Value,
    ) -> Result<Value, ClientError> {
        let body = self.body(op, params)?;
        self.with_retries(op, || async {
            let answer = self.post(http, &body, false).await?;
            let (status, retry_after, is_json) =
                (answer.status, answer.retry_after, answer.is_json);
            let bytes = answer
                .response
                .bytes()
                .await
                .map_err(|source| Failure::transport(&self.url, source))?;
            self.result(status, retry_after, is_json, &bytes)
        })
        .await
    }

    /// Calls streaming `op` with `params`: the result of each event the agent streams, or the
    /// agent's error (at once, or as the stream's last item).
    pub(crate) async fn stream(
        &self,
        http: &reqwest::Client,
        op: Op,
        params: Value,
    ) -> Result<impl Stream<Item = Result<Value, ClientError>> + Send + use<>, ClientError> {
        let body = self.body(op, params)?;
        let response = self
            .with_retries(op, || async {
                let answer = self.post(http, &body, true).await?;
                if answer.is_sse {
                    return Ok(answer.response);
                }
                // Refused before any event: a JSON-RPC error (or an HTTP one).
                let (status, retry_after) = (answer.status, answer.retry_after);
                let bytes = answer
                    .response
                    .bytes()
                    .await
                    .map_err(|source| Failure::transport(&self.url, source))?;
                let error = match self.result(status, retry_after, true, &bytes) {
                    Err(failure) => return Err(failure),
                    Ok(_) => self.unexpected(status, &bytes),
                };
                Err(Failure::answered(error, status, retry_after))
            })
            .await?;
        let url = self.url.clone();
        let events = data_events(response.bytes_stream().boxed()).map(move |event| {
            let data = event.map_err(|error| match error {
                SseError::Transport(source) => ClientError::Transport {
                    url: url.clone(),
                    source,
                },
                SseError::TooLarge => ClientError::InvalidResponse {
                    field: String::new(),
                    reason: "is an event larger than this client reads (16 MiB)".into(),
                },
            })?;
            let mut answer: Value =
                serde_json::from_str(&data).map_err(|e| ClientError::InvalidResponse {
                    field: String::new(),
                    reason: format!("is an event that is not JSON: {e}"),
                })?;
            if let Some(error) = answer.get("error") {
                return Err(RemoteError::from_jsonrpc(error).into());
            }
            answer
                .as_object_mut()
                .and_then(|answer| answer.remove("result"))
                .ok_or_else(|| ClientError::InvalidResponse {
                    field: "result".into(),
                    reason: "is missing from an event".into(),
                })
        });
        Ok(events)
    }

    /// Runs `attempt` until it succeeds or the policy gives up.
    async fn with_retries<T, F, Fut>(&self, op: Op, attempt: F) -> Result<T, ClientError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let idempotent = op.idempotent();
        let mut made = 1;
        loop {
            match attempt().await {
                Ok(value) => return Ok(value),
                Err(failure) => match self.retry.next(made, &failure, idempotent) {
                    Some(wait) => {
                        tracing::debug!(?op, attempt = made, ?wait, error = %failure.error, "retrying");
                        tokio::time::sleep(wait).await;
                        made += 1;
                    }
                    None => return Err(failure.error),
                },
            }
        }
    }

    /// The request body of one call (each attempt sends the same).
    fn body(&self, op: Op, params: Value) -> Result<Bytes, ClientError> {
        let method = self.dialect.method(op)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        serde_json::to_vec(&request)
            .map(Bytes::from)
            .map_err(|e| ClientError::InvalidResponse {
                field: "params".into(),
                reason: format!("cannot be sent: {e}"),
            })
    }

    async fn post(
        &self,
        http: &reqwest::Client,
        body: &Bytes,
        sse: bool,
    ) -> Result<Answer, Failure> {
        let mut request = http
            .post(&self.url)
            .header(
                "A2A-Version",
                HeaderValue::from_static(self.dialect.version()),
            )
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .body(body.clone());
        request = if sse {
            request.header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        } else {
            request.timeout(self.timeout)
        };
        request = with_trace(request);
        let response = request
            .send()
            .await
            .map_err(|source| Failure::transport(&self.url, source))?;
        let headers = response.headers();
        let content_type = content_type(headers);
        Ok(Answer {
            status: response.status().as_u16(),
            retry_after: retry_after(headers),
            is_json: content_type.starts_with("application/json"),
            is_sse: content_type.starts_with("text/event-stream"),
            response,
        })
    }

    /// The result of a JSON-RPC answer, or why there is none.
    fn result(
        &self,
        status: u16,
        retry_after: Option<Duration>,
        is_json: bool,
        body: &[u8],
    ) -> Result<Value, Failure> {
        // A JSON-RPC error may come with any status (401, 403, 429 …): read it when there is one.
        let answer: Option<Value> = if is_json {
            serde_json::from_slice(body).ok()
        } else {
            None
        };
        let Some(Value::Object(mut answer)) = answer else {
            return Err(Failure::answered(
                self.unexpected(status, body),
                status,
                retry_after,
            ));
        };
        if let Some(error) = answer.get("error") {
            let error = RemoteError::from_jsonrpc(error).into();
            return Err(Failure::answered(error, status, retry_after));
        }
        match answer.remove("result") {
            Some(result) if (200..300).contains(&status) => Ok(result),
            Some(_) => Err(Failure::answered(
                self.unexpected(status, body),
                status,
                retry_after,
            )),
            None => Err(Failure::fatal(ClientError::InvalidResponse {
                field: "result".into(),
                reason: "is missing, and there is no `error` either".into(),
            })),
        }
    }

    /// An answer that is neither a result nor a protocol error.
    fn unexpected(&self, status: u16, body: &[u8]) -> ClientError {
        ClientError::Http {
            url: self.url.clone(),
            status,
            body: quote(body),
        }
    }
}

/// `request` continuing the trace of the skill call it is made in, if that call has one.
fn with_trace(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let Some(trace) = TraceContext::current() else {
        return request;
    };
    let child = trace.child();
    let request = request.header("traceparent", child.traceparent());
    match child.tracestate() {
        Some(state) => request.header("tracestate", state),
        None => request,
    }
}

fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

fn quote(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(QUOTED_BODY) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}
