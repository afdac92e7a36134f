//! A bare tonic gRPC echo of A2A's `SendMessage`: decodes the `SendMessageRequest` and answers a
//! `SendMessageResponse` holding its message. The ceiling scripts/bench-load compares the agent's
//! gRPC binding against, served as tonic serves a generated service (its own server over
//! HTTP/2 in clear text, multi-threaded tokio, TCP_NODELAY).
//!
//! Run: `cargo run --release -p grpc-baseline --bin grpc-echo -- 127.0.0.1:8092`

use std::convert::Infallible;

use a2a_runtime_types::protocol::a2a::grpc::SERVICE;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic_prost::ProstCodec;

/// The service: `SendMessage` only, as a generated server's method table would route it.
#[derive(Clone)]
struct Echo;

impl NamedService for Echo {
    const NAME: &'static str = SERVICE;
}

impl Service<http::Request<Body>> for Echo {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        Box::pin(async move {
            if request.uri().path() != grpc_baseline::send_message_path() {
                return Ok(tonic::Status::unimplemented("SendMessage only").into_http());
            }
            let codec =
                ProstCodec::<wire::SendMessageResponse, wire::SendMessageRequest>::default();
            Ok(Grpc::new(codec).unary(SendMessage, request).await)
        })
    }
}

/// The method: the request's message back.
struct SendMessage;

impl UnaryService<wire::SendMessageRequest> for SendMessage {
    type Response = wire::SendMessageResponse;
    type Future = std::future::Ready<Result<tonic::Response<Self::Response>, tonic::Status>>;

    fn call(&mut self, request: tonic::Request<wire::SendMessageRequest>) -> Self::Future {
        let payload = request
            .into_inner()
            .message
            .map(wire::SendMessagePayload::Message);
        std::future::ready(Ok(tonic::Response::new(wire::SendMessageResponse {
            payload,
        })))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8092".into())
        .parse()?;
    eprintln!("gRPC echo on {addr}");
    tonic::transport::Server::builder()
        .tcp_nodelay(true)
        .add_service(Echo)
        .serve(addr)
        .await?;
    Ok(())
}
