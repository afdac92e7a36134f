//! Client benchmark driver (`scripts/bench-client`): measures `a2a_runtime::client` against a
//! served agent on 127.0.0.1:
//! 1. blocking sends per second to the agent at `URL` from `CONCURRENCY` tasks sharing one
//!    client, for `SECONDS` (the script runs wrk against the same agent in the same run), and
//! 2. the client's resident memory per open subscription: `SUBSCRIPTIONS` `subscribe` streams
//!    on one waiting task of the lab agent, from `/proc/self/status` before and after.
//!
//! Usage: `client-bench URL LAB_BINARY [SECONDS] [CONCURRENCY] [SUBSCRIPTIONS]`

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_runtime::Message;
use a2a_runtime::client::{A2aClient, SendOptions, StreamEvent};
use a2a_runtime::futures::StreamExt;
use serde_json::json;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: client-bench URL LAB_BINARY [SECONDS] [CONCURRENCY] [SUBSCRIPTIONS]";
    let url = args.next().expect(usage);
    let lab = args.next().expect(usage);
    let number =
        |arg: Option<String>, default: u64| arg.map_or(default, |n| n.parse().expect(usage));
    let seconds = number(args.next(), 5);
    let concurrency = number(args.next(), 16);
    let subscriptions = number(args.next(), 1000);

    let client = Arc::new(A2aClient::connect(&url).await.expect("the agent's card"));
    let sent = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let options = SendOptions {
        return_immediately: false,
        history_length: Some(0),
    };
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, sent) = (Arc::clone(&client), Arc::clone(&sent));
            tokio::spawn(async move {
                while Instant::now() < deadline {
                    client
                        .send_with(Message::user_text("Ada"), options)
                        .await
                        .expect("a send");
                    sent.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a sender");
    }
    let rate = sent.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64();
    println!("client sends: {rate:.0} req/s (c={concurrency}, {seconds} s)");

    let (_server, base) = a2a_tests::spawn_served_with(
        &lab,
        &[
            "--max-streams-per-caller",
            "1000000",
            "--max-running-per-caller",
            "1000000",
            // Each subscription is a connection of its own.
            "--max-connections",
            "100000",
        ],
    )
    .await;
    let lab = A2aClient::connect(&base)
        .await
        .expect("the lab agent's card");
    let mut waiting = Message::user(vec![a2a_runtime::Part::data(json!({"millis": 600_000}))]);
    waiting.metadata = json!({"skill": "wait"}).as_object().cloned();
    let no_wait = SendOptions {
        return_immediately: true,
        history_length: Some(0),
    };
    let task = match lab.send_with(waiting, no_wait).await.expect("a task") {
        a2a_runtime::client::SendResult::Task(task) => task,
        other => panic!("expected a task, got {other:?}"),
    };
    // One subscription first, so that what is measured is per stream, not the first one's setup.
    let mut streams = vec![open(&lab, &task.id).await];
    let before = a2a_tests::rss_kb(std::process::id());
    for _ in 1..subscriptions {
        streams.push(open(&lab, &task.id).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = a2a_tests::rss_kb(std::process::id());
    let each =
        after.saturating_sub(before) as f64 / (subscriptions.saturating_sub(1).max(1)) as f64;
    println!("client memory: {each:.1} kB per open subscription ({subscriptions} open)");
    lab.cancel_task(&task.id).await.expect("canceled");
}

/// A subscription to `task`, its first event (the task) read.
async fn open(client: &A2aClient, task: &str) -> a2a_runtime::client::EventStream {
    let mut stream = client.subscribe(task).await.expect("a subscription");
    match stream.next().await {
        Some(Ok(StreamEvent::Task(_))) => stream,
        other => panic!("a subscription starts with the task, got {other:?}"),
    }
}
