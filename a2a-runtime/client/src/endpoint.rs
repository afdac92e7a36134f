//! One interface of a remote agent, in its binding ([`Wire`]) and [`Dialect`]: a call goes
//! out as the binding's request, its answer comes back as the operation's result (in the
//! dialect's JSON) or the agent's error, retried as the client's [`RetryPolicy`] allows. A call
//! made inside a traced skill continues its trace (`traceparent`, `tracestate`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;

use super::body::{BodyError, ReadLimits, read_bounded};
use super::credentials::CredentialSource;
use super::dialect::{Dialect, Op};
use super::error::{ClientError, RemoteError};
use super::retry::{Failure, RetryPolicy, retry_after};
use super::sse::{SseError, data_events};
use super::{jsonrpc, rest};
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::new_id;
use a2a_runtime_types::outgoing::Outgoing;

/// The most of an unexpected body an error quotes.
const QUOTED_BODY: usize = 512;

/// How requests reach the agent over HTTP/1.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// JSON-RPC 2.0: every call a POST to one URL.
    JsonRpc,
    /// HTTP+JSON: a route per operation.
    Rest,
}

/// What carries an endpoint's calls.
#[derive(Debug)]
pub(crate) enum Carrier {
    /// HTTP requests to `url` in `wire`.
    Http { url: reqwest::Url, wire: Wire },
    /// gRPC calls on a channel.
    #[cfg(feature = "grpc")]
    Grpc(Box<super::grpc::GrpcChannel>),
}

/// One request, as every attempt sends it.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The binding it is written in, which its answer is read in.
    pub(crate) wire: Wire,
    pub(crate) method: reqwest::Method,
    pub(crate) url: reqwest::Url,
    pub(crate) body: Option<Bytes>,
    /// The request's `Idempotency-Key` (see [`Op::keyed`]): made once per call, so every
    /// retry of it carries the same one.
    pub(crate) idempotency_key: Option<HeaderValue>,
}

/// `value` as a request body.
pub(crate) fn json_body(value: &Value) -> Result<Bytes, ClientError> {
    serde_json::to_vec(value)
        .map(Bytes::from)
        .map_err(|e| ClientError::InvalidResponse {
            field: "params".into(),
            reason: format!("cannot be sent: {e}"),
        })
}

/// Why an answer holds no result.
pub(crate) enum Reading {
    /// The agent answered with a protocol error.
    Remote(Box<RemoteError>),
    /// Neither a result nor a protocol error: reported with its HTTP status.
    Unexpected,
    /// A protocol answer missing what it must hold.
    Invalid(ClientError),
}

/// Calls operations at one interface of an agent.
#[derive(Debug)]
pub(crate) struct Endpoint {
    carrier: Carrier,
    dialect: Dialect,
    /// The tenant the interface names (1.0), sent with every request.
    tenant: Option<String>,
    retry: RetryPolicy,
    /// The longest a call may take; streams have none (see [`ClientBuilder::timeout`]).
    ///
    /// [`ClientBuilder::timeout`]: super::ClientBuilder::timeout
    timeout: Duration,
    /// How much of an answer is read, and how long a stream may be silent.
    limits: ReadLimits,
    /// Where each request's bearer token comes from, when it changes over time.
    credential: Option<Arc<dyn CredentialSource>>,
    next_id: AtomicU64,
}

/// What a request answered: its status and what its headers say, read once.
struct Answer {
    status: u16,
    /// `Retry-After`, in seconds.
    retry_after: Option<Duration>,
    is_json: bool,
    is_sse: bool,
    response: reqwest::Response,
}

impl Endpoint {
    pub(crate) fn new(
        carrier: Carrier,
        dialect: Dialect,
        tenant: Option<String>,
        retry: RetryPolicy,
        timeout: Duration,
        limits: ReadLimits,
        credential: Option<Arc<dyn CredentialSource>>,
    ) -> Self {
        Self {
            carrier,
            dialect,
            tenant,
            retry,
            timeout,
            limits,
            credential,
            next_id: AtomicU64::new(1),
        }
    }

    /// The A2A version and JSON form spoken here.
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
        let Some(span) = self.span(op) else {
            return self.call_untraced(http, op, params).await;
        };
        let result = span.within(self.call_untraced(http, op, params)).await;
        span.finish(result.as_ref().err().map(ClientError::error_type));
        result
    }

    /// The `CLIENT` span of `op`, when it is sent from a skill whose server reports traces.
    fn span(&self, op: Op) -> Option<Outgoing> {
        let url = match &self.carrier {
            Carrier::Http { url, .. } => std::borrow::Cow::Borrowed(url.as_str()),
            #[cfg(feature = "grpc")]
            Carrier::Grpc(channel) => {
                std::borrow::Cow::Owned(format!("grpc://{}", channel.address()))
            }
        };
        Outgoing::start(self.dialect.protocol(), op.method(), None, &url)
    }

    async fn call_untraced(
        &self,
        http: &reqwest::Client,
        op: Op,
        params: Value,
    ) -> Result<Value, ClientError> {
        let (url, wire) = match &self.carrier {
            Carrier::Http { url, wire } => (url, *wire),
            #[cfg(feature = "grpc")]
            Carrier::Grpc(channel) => {
                let key = op.keyed().then(new_id);
                let key = key.as_deref();
                return self
                    .with_retries(op, || channel.call(op, &params, key))
                    .await;
            }
        };
        let request = self.prepare(url, wire, op, params)?;
        self.with_retries(op, || async {
            let answer = self.send(http, &request, false).await?;
            let (status, retry_after, is_json) =
                (answer.status, answer.retry_after, answer.is_json);
            let bytes = self.read(&request, answer.response).await?;
            self.result(op, &request, status, retry_after, is_json, &bytes)
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
    ) -> Result<BoxStream<'static, Result<Value, ClientError>>, ClientError> {
        // The span lasts until the stream opens (its first event, or its refusal).
        let Some(span) = self.span(op) else {
            return self.stream_untraced(http, op, params).await;
        };
        let result = span.within(self.stream_untraced(http, op, params)).await;
        span.finish(result.as_ref().err().map(ClientError::error_type));
        result
    }

    async fn stream_untraced(
        &self,
        http: &reqwest::Client,
        op: Op,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, ClientError>>, ClientError> {
        let (url, wire) = match &self.carrier {
            Carrier::Http { url, wire } => (url, *wire),
            #[cfg(feature = "grpc")]
            Carrier::Grpc(channel) => {
                let key = op.keyed().then(new_id);
                let key = key.as_deref();
                return self
                    .with_retries(op, || channel.stream(op, &params, key))
                    .await;
            }
        };
        let request = self.prepare(url, wire, op, params)?;
        let response = self
            .with_retries(op, || async {
                let answer = self.send(http, &request, true).await?;
                if answer.is_sse {
                    return Ok(answer.response);
                }
                // Refused before any event: a protocol error (or an HTTP one).
                let (status, retry_after) = (answer.status, answer.retry_after);
                let bytes = self.read(&request, answer.response).await?;
                let error = match self.result(op, &request, status, retry_after, true, &bytes) {
                    Err(failure) => return Err(failure),
                    Ok(_) => unexpected(&request, status, &bytes),
                };
                Err(Failure::answered(error, status, retry_after))
            })
            .await?;
        let (url, limits) = (request.url.to_string(), self.limits);
        let events = data_events(response.bytes_stream().boxed(), limits).map(move |event| {
            let data = event.map_err(|error| match error {
                SseError::Transport(source) => ClientError::Transport {
                    url: url.clone(),
                    source,
                },
                SseError::TooLarge => ClientError::TooLarge {
                    url: url.clone(),
                    limit: limits.max_bytes,
                },
                SseError::Idle => ClientError::StreamIdle {
                    url: url.clone(),
                    idle: limits.stream_idle,
                },
            })?;
            let event: Value =
                serde_json::from_str(&data).map_err(|e| ClientError::InvalidResponse {
                    field: String::new(),
                    reason: format!("is an event that is not JSON: {e}"),
                })?;
            match wire {
                Wire::JsonRpc => jsonrpc::event(event),
                Wire::Rest => rest::event(event),
            }
        });
        // A 0.3 agent may refuse a stream with an event stream of one error (its clients read
        // nothing else): that is a refusal before any event, as a plain error answer is.
        let mut events = events.boxed();
        let first = events.next().await;
        if let Some(Err(refusal @ ClientError::Remote(_))) = first {
            return Err(refusal);
        }
        Ok(futures::stream::iter(first).chain(events).boxed())
    }

    /// The body of an answer to `request`, within the client's bound.
    async fn read(
        &self,
        request: &Prepared,
        response: reqwest::Response,
    ) -> Result<Bytes, Failure> {
        read_bounded(response, self.limits.max_bytes)
            .await
            .map_err(|error| match error {
                BodyError::Transport(source) => Failure::transport(request.url.as_str(), source),
                BodyError::TooLarge => Failure::fatal(ClientError::TooLarge {
                    url: request.url.to_string(),
                    limit: self.limits.max_bytes,
                }),
            })
    }

    /// The request of `op` to `url` in `wire`.
    fn prepare(
        &self,
        url: &reqwest::Url,
        wire: Wire,
        op: Op,
        params: Value,
    ) -> Result<Prepared, ClientError> {
        let tenant = self.tenant.as_deref();
        let mut prepared = match wire {
            Wire::JsonRpc => {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                jsonrpc::request(url, self.dialect, tenant, id, op, params)
            }
            Wire::Rest => rest::request(url, self.dialect, tenant, op, params),
        }?;
        prepared.idempotency_key = op
            .keyed()
            .then(|| HeaderValue::try_from(new_id()).ok())
            .flatten();
        Ok(prepared)
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

    async fn send(
        &self,
        http: &reqwest::Client,
        prepared: &Prepared,
        sse: bool,
    ) -> Result<Answer, Failure> {
        let mut request = http
            .request(prepared.method.clone(), prepared.url.clone())
            .header(
                "A2A-Version",
                HeaderValue::from_static(self.dialect.version()),
            );
        if let Some(body) = &prepared.body {
            request = request
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body.clone());
        }
        request = if sse {
            request.header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        } else {
            request.timeout(self.timeout)
        };
        request = with_trace(request);
        if let Some(key) = &prepared.idempotency_key {
            request = request.header("Idempotency-Key", key.clone());
        }
        let token = match &self.credential {
            Some(source) => Some(source.token().await.map_err(Failure::fatal)?),
            None => None,
        };
        if let Some(token) = &token {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|source| Failure::transport(prepared.url.as_str(), source))?;
        if let (Some(source), Some(token)) = (&self.credential, &token)
            && response.status() == reqwest::StatusCode::UNAUTHORIZED
        {
            source.refused(token);
        }
        let headers = response.headers();
        let content_type = content_type(headers);
        Ok(Answer {
            status: response.status().as_u16(),
            retry_after: retry_after(headers),
            is_json: content_type.starts_with("application/json")
                || content_type.starts_with("application/a2a+json")
                || content_type.starts_with("application/problem+json"),
            is_sse: content_type.starts_with("text/event-stream"),
            response,
        })
    }

    /// The result of an answer, or why there is none.
    fn result(
        &self,
        op: Op,
        request: &Prepared,
        status: u16,
        retry_after: Option<Duration>,
        is_json: bool,
        body: &[u8],
    ) -> Result<Value, Failure> {
        let answer: Option<Value> = if is_json {
            serde_json::from_slice(body).ok()
        } else {
            None
        };
        let reading = match request.wire {
            Wire::JsonRpc => jsonrpc::result(answer, status, op),
            Wire::Rest => rest::result(answer, status, body.is_empty()),
        };
        reading.map_err(|reading| match reading {
            Reading::Remote(error) => {
                Failure::answered(ClientError::Remote(error), status, retry_after)
            }
            Reading::Unexpected => {
                Failure::answered(unexpected(request, status, body), status, retry_after)
            }
            Reading::Invalid(error) => Failure::fatal(error),
        })
    }
}

/// An answer that is neither a result nor a protocol error.
fn unexpected(request: &Prepared, status: u16, body: &[u8]) -> ClientError {
    ClientError::Http {
        url: request.url.to_string(),
        status,
        body: quote(body),
    }
}

/// `request` continuing the trace of the skill call it is made in, if that call has one.
fn with_trace(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let Some(trace) = TraceContext::current() else {
        return request;
    };
    // The skill's own span when this process reports it, so the callee's span hangs under it.
    let child = trace.outgoing();
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

pub(crate) fn quote(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(QUOTED_BODY) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}
