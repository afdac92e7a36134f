//! A gRPC load generator for scripts/bench-load, as wrk is for the HTTP/1.1 rows: CONCURRENCY
//! callers, each making one `SendMessage` call after the other for SECONDS, on two threads, over
//! CONNECTIONS HTTP/2 connections (default 1: gRPC clients share one channel, multiplexing
//! their calls; CONNECTIONS = CONCURRENCY opens one per caller, as wrk does). Prints the calls
//! made, those that failed, the rate and the 50th and 99th percentile latency; every answer is
//! checked to be a message or a task, so a refusal cannot pass for speed.
//!
//! Run: `grpc-load ADDRESS CONCURRENCY SECONDS [CONNECTIONS]`

use std::time::{Duration, Instant};

use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic_prost::ProstCodec;

/// What one connection did: each call's latency, and its failures.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    failed: usize,
}

/// One connection calling until `until`.
async fn calls(channel: Channel, until: Instant) -> Tally {
    let path = PathAndQuery::try_from(grpc_baseline::send_message_path()).expect("a valid path");
    let mut grpc = tonic::client::Grpc::new(channel);
    let mut tally = Tally::default();
    while Instant::now() < until {
        let mut request = tonic::Request::new(grpc_baseline::send_message());
        let version = MetadataValue::from_static("1.0");
        request.metadata_mut().insert("a2a-version", version);
        let started = Instant::now();
        let codec = ProstCodec::<wire::SendMessageRequest, wire::SendMessageResponse>::default();
        let answered = match grpc.ready().await {
            Ok(()) => grpc.unary(request, path.clone(), codec).await.ok(),
            Err(_) => None,
        };
        match answered.and_then(|answer| answer.into_inner().payload) {
            Some(_) => tally.latencies.push(started.elapsed()),
            None => tally.failed += 1,
        }
    }
    tally
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

#[tokio::main(worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: grpc-load ADDRESS CONCURRENCY SECONDS [CONNECTIONS]";
    let address = args.next().ok_or(usage)?;
    let concurrency: usize = args.next().ok_or(usage)?.parse()?;
    let seconds: u64 = args.next().ok_or(usage)?.parse()?;
    let connections: usize = args.next().map_or(Ok(1), |n| n.parse())?;
    let endpoint = Endpoint::from_shared(format!("http://{address}"))?.tcp_nodelay(true);
    let mut channels = Vec::with_capacity(connections);
    for _ in 0..connections.clamp(1, concurrency.max(1)) {
        channels.push(endpoint.connect().await?);
    }
    let until = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..concurrency)
        .map(|caller| {
            let channel = channels[caller % channels.len()].clone();
            tokio::spawn(calls(channel, until))
        })
        .collect();
    let mut all = Tally::default();
    for worker in workers {
        let tally = worker.await?;
        all.latencies.extend(tally.latencies);
        all.failed += tally.failed;
    }
    all.latencies.sort_unstable();
    let made = all.latencies.len();
    #[allow(clippy::cast_precision_loss)] // A rate to two decimals.
    let rate = made as f64 / seconds as f64;
    println!(
        "calls {made} failed {} rate {rate:.2} p50 {:.2}ms p99 {:.2}ms",
        all.failed,
        percentile(&all.latencies, 50).as_secs_f64() * 1000.0,
        percentile(&all.latencies, 99).as_secs_f64() * 1000.0
    );
    Ok(())
}
