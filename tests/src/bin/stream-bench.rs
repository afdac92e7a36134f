//! Streaming benchmark driver (`scripts/bench-stream`): starts `bench-stepper` on 127.0.0.1,
//! then measures
//! 1. SSE events per second delivered to one subscriber (and to 8 at once) of a task that
//!    publishes artifact chunks as fast as it can, and
//! 2. the server's resident memory per idle subscriber, from `/proc/<pid>/status` before and
//!    after opening many `SubscribeToTask` streams on a waiting task.
//!
//! Usage: `stream-bench SERVER_BINARY [EVENTS] [IDLE_SUBSCRIBERS]`
//!
//! The client runs on one thread so that, on a small machine, it competes less with the server.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let server = args
        .next()
        .expect("usage: stream-bench SERVER_BINARY [EVENTS] [IDLE]");
    let events: u64 = args.next().map_or(200_000, |n| n.parse().expect("EVENTS"));
    let idle: usize = args
        .next()
        .map_or(1000, |n| n.parse().expect("IDLE_SUBSCRIBERS"));

    // One client opens every stream: the per-caller caps are raised out of its way.
    let (mut child, base) = a2a_tests::spawn_served_with(
        &server,
        &[
            "--max-streams-per-caller",
            "1000000",
            "--max-running-per-caller",
            "1000000",
            "--tasks-per-second-per-caller",
            "1000000",
            "--task-burst-per-caller",
            "1000000",
        ],
    )
    .await;
    let pid = child.id().expect("server pid");
    let http = a2a_tests::http_builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client");

    memory_per_subscriber(&http, &base, pid, idle).await;

    println!("events per second (artifact chunks of 64 bytes, one task):");
    for round in 1..=3 {
        let (count, elapsed) = one_stream(&http, &base, events).await;
        println!(
            "  round {round}: 1 subscriber: {count} events in {:.3} s = {:.0} events/s",
            elapsed.as_secs_f64(),
            count as f64 / elapsed.as_secs_f64()
        );
    }
    let (total, elapsed) = fan_out(&http, &base, events / 4, 8).await;
    println!(
        "  8 subscribers on one task: {total} events in {:.3} s = {:.0} events/s in all",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
    child.kill().await.ok();
}

/// What an idle keep-alive connection costs the server, and then an idle subscriber.
async fn memory_per_subscriber(http: &reqwest::Client, base: &str, pid: u32, idle: usize) {
    // Baseline: what an idle HTTP/1.1 keep-alive connection costs the server by itself.
    let rss_fresh = a2a_tests::rss_kb(pid);
    let mut connections = Vec::with_capacity(idle);
    for _ in 0..idle {
        connections.push(keep_alive(base).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_connections = a2a_tests::rss_kb(pid);
    println!(
        "baseline: {idle} idle keep-alive connections (after one GET /healthz each): {:.1} kB each",
        rss_connections.saturating_sub(rss_fresh) as f64 / idle as f64
    );
    drop(connections);

    // Idle subscribers, on the same server. One subscriber is attached before the first
    // reading so the task's shared event buffer is not counted per subscriber.
    let task_id = waiting_task(http, base).await;
    let mut streams = vec![attach(http, base, &task_id).await];
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = a2a_tests::rss_kb(pid);
    println!("idle subscribers on one waiting task (server RSS {before} kB with one):");
    // The first batch partly reuses memory the baseline connections freed; the second batch
    // shows the cost of fresh memory.
    let mut last = before;
    for batch in 1..=2 {
        for _ in 0..idle {
            streams.push(attach(http, base, &task_id).await);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rss = a2a_tests::rss_kb(pid);
        println!(
            "  batch {batch}: {idle} more open, RSS {rss} kB => {:.1} kB per idle subscriber",
            rss.saturating_sub(last) as f64 / idle as f64
        );
        last = rss;
    }
    drop(streams);
}

fn message(skill: &str, input: Value) -> Value {
    json!({"messageId": "bench", "role": "ROLE_USER", "parts": [{"data": input}], "metadata": {"skill": skill}})
}

async fn rpc(http: &reqwest::Client, base: &str, method: &str, params: Value) -> reqwest::Response {
    http.post(base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
        .send()
        .await
        .expect("request")
}

/// Reads a whole SSE response, counting events.
async fn count_events(mut response: reqwest::Response) -> u64 {
    let mut count = 0u64;
    let mut tail: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await.expect("read") {
        tail.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(at) = find(&tail[start..], b"\n\n") {
            if tail[start..].starts_with(b"data:") {
                count += 1;
            }
            start += at + 2;
        }
        tail.drain(..start);
    }
    count
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn one_stream(http: &reqwest::Client, base: &str, events: u64) -> (u64, Duration) {
    let started = Instant::now();
    let response = rpc(
        http,
        base,
        "SendStreamingMessage",
        json!({"message": message("flood", json!({"count": events, "size": 64}))}),
    )
    .await;
    let count = count_events(response).await;
    (count, started.elapsed())
}

async fn fan_out(
    http: &reqwest::Client,
    base: &str,
    events: u64,
    subscribers: usize,
) -> (u64, Duration) {
    // The task waits at a gate until every subscriber is attached.
    let input = json!({"count": events, "size": 64, "gate": "fan-out"});
    let created: Value = rpc(
        http,
        base,
        "SendMessage",
        json!({"message": message("flood", input), "configuration": {"returnImmediately": true}}),
    )
    .await
    .json()
    .await
    .expect("json");
    let id = created["result"]["task"]["id"]
        .as_str()
        .expect("task id")
        .to_owned();
    let mut attached = Vec::new();
    for _ in 0..subscribers {
        let mut response = subscribe(http, base, &id).await;
        let snapshot = response.chunk().await.expect("read").expect("snapshot");
        attached.push((response, snapshot));
    }
    let started = Instant::now();
    let readers: Vec<_> = attached
        .into_iter()
        .map(|(response, _snapshot)| tokio::spawn(count_events(response)))
        .collect();
    rpc(
        http,
        base,
        "SendMessage",
        json!({"message": message("open_gate", json!({"gate": "fan-out", "steps": 1}))}),
    )
    .await;
    let mut total = 0;
    for reader in readers {
        total += reader.await.expect("reader");
    }
    (total, started.elapsed())
}

async fn waiting_task(http: &reqwest::Client, base: &str) -> String {
    let created: Value = rpc(
        http,
        base,
        "SendMessage",
        json!({"message": message("wait", json!({"millis": 3_600_000})),
               "configuration": {"returnImmediately": true}}),
    )
    .await
    .json()
    .await
    .expect("json");
    created["result"]["task"]["id"]
        .as_str()
        .expect("task id")
        .to_owned()
}

/// A raw connection that made one request and stays open.
async fn keep_alive(base: &str) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = base.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {authority}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut buffer = [0u8; 512];
    let read = stream.read(&mut buffer).await.expect("read");
    assert!(
        buffer[..read].starts_with(b"HTTP/1.1 200"),
        "healthz answered"
    );
    stream
}

/// Subscribes and reads the snapshot, so the subscription is live on the server.
async fn attach(http: &reqwest::Client, base: &str, id: &str) -> reqwest::Response {
    let mut response = subscribe(http, base, id).await;
    response.chunk().await.expect("read").expect("snapshot");
    response
}

async fn subscribe(http: &reqwest::Client, base: &str, id: &str) -> reqwest::Response {
    rpc(http, base, "SubscribeToTask", json!({"id": id})).await
}
