//! What every A2A route does before and after its handler, as one tower layer: authenticate
//! (401 with one challenge per scheme), refuse a declared body over the limit (413), time the
//! body's arrival, and echo the activated extensions on the response. One layer, not a
//! middleware per step: each middleware would box the request's future and clone the route
//! once more per request, and the request without credentials to check pays for none of it.

use a2a_runtime_core::observe::Meter;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures::future::BoxFuture;
use tower::Service;

use super::A2aError;
use super::extensions::{self, Extensions};
use a2a_runtime_core::auth::Security;
use a2a_runtime_core::body::{BodyTime, TimedBody, declared_over};
use a2a_runtime_types::model::Binding;

/// The settings of [`A2aGate`].
#[derive(Clone)]
pub struct GateSettings {
    /// Who may call, and how callers prove it.
    pub security: Arc<Security>,
    /// The extensions on the card, echoed when a request activates them.
    pub extensions: Arc<Extensions>,
    /// The largest body accepted.
    pub max_body: usize,
    /// How long a body may take.
    pub body_time: BodyTime,
    /// The binding behind the gate, whose error form its refusals take: JSON-RPC errors,
    /// gRPC statuses, or HTTP+JSON `google.rpc.Status` bodies.
    pub binding: Binding,
    /// The agent's meter: a request's span starts here when the server traces requests.
    pub meter: Meter,
    /// Where the agent's protected-resource metadata is (RFC 9728), when a scheme takes
    /// bearer tokens: every Bearer challenge of a 401 or 403 names it, so an A2A client finds
    /// the authorization server as an MCP client does.
    pub resource_metadata: Option<Arc<str>>,
}

/// The layer putting [`A2aGate`] in front of every A2A route.
#[derive(Clone)]
pub struct A2aGateLayer(pub Arc<GateSettings>);

impl<S> tower::Layer<S> for A2aGateLayer {
    type Service = A2aGate<S>;

    fn layer(&self, inner: S) -> Self::Service {
        A2aGate {
            inner,
            settings: Arc::clone(&self.0),
        }
    }
}

/// See the module docs.
#[derive(Clone)]
pub struct A2aGate<S> {
    inner: S,
    settings: Arc<GateSettings>,
}

impl<S> Service<Request> for A2aGate<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = GateFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let settings = Arc::clone(&self.settings);
        let request = if settings.meter.traces() {
            let (mut parts, body) = request.into_parts();
            settings
                .meter
                .begin_request(&mut parts.extensions, &parts.headers);
            Request::from_parts(parts, body)
        } else {
            request
        };
        if !settings.security.is_enabled() {
            // Without a scheme every caller is the anonymous one, which is also what a request
            // without a `Caller` extension means.
            return pass(&settings, &mut self.inner, request);
        }
        // The service that was polled ready answers; a clone takes its place.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        GateFuture::Authenticating {
            future: Box::pin(async move {
                let (mut parts, body) = request.into_parts();
                match settings.security.authenticate(&parts).await {
                    Ok(caller) => {
                        parts.extensions.insert(caller);
                    }
                    Err(refusal) => {
                        let error = A2aError::Unauthenticated(refusal.reason.clone());
                        // 401 over HTTP; a gRPC status in a 200 for gRPC.
                        let mut response = super::refusal(&error, settings.binding);
                        let metadata = settings.resource_metadata.as_deref();
                        for challenge in refusal.challenge_headers(metadata) {
                            response
                                .headers_mut()
                                .append(header::WWW_AUTHENTICATE, challenge);
                        }
                        return Ok(response);
                    }
                }
                let request = Request::from_parts(parts, body);
                match pass(&settings, &mut inner, request) {
                    GateFuture::Passed { future, activated } => {
                        let response = future.await?;
                        let response = naming_metadata(response, &settings);
                        Ok(echo(response, &activated))
                    }
                    GateFuture::Refused { response } => Ok(response.unwrap_or_default()),
                    GateFuture::Authenticating { future } => future.await,
                }
            }),
        }
    }
}

/// The steps after authentication: a declared body over the limit is refused before any of it
/// is read; any other is read within time, and its handler called.
fn pass<S>(settings: &GateSettings, inner: &mut S, request: Request) -> GateFuture<S::Future>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    if declared_over(request.headers(), settings.max_body) {
        let limit = settings.max_body;
        return GateFuture::Refused {
            response: Some(super::refusal(
                &A2aError::PayloadTooLarge { limit },
                settings.binding,
            )),
        };
    }
    let activated = settings.extensions.activated(request.headers());
    let time = settings.body_time;
    let request = request.map(|body| Body::new(TimedBody::new(body, time)));
    GateFuture::Passed {
        future: inner.call(request),
        activated,
    }
}

/// `response` with the resource's metadata named in its Bearer challenges: a handler refusing
/// a call for missing scope (403) challenges without knowing where the agent is served, which
/// only the gate does. Responses without a challenge pass untouched.
fn naming_metadata(mut response: Response, settings: &GateSettings) -> Response {
    let Some(url) = &settings.resource_metadata else {
        return response;
    };
    if !response.headers().contains_key(header::WWW_AUTHENTICATE) {
        return response;
    }
    let challenges: Vec<HeaderValue> = response
        .headers()
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .map(|value| match value.to_str() {
            Ok(text) if text.starts_with("Bearer") && !text.contains("resource_metadata=") => {
                let named = format!(
                    "{text}, resource_metadata={}",
                    a2a_runtime_core::auth::quoted(url)
                );
                HeaderValue::from_str(&named).unwrap_or_else(|_| value.clone())
            }
            _ => value.clone(),
        })
        .collect();
    response.headers_mut().remove(header::WWW_AUTHENTICATE);
    for challenge in challenges {
        response
            .headers_mut()
            .append(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// The response naming, in `A2A-Extensions`, the request's extensions the agent supports.
fn echo(mut response: Response, activated: &[&'static str]) -> Response {
    if !activated.is_empty()
        && let Ok(value) = HeaderValue::from_str(&activated.join(", "))
    {
        response.headers_mut().insert(extensions::HEADER, value);
    }
    response
}

pin_project_lite::pin_project! {
    /// The answer of an [`A2aGate`].
    #[project = GateProjection]
    pub enum GateFuture<F> {
        /// Refused before the handler.
        Refused { response: Option<Response> },
        /// Handed to the handler (the common case: nothing boxed).
        Passed {
            #[pin]
            future: F,
            activated: Vec<&'static str>,
        },
        /// Credentials being checked, then handed on.
        Authenticating { future: BoxFuture<'static, Result<Response, Infallible>> },
    }
}

impl<F> Future for GateFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            GateProjection::Refused { response } => {
                Poll::Ready(Ok(response.take().unwrap_or_default()))
            }
            GateProjection::Passed { future, activated } => {
                let Ok(response) = ready!(future.poll(cx));
                Poll::Ready(Ok(echo(response, activated)))
            }
            GateProjection::Authenticating { future } => future.as_mut().poll(cx),
        }
    }
}
