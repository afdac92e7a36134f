//! A2A 1.0 over gRPC: the eleven methods of `lf.a2a.v1.A2AService` as one more thin adapter
//! over [`A2aService`], like JSON-RPC and HTTP+JSON (same task manager, caller, limits,
//! ownership, questions, push and metering). tonic reads and writes the frames (its codec, size
//! limit and status trailers); the route sits behind the A2A gate like every A2A route, whose
//! refusals a gRPC caller gets as statuses ([`refusal`]).

mod methods;
mod status;
mod tenant;

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tonic::server::Grpc;
use tonic_prost::ProstCodec;

use crate::metering::report;
use crate::{A2aError, A2aService, Calling, Version};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::TaskEvents;
use a2a_runtime_types::model::Binding;
use a2a_runtime_types::protocol::a2a::grpc::METHODS;

pub use status::refusal;
pub use tenant::tenant_of;

/// The route of the service's methods (`/lf.a2a.v1.A2AService/SendMessage`…).
pub const ROUTE: &str = "/lf.a2a.v1.A2AService/{method}";

/// What every method's call carries: the service, the caller, the method and when it began.
#[derive(Clone)]
struct Call {
    service: Arc<A2aService>,
    caller: CallerId,
    method: &'static str,
    started: Option<Instant>,
}

impl Call {
    /// Reports the call to the agent's meter, as the other bindings report theirs.
    fn report(&self, error: Option<&A2aError>) {
        let (service, caller) = (&self.service, &self.caller);
        let binding = Binding::Grpc;
        report(
            service,
            self.started,
            self.method,
            Version::V1_0,
            binding,
            error,
            caller,
        );
    }

    /// The codec's settings: a request larger than the agent's body limit is refused.
    fn grpc<Out, In>(&self) -> Grpc<ProstCodec<Out, In>>
    where
        Out: prost::Message + Send + 'static,
        In: prost::Message + Default + Send + 'static,
    {
        let limit = self.service.settings.max_body_bytes;
        Grpc::new(ProstCodec::default()).apply_max_message_size_config(Some(limit), None)
    }
}

/// What a port of gRPC's own answers to a request that is not gRPC: 415, as the gRPC
/// specification says a server answers what is not gRPC, naming where the rest is.
pub fn refuse_other(request: &Request) -> Option<Response> {
    (!is_grpc(request.headers())).then(|| {
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "this port serves gRPC only (lf.a2a.v1.A2AService); the agent's card names where its \
             other bindings are\n",
        )
            .into_response()
    })
}

/// `POST /lf.a2a.v1.A2AService/{method}`.
pub async fn handle(
    State(service): State<Arc<A2aService>>,
    Calling(caller): Calling,
    request: Request,
) -> Response {
    // From the path itself, not axum's `Path`: a host's root hands requests here through a
    // route of its own, whose parameters a `Path` would count too.
    let method = request.uri().path().rsplit('/').next().unwrap_or_default();
    if !is_grpc(request.headers()) {
        // The gRPC specification's answer to a request that is not gRPC.
        return StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response();
    }
    let call = Call {
        started: service.manager.meter().clock(),
        method: METHODS
            .iter()
            .copied()
            .find(|m| *m == method)
            .unwrap_or("unknown"),
        service,
        caller,
    };
    if let Err(error) = checked(&call.service, request.headers()) {
        call.report(Some(&error));
        return refusal(&error);
    }
    dispatch(call, request).await
}

/// One arm per method of the service: the binding's method table.
async fn dispatch(call: Call, request: Request) -> Response {
    use methods as m;
    match call.method {
        "SendMessage" => unary(call, request, m::send).await,
        "SendStreamingMessage" => streaming(call, request, m::send_streaming).await,
        "GetTask" => unary(call, request, m::get_task).await,
        "ListTasks" => unary(call, request, m::list_tasks).await,
        "CancelTask" => unary(call, request, m::cancel_task).await,
        "SubscribeToTask" => streaming(call, request, m::subscribe).await,
        "CreateTaskPushNotificationConfig" => unary(call, request, m::create_push_config).await,
        "GetTaskPushNotificationConfig" => unary(call, request, m::get_push_config).await,
        "ListTaskPushNotificationConfigs" => unary(call, request, m::list_push_configs).await,
        "DeleteTaskPushNotificationConfig" => unary(call, request, m::delete_push_config).await,
        "GetExtendedAgentCard" => unary(call, request, m::extended_card).await,
        _ => {
            let error = A2aError::MethodNotFound {
                message: format!(
                    "{} has no method `{}`; its methods are {}",
                    a2a_runtime_types::protocol::a2a::grpc::SERVICE,
                    request.uri().path().rsplit('/').next().unwrap_or_default(),
                    METHODS.join(", ")
                ),
            };
            call.report(Some(&error));
            refusal(&error)
        }
    }
}

/// A unary method: the request decoded (within the body limit), `run`, the response encoded.
async fn unary<In, Out, F, Fut>(call: Call, request: Request, run: F) -> Response
where
    In: prost::Message + Default + Send + 'static,
    Out: prost::Message + Send + 'static,
    F: FnOnce(Call, In) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<Out, A2aError>> + Send,
{
    let mut grpc = call.grpc::<Out, In>();
    let method = tower::service_fn(move |request: tonic::Request<In>| {
        let (call, run) = (call.clone(), run.clone());
        async move {
            let answered = run(call.clone(), request.into_inner()).await;
            call.report(answered.as_ref().err());
            answered
                .map(tonic::Response::new)
                .map_err(|error| status::status(&error))
        }
    });
    grpc.unary(method, request).await.map(axum::body::Body::new)
}

/// A server-streaming method: `run` opens the stream, whose items are sent as they come.
async fn streaming<In, F, Fut>(call: Call, request: Request, run: F) -> Response
where
    In: prost::Message + Default + Send + 'static,
    F: FnOnce(Call, In) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<TaskEvents, A2aError>> + Send,
{
    let mut grpc =
        call.grpc::<a2a_runtime_types::protocol::a2a::grpc::messages::StreamResponse, In>();
    let method = tower::service_fn(move |request: tonic::Request<In>| {
        let (call, run) = (call.clone(), run.clone());
        async move {
            let opened = run(call.clone(), request.into_inner()).await;
            call.report(opened.as_ref().err());
            opened
                .map(|events| tonic::Response::new(methods::responses(events)))
                .map_err(|error| status::status(&error))
        }
    });
    grpc.server_streaming(method, request)
        .await
        .map(axum::body::Body::new)
}

/// Whether the request says it is gRPC (`application/grpc`, `application/grpc+proto`).
fn is_grpc(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let value = value.to_ascii_lowercase();
            value == "application/grpc" || value.starts_with("application/grpc+proto")
        })
}

/// The request's `a2a-version` (1.0, or none unless the agent requires it) and extensions.
fn checked(service: &A2aService, headers: &HeaderMap) -> Result<(), A2aError> {
    match crate::requested_version(headers, &Uri::default()) {
        Some(requested) if Version::parse(&requested) == Some(Version::V1_0) => {}
        Some(requested) => return Err(A2aError::VersionNotSupported(requested)),
        None if service.settings.require_version_header => {
            return Err(A2aError::VersionNotSupported("0.3".into()));
        }
        None => {}
    }
    service.settings.extensions.check(headers)
}
