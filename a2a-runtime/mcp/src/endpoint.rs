//! `/mcp` over HTTP as one service: it authenticates the request, refuses a body declared over
//! the limit, checks the request with the [`McpGate`] (after rmcp, for the one request rmcp
//! may read first: see `McpGate::admit`), and answers a stateless call itself (`direct/`) or
//! hands the request to rmcp. These are the steps the A2A routes take as middleware, called in
//! sequence here because every MCP call passes through them and a stack of middleware boxes and
//! clones at each layer.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::Response;
use futures::future::BoxFuture;
use rmcp::transport::StreamableHttpService;
use tower::Service;

use super::{McpGate, McpHandler};
use crate::direct::DirectCalls;
use crate::sessions::McpSessions;
use a2a_runtime_core::auth::security::Security;

/// The rmcp service behind an endpoint (one agent's, or several agents' under one endpoint).
pub type RmcpService = StreamableHttpService<McpHandler, McpSessions>;

/// An MCP endpoint (cheap to clone).
#[derive(Clone)]
pub struct McpEndpoint(Arc<Endpoint>);

struct Endpoint {
    gate: McpGate,
    security: Arc<Security>,
    rmcp: RmcpService,
    /// Stateless calls answered without rmcp's serve loop, unless a tool's schema rules it out.
    direct: Option<DirectCalls>,
}

impl McpEndpoint {
    pub fn new(
        gate: McpGate,
        security: Arc<Security>,
        rmcp: RmcpService,
        direct: Option<DirectCalls>,
    ) -> Self {
        Self(Arc::new(Endpoint {
            gate,
            security,
            rmcp,
            direct,
        }))
    }

    /// Answers `request`.
    pub fn handle(&self, request: Request) -> BoxFuture<'static, Result<Response, Infallible>> {
        let endpoint = self.clone();
        Box::pin(async move { Ok(endpoint.serve(request).await) })
    }

    /// The endpoint as a tower service, to route or layer.
    pub fn service(
        &self,
    ) -> impl Service<
        Request,
        Response = Response,
        Error = Infallible,
        Future = BoxFuture<'static, Result<Response, Infallible>>,
    > + Clone
    + Send
    + Sync
    + 'static {
        let endpoint = self.clone();
        tower::service_fn(move |request| endpoint.handle(request))
    }

    async fn serve(self, request: Request) -> Response {
        let endpoint = &*self.0;
        let (mut parts, body) = request.into_parts();
        endpoint
            .gate
            .meter
            .begin_request(&mut parts.extensions, &parts.headers);
        super::authorize::authenticate(&endpoint.security, &mut parts).await;
        let limit = endpoint.gate.max_body;
        if a2a_runtime_core::body::declared_over(&parts.headers, limit) {
            let message = format!("request body exceeds the limit of {limit} bytes");
            return super::request_check::body_failure(StatusCode::PAYLOAD_TOO_LARGE, &message);
        }
        let admitted = match endpoint.gate.admit(Request::from_parts(parts, body)).await {
            Ok(admitted) => admitted,
            Err(refusal) => return refusal,
        };
        if let Some(direct) = &endpoint.direct
            && let Some(body) = &admitted.body
            && let Some(call) = direct.call(admitted.request.headers(), body)
        {
            let (parts, _) = admitted.request.into_parts();
            return direct.answer(parts, call).await;
        }
        let response = endpoint.rmcp.handle(admitted.request).await.map(Body::new);
        // A body rmcp read before the gate and refused: the gate's answer, if it refuses too.
        match admitted.unchecked {
            Some(unchecked) if response.status().is_client_error() => {
                unchecked.refusal().unwrap_or(response)
            }
            _ => response,
        }
    }
}
