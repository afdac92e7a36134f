//! Push notification benchmark driver (`scripts/bench-push`): starts `lab-server` on 127.0.0.1
//! (delivering to loopback) and a receiver in this process that answers 200 at once, then
//! measures
//! 1. deliveries per second to that receiver: one task's events through one config (a queue is
//!    delivered in order, one POST at a time), and many tasks' events at once (one queue each);
//! 2. the server CPU each task event costs with a push config, against the same events without
//!    one (from `/proc/<pid>/stat`);
//! 3. the server's resident memory held by 10 000 deliveries pending for a receiver that is
//!    down (a closed port; retries a minute apart).
//!
//! Usage: `push-bench SERVER_BINARY [EVENTS] [STORE]`   (STORE: memory, the default, or sqlite)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_runtime::axum::{self, routing::post};
use a2a_runtime::futures;
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let server = args
        .next()
        .expect("usage: push-bench SERVER_BINARY [EVENTS] [STORE]");
    let events: u64 = args.next().map_or(20_000, |n| n.parse().expect("EVENTS"));
    let store = args.next().unwrap_or_else(|| "memory".into());
    let data = a2a_tests::scratch_dir();
    println!("store: {store}");
    let store_of = |name: &str| match store.as_str() {
        "sqlite" => format!("sqlite://{}", data.join(name).display()),
        _ => "memory".to_owned(),
    };
    let (received, hook) = receiver().await;
    let (child, base) = start(&server, &store_of("tasks.sqlite3")).await;
    let bench = Bench {
        http: a2a_tests::http(),
        pid: child.id().expect("server pid"),
        base,
        received,
    };
    // Warm up connections and code paths.
    bench.send(100, Some(&hook)).await;
    bench.wait_for(per_task(100)).await;
    bench.deliveries_per_second(events, &hook).await;
    bench.cpu_per_event(events, &hook).await;
    // A fresh server, so memory freed by the runs above does not hide what is held.
    drop(child);
    let (child, base) = start(&server, &store_of("pending.sqlite3")).await;
    let bench = Bench {
        pid: child.id().expect("server pid"),
        base,
        ..bench
    };
    bench.pending_memory().await;
    drop(child);
}

/// Deliveries `tick(times)` makes: WORKING, `times` progress reports, two artifacts, COMPLETED.
fn per_task(times: u64) -> u64 {
    times + 4
}

/// A receiver in this process answering 200 at once: how many it received, and its URL.
async fn receiver() -> (Arc<AtomicU64>, String) {
    let received = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&received);
    let receiver = axum::Router::new().route(
        "/",
        post(move || {
            counter.fetch_add(1, Ordering::Relaxed);
            async { "" }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("receiver port");
    let hook = format!("http://{}/", listener.local_addr().expect("bound address"));
    tokio::spawn(async move { axum::serve(listener, receiver).await });
    (received, hook)
}

/// The server under measurement, and what the receiver got.
struct Bench {
    http: reqwest::Client,
    base: String,
    pid: u32,
    received: Arc<AtomicU64>,
}

impl Bench {
    async fn send(&self, times: u64, url: Option<&str>) {
        send_task(&self.http, &self.base, times, url.map(str::to_owned)).await;
    }

    /// Until the receiver has `target` deliveries.
    async fn wait_for(&self, target: u64) {
        while self.received.load(Ordering::Relaxed) < target {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Deliveries per second (measure 1): one task's events through one config (in order, one
    /// POST at a time), then many tasks' at once.
    async fn deliveries_per_second(&self, events: u64, hook: &str) {
        self.received.store(0, Ordering::Relaxed);
        let started = Instant::now();
        self.send(events, Some(hook)).await;
        self.wait_for(per_task(events)).await;
        let elapsed = started.elapsed().as_secs_f64();
        println!(
            "one task, one config: {} deliveries in {elapsed:.2} s = {:.0}/s",
            per_task(events),
            per_task(events) as f64 / elapsed
        );
        let tasks = 200;
        let each = events / tasks;
        self.received.store(0, Ordering::Relaxed);
        let started = Instant::now();
        let sends: Vec<_> = (0..tasks).map(|_| self.send(each, Some(hook))).collect();
        futures::future::join_all(sends).await;
        self.wait_for(tasks * per_task(each)).await;
        let elapsed = started.elapsed().as_secs_f64();
        println!(
            "{tasks} tasks, a config each: {} deliveries in {elapsed:.2} s = {:.0}/s",
            tasks * per_task(each),
            (tasks * per_task(each)) as f64 / elapsed
        );
    }

    /// Server CPU per event, without and with a config (measure 2).
    async fn cpu_per_event(&self, events: u64, hook: &str) {
        let mut cost = [0.0; 2];
        for (with, cost) in [false, true].into_iter().zip(&mut cost) {
            self.received.store(0, Ordering::Relaxed);
            let before = cpu_ms(self.pid);
            self.send(events, with.then_some(hook)).await;
            if with {
                self.wait_for(per_task(events)).await;
            }
            *cost = (cpu_ms(self.pid) - before) * 1000.0 / per_task(events) as f64;
        }
        let [without, with] = cost;
        println!(
            "server CPU per task event: {without:.1} µs without push, {with:.1} µs with a config \
             (+{:.1} µs per delivered event)",
            with - without
        );
    }

    /// What `tasks` tasks of 96 ticks each (pushed to `url`, if given) add to the server's
    /// resident memory.
    async fn memory_of_tasks(&self, tasks: u64, url: Option<&str>) -> u64 {
        let sends: Vec<_> = (0..tasks).map(|_| self.send(96, url)).collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = a2a_tests::rss_kb(self.pid);
        futures::future::join_all(sends).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        a2a_tests::rss_kb(self.pid).saturating_sub(before)
    }

    /// Memory held by 10 000 deliveries pending for a receiver that is down, on a fresh server
    /// (measure 3). The tasks themselves take memory too: the same tasks run without a config
    /// first, and only what the pending deliveries add on top is counted.
    async fn pending_memory(&self) {
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            format!("http://{}/", listener.local_addr().expect("bound address"))
        };
        let pending_tasks = 100;
        let tasks_alone = self.memory_of_tasks(pending_tasks, None).await;
        let with_pending = self.memory_of_tasks(pending_tasks, Some(&closed)).await;
        let pending = pending_tasks * per_task(96);
        let held = with_pending.saturating_sub(tasks_alone);
        println!(
            "{pending} deliveries pending for a receiver that is down: RSS +{with_pending} kB \
             (+{tasks_alone} kB for the same tasks without push) = {:.2} kB each",
            held as f64 / pending as f64
        );
    }
}

/// Starts the lab agent on `store`, delivering to loopback, with limits no benchmark reaches.
async fn start(server: &str, store: &str) -> (tokio::process::Child, String) {
    a2a_tests::spawn_served_with(
        server,
        &[
            "--store",
            store,
            "--push-allow-private",
            "--push-retry",
            "60s",
            "--push-attempts",
            "100",
            // Measures delivery, not the drop policy: a tick task outruns any receiver.
            "--push-queue",
            "1000000",
            "--max-running-per-caller",
            "1000000",
            "--tasks-per-second-per-caller",
            "1000000",
            "--task-burst-per-caller",
            "1000000",
            "--max-task-history-bytes",
            "64MiB",
        ],
    )
    .await
}

/// Runs `tick(times)` to completion over JSON-RPC, with a push config for `url` if given.
async fn send_task(http: &reqwest::Client, base: &str, times: u64, url: Option<String>) {
    let mut configuration = json!({});
    if let Some(url) = url {
        configuration["taskPushNotificationConfig"] = json!({"url": url});
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "bench", "role": "ROLE_USER",
                    "parts": [{"data": {"times": times}}], "metadata": {"skill": "tick"}},
        "configuration": configuration}});
    let reply: Value = http
        .post(base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("a JSON-RPC reply");
    assert_eq!(
        reply["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{reply}"
    );
}

/// The process's user + system CPU time so far, in milliseconds.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // The fields after the command name (which may contain spaces) start after ") ".
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .expect("stat format")
        .1
        .split(' ')
        .collect();
    let ticks = |field: usize| fields[field].parse::<f64>().expect("CPU ticks");
    let ticks = ticks(11) + ticks(12);
    // USER_HZ is 100 on Linux.
    ticks * 10.0
}
