//! The gRPC binding (A2A 1.0's `lf.a2a.v1.A2AService`): each operation is a unary or
//! server-streaming call on one HTTP/2 channel to the interface's `host:port`, in TLS when the
//! card was read over `https`. It takes and gives the 1.0 JSON of the other bindings
//! ([`request`], [`answer`]), so the rest of the client (retries, resuming streams, reading
//! results) is one; an error status with its `ErrorInfo` is the [`RemoteError`] JSON-RPC gives.
//!
//! Reads are bounded as on HTTP: a message larger than the client reads is refused before it is
//! buffered (tonic's decoding limit), a call by the client's timeout, a stream's silence by its
//! idle timeout.

mod answer;
mod request;

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{StreamExt, TryFutureExt};
use http::uri::PathAndQuery;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tonic::Code;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic_prost::ProstCodec;

use super::body::ReadLimits;
use super::credentials::{ClientIdentity, CredentialSource};
use super::dialect::{Dialect, Op};
use super::error::{ClientError, RemoteError};
use super::retry::Failure;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::protocol::a2a::grpc::SERVICE;
use a2a_runtime_types::protocol::a2a::grpc::card::AgentCard;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use a2a_runtime_types::protocol::a2a::grpc::status::RpcStatus;

/// How often an idle connection is pinged, so a long stream over a dead connection ends
/// rather than waiting for events that cannot come.
const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// Calls the operations of one gRPC interface.
#[derive(Debug)]
pub(crate) struct GrpcChannel {
    channel: Channel,
    /// The interface's address, as errors name it.
    address: String,
    /// Sent as metadata with every call: the credentials and headers the builder was given.
    headers: HeaderMap,
    /// The tenant every request names (empty: none).
    tenant: String,
    timeout: Duration,
    limits: ReadLimits,
    /// Where each call's bearer token comes from, when it changes over time.
    credential: Option<Arc<dyn CredentialSource>>,
}

/// How a channel reaches and bounds its calls.
pub(crate) struct Settings {
    /// The card's address (`host:port`; an agent that gives a URL is read for its authority).
    pub(crate) address: String,
    /// The card was read over `https`, so the channel is TLS too.
    pub(crate) tls: bool,
    pub(crate) headers: HeaderMap,
    pub(crate) connect_timeout: Duration,
    pub(crate) tenant: Option<String>,
    pub(crate) timeout: Duration,
    pub(crate) limits: ReadLimits,
    pub(crate) credential: Option<Arc<dyn CredentialSource>>,
    /// The client's certificate chain and key, shown to a TLS server that asks.
    pub(crate) identity: Option<ClientIdentity>,
}

impl GrpcChannel {
    /// The interface's address (`host:port`).
    pub(crate) fn address(&self) -> &str {
        &self.address
    }

    /// A channel to `settings.address`; it connects on the first call.
    pub(crate) fn new(settings: Settings) -> Result<Self, ClientError> {
        let invalid = |reason: String| ClientError::InvalidUrl {
            url: settings.address.clone(),
            reason,
        };
        let (authority, tls) = match settings.address.split_once("://") {
            Some((scheme, rest)) => (rest.trim_end_matches('/'), scheme.ends_with('s')),
            None => (settings.address.as_str(), settings.tls),
        };
        let uri = format!("{}://{authority}", if tls { "https" } else { "http" });
        let mut endpoint = Endpoint::from_shared(uri)
            .map_err(|e| invalid(e.to_string()))?
            .connect_timeout(settings.connect_timeout)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(KEEP_ALIVE)
            .keep_alive_timeout(settings.connect_timeout);
        if tls {
            let mut config = ClientTlsConfig::new().with_native_roots();
            if let Some(identity) = &settings.identity {
                // One PEM holds both: the certificates are read from it, then the key.
                let pem = identity.pem();
                config = config.identity(tonic::transport::Identity::from_pem(pem, pem));
            }
            endpoint = endpoint
                .tls_config(config)
                .map_err(|e| invalid(e.to_string()))?;
        }
        Ok(Self {
            channel: endpoint.connect_lazy(),
            address: authority.to_owned(),
            headers: settings.headers,
            tenant: settings.tenant.unwrap_or_default(),
            timeout: settings.timeout,
            limits: settings.limits,
            credential: settings.credential,
        })
    }

    /// The bearer token of this call, when the channel has a source of them.
    async fn token(&self) -> Result<Option<Arc<str>>, Failure> {
        match &self.credential {
            Some(source) => source.token().await.map(Some).map_err(Failure::fatal),
            None => Ok(None),
        }
    }

    /// `failure` of a call made with `token`: a refused token is not sent again.
    fn refused_if(&self, failure: Failure, token: Option<&Arc<str>>) -> Failure {
        let unauthenticated = matches!(&failure.error,
            ClientError::Remote(e) if e.grpc_status == Some(Code::Unauthenticated as i32));
        if let (true, Some(source), Some(token)) = (unauthenticated, &self.credential, token) {
            source.refused(token);
        }
        failure
    }

    /// Calls `op` with `params` (its 1.0 JSON): the 1.0 JSON of its answer.
    pub(crate) async fn call(
        &self,
        op: Op,
        params: &Value,
        key: Option<&str>,
    ) -> Result<Value, Failure> {
        let tenant = self.tenant.clone();
        let read = |result: Result<Value, ClientError>| result.map_err(Failure::fatal);
        match op {
            Op::Send => {
                let request = request::send(params, tenant).map_err(Failure::fatal)?;
                read(answer::sent(self.unary(op, request, key).await?))
            }
            Op::Get => {
                let request = request::get(params, tenant).map_err(Failure::fatal)?;
                read(answer::task(self.unary(op, request, key).await?))
            }
            Op::Cancel => {
                let task = self.unary(op, request::cancel(params, tenant), key).await?;
                read(answer::task(task))
            }
            Op::List => {
                let request = request::list(params, tenant).map_err(Failure::fatal)?;
                read(answer::tasks(self.unary(op, request, key).await?))
            }
            Op::PushSet => {
                let request = request::push_config(params, tenant);
                Ok(answer::push_config(self.unary(op, request, key).await?))
            }
            Op::PushGet => {
                let request = request::push_ref(params, tenant);
                Ok(answer::push_config(self.unary(op, request, key).await?))
            }
            Op::PushList => {
                let request = request::push_list(params, tenant).map_err(Failure::fatal)?;
                Ok(answer::push_configs(self.unary(op, request, key).await?))
            }
            Op::PushDelete => {
                // `google.protobuf.Empty`, which prost declares as `()`.
                let () = self
                    .unary(op, request::push_ref(params, tenant), key)
                    .await?;
                Ok(Value::Null)
            }
            Op::ExtendedCard => {
                let request = wire::GetExtendedAgentCardRequest { tenant };
                let card: AgentCard = self.unary(op, request, key).await?;
                Ok(card.to_json())
            }
            Op::Stream | Op::Subscribe => Err(Failure::fatal(ClientError::Unsupported {
                operation: op.name(),
                version: "1.0 over gRPC as one answer (it streams)".into(),
            })),
        }
    }

    /// Calls streaming `op` with `params`: the 1.0 JSON of each item, or the agent's error (at
    /// once, or as the last item).
    pub(crate) async fn stream(
        &self,
        op: Op,
        params: &Value,
        key: Option<&str>,
    ) -> Result<BoxStream<'static, Result<Value, ClientError>>, Failure> {
        let tenant = self.tenant.clone();
        let request = match op {
            Op::Stream => request::send(params, tenant).map_err(Failure::fatal)?,
            Op::Subscribe => {
                let request = request::subscribe(params, tenant);
                return self.open(op, request, None).await;
            }
            _ => {
                return Err(Failure::fatal(ClientError::Unsupported {
                    operation: op.name(),
                    version: "1.0 over gRPC as a stream (it answers once)".into(),
                }));
            }
        };
        self.open(op, request, key).await
    }

    /// Opens streaming call `op` (its answer's headers within the call timeout) and reads its
    /// items, each within the idle timeout.
    async fn open<Request>(
        &self,
        op: Op,
        request: Request,
        key: Option<&str>,
    ) -> Result<BoxStream<'static, Result<Value, ClientError>>, Failure>
    where
        Request: prost::Message + Send + Sync + 'static,
    {
        let path = path(op)?;
        let mut grpc = self.client();
        let token = self.token().await?;
        let request = self.request(request, None, key, token.as_deref());
        let codec = ProstCodec::<Request, wire::StreamResponse>::default();
        let opened = async {
            grpc.ready().await.map_err(|e| self.lost(e.into()))?;
            grpc.server_streaming(request, path, codec)
                .map_err(|status| self.refused_if(self.failure(status), token.as_ref()))
                .await
        };
        let items = tokio::time::timeout(self.timeout, opened)
            .await
            .map_err(|_| self.timed_out())??
            .into_inner();
        let (address, limits) = (self.address.clone(), self.limits);
        // An item that cannot be read is reported and the stream goes on, as on HTTP; a status
        // or a silent stream ends it.
        let items = futures::stream::unfold(Some(items), move |state| {
            let address = address.clone();
            async move {
                let mut items = state?;
                match tokio::time::timeout(limits.stream_idle, items.message()).await {
                    Err(_) => {
                        let idle = limits.stream_idle;
                        Some((Err(ClientError::StreamIdle { url: address, idle }), None))
                    }
                    Ok(Ok(Some(item))) => Some((answer::stream_item(item), Some(items))),
                    Ok(Ok(None)) => None,
                    Ok(Err(status)) => Some((Err(failure(status, &address, limits).error), None)),
                }
            }
        })
        .boxed();
        Ok(items)
    }

    /// Calls unary `op` with `message`, within the call timeout.
    async fn unary<Request, Response>(
        &self,
        op: Op,
        message: Request,
        key: Option<&str>,
    ) -> Result<Response, Failure>
    where
        Request: prost::Message + Send + Sync + 'static,
        Response: prost::Message + Default + Send + Sync + 'static,
    {
        let path = path(op)?;
        let mut grpc = self.client();
        let token = self.token().await?;
        let request = self.request(message, Some(self.timeout), key, token.as_deref());
        let call = async {
            grpc.ready().await.map_err(|e| self.lost(e.into()))?;
            grpc.unary(request, path, ProstCodec::<Request, Response>::default())
                .map_err(|status| self.refused_if(self.failure(status), token.as_ref()))
                .await
        };
        match tokio::time::timeout(self.timeout, call).await {
            Ok(answer) => answer.map(tonic::Response::into_inner),
            Err(_) => Err(self.timed_out()),
        }
    }

    fn client(&self) -> tonic::client::Grpc<Channel> {
        tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(self.limits.max_bytes)
    }

    /// `message` with the call's metadata: the builder's headers, `A2A-Version`, the trace the
    /// call continues, the call's idempotency key and bearer token, and (unary calls) the
    /// deadline.
    fn request<M>(
        &self,
        message: M,
        deadline: Option<Duration>,
        key: Option<&str>,
        token: Option<&str>,
    ) -> tonic::Request<M> {
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = MetadataMap::from_headers(self.headers.clone());
        let metadata = request.metadata_mut();
        if let Some(Ok(mut bearer)) = token.map(|t| MetadataValue::try_from(format!("Bearer {t}")))
        {
            bearer.set_sensitive(true);
            metadata.insert("authorization", bearer);
        }
        metadata.insert(
            "a2a-version",
            MetadataValue::from_static(Dialect::V1.version()),
        );
        if let Some(trace) = TraceContext::current() {
            let child = trace.outgoing();
            if let Ok(parent) = MetadataValue::try_from(child.traceparent()) {
                metadata.insert("traceparent", parent);
            }
            if let Some(Ok(state)) = child.tracestate().map(MetadataValue::try_from) {
                metadata.insert("tracestate", state);
            }
        }
        if let Some(Ok(key)) = key.map(MetadataValue::try_from) {
            metadata.insert("idempotency-key", key);
        }
        if let Some(deadline) = deadline {
            request.set_timeout(deadline);
        }
        request
    }

    fn failure(&self, status: tonic::Status) -> Failure {
        failure(status, &self.address, self.limits)
    }

    /// The channel could not be made ready: the connection failed.
    fn lost(&self, error: Box<dyn std::error::Error + Send + Sync>) -> Failure {
        transport(&self.address, causes(&*error), false, true)
    }

    fn timed_out(&self) -> Failure {
        let waited = a2a_runtime_types::util::duration_text(self.timeout);
        let reason = format!("no answer within {waited} (ClientBuilder::timeout)");
        transport(&self.address, reason, true, true)
    }
}

/// A call that failed on the way to `address` (`transient`: another attempt may get through).
fn transport(address: &str, reason: String, timed_out: bool, transient: bool) -> Failure {
    Failure {
        error: ClientError::GrpcTransport {
            address: address.to_owned(),
            reason,
            timed_out,
        },
        retry_after: None,
        transient,
    }
}

/// The path of `op`'s method: `/lf.a2a.v1.A2AService/{Method}`.
fn path(op: Op) -> Result<PathAndQuery, Failure> {
    let method = Dialect::V1.method(op).map_err(Failure::fatal)?;
    PathAndQuery::try_from(format!("/{SERVICE}/{method}")).map_err(|e| {
        Failure::fatal(ClientError::InvalidUrl {
            url: method.to_owned(),
            reason: e.to_string(),
        })
    })
}

/// How tonic begins the status of a response that ended without its `grpc-status` trailer.
const TRUNCATED: &str = "protocol error: missing grpc-status trailer";

/// What a failed call's status means. tonic's own statuses (the connection failed or was lost)
/// carry the error that made them; an agent's, read from its trailers, carry none.
fn failure(status: tonic::Status, address: &str, limits: ReadLimits) -> Failure {
    if let Some(source) = status.source() {
        let reason = format!("{}: {}", status.message(), causes(source));
        let transient = matches!(status.code(), Code::Unavailable | Code::Unknown);
        return transport(address, reason, false, transient);
    }
    // A stream that ended with no status at all: cut on the way (a proxy or balancer whose
    // upstream died ends it so), not answered. tonic says so only in this message.
    if status.code() == Code::Unknown && status.message().starts_with(TRUNCATED) {
        return transport(address, status.message().to_owned(), false, true);
    }
    // tonic refuses a message past the client's bound before buffering it, with this wording
    // (an agent refusing a request past its own bound names its own limit).
    let bound = format!("the limit is: {} bytes", limits.max_bytes);
    if status.code() == Code::OutOfRange && status.message().contains(&bound) {
        return Failure::fatal(ClientError::TooLarge {
            url: address.to_owned(),
            limit: limits.max_bytes,
        });
    }
    let details = <RpcStatus as prost::Message>::decode(status.details()).unwrap_or_default();
    let http = http_equivalent(status.code());
    let remote = RemoteError::from_grpc(
        status.code() as i32,
        http,
        status.message().to_owned(),
        details.json_details(),
    );
    Failure::answered(
        ClientError::Remote(Box::new(remote)),
        http,
        details.retry_delay(),
    )
}

/// The HTTP status a gRPC code stands for (the mapping of Google's API design guide), which
/// decides retries as an HTTP answer's status does.
fn http_equivalent(code: Code) -> u16 {
    match code {
        Code::Ok => 200,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
        Code::Unauthenticated => 401,
        Code::PermissionDenied => 403,
        Code::NotFound => 404,
        Code::AlreadyExists | Code::Aborted => 409,
        Code::ResourceExhausted => 429,
        Code::Cancelled => 499,
        Code::Unimplemented => 501,
        Code::Unavailable => 503,
        Code::DeadlineExceeded => 504,
        Code::Unknown | Code::Internal | Code::DataLoss => 500,
    }
}

/// `error` and its causes, outermost first.
fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = cause.source();
    }
    text
}
