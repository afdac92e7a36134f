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

    let sqlite = |name: &str| format!("sqlite://{}", data.join(name).display());
    let store_of = |name: &str| match store.as_str() {
        "sqlite" => sqlite(name),
        _ => "memory".to_owned(),
    };
    let (child, base) = start(&server, &store_of("tasks.sqlite3")).await;
    let pid = child.id().expect("server pid");
    let http = reqwest::Client::new();
    let send =
        |times: u64, url: Option<&str>| send_task(&http, &base, times, url.map(str::to_owned));
    // tick(n): WORKING, n progress reports, two artifacts, COMPLETED.
    let per_task = |times: u64| times + 4;
    let wait_for = |target: u64| {
        let received = Arc::clone(&received);
        async move {
            while received.load(Ordering::Relaxed) < target {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    // Warm up connections and code paths.
    send(100, Some(&hook)).await;
    wait_for(per_task(100)).await;

    // 1a. One config: in order, one POST at a time.
    received.store(0, Ordering::Relaxed);
    let started = Instant::now();
    send(events, Some(&hook)).await;
    wait_for(per_task(events)).await;
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "one task, one config: {} deliveries in {elapsed:.2} s = {:.0}/s",
        per_task(events),
        per_task(events) as f64 / elapsed
    );

    // 1b. Many configs at once.
    let tasks = 200;
    let each = events / tasks;
    received.store(0, Ordering::Relaxed);
    let started = Instant::now();
    let sends: Vec<_> = (0..tasks).map(|_| send(each, Some(&hook))).collect();
    futures::future::join_all(sends).await;
    wait_for(tasks * per_task(each)).await;
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{tasks} tasks, a config each: {} deliveries in {elapsed:.2} s = {:.0}/s",
        tasks * per_task(each),
        (tasks * per_task(each)) as f64 / elapsed
    );

    // 2. Server CPU per event, without and with a config.
    let cpu_per_event = |with: bool| {
        let send = &send;
        let wait_for = &wait_for;
        let received = Arc::clone(&received);
        let hook = hook.clone();
        async move {
            received.store(0, Ordering::Relaxed);
            let before = cpu_ms(pid);
            send(events, with.then_some(hook.as_str())).await;
            if with {
                wait_for(per_task(events)).await;
            }
            (cpu_ms(pid) - before) * 1000.0 / per_task(events) as f64
        }
    };
    let without = cpu_per_event(false).await;
    let with = cpu_per_event(true).await;
    println!(
        "server CPU per task event: {without:.1} µs without push, {with:.1} µs with a config \
         (+{:.1} µs per delivered event)",
        with - without
    );

    // 3. Memory held by 10 000 pending deliveries to a receiver that is down.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        format!("http://{}/", listener.local_addr().expect("bound address"))
    };
    // A fresh server, so memory freed by the runs above does not hide what is held. The tasks
    // themselves take memory too: run the same tasks without a config first and count only
    // what the pending deliveries add on top.
    drop(child);
    let (child, base) = start(&server, &store_of("pending.sqlite3")).await;
    let pid = child.id().expect("server pid");
    let send =
        |times: u64, url: Option<&str>| send_task(&http, &base, times, url.map(str::to_owned));
    let pending_tasks = 100;
    let run_tasks = |url: Option<&str>| {
        let sends: Vec<_> = (0..pending_tasks).map(|_| send(96, url)).collect();
        async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let before = a2a_tests::rss_kb(pid);
            futures::future::join_all(sends).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            a2a_tests::rss_kb(pid).saturating_sub(before)
        }
    };
    let tasks_alone = run_tasks(None).await;
    let with_pending = run_tasks(Some(&closed)).await;
    let pending = pending_tasks * per_task(96);
    let held = with_pending.saturating_sub(tasks_alone);
    println!(
        "{pending} deliveries pending for a receiver that is down: RSS +{with_pending} kB \
         (+{tasks_alone} kB for the same tasks without push) = {:.2} kB each",
        held as f64 / pending as f64
    );
    drop(child);
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
