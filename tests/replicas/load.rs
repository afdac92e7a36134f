//! Steady load through the balancer while replicas (or the database) are stopped and started:
//! callers sending hello's greeting one after another, each request under an idempotency key,
//! every attempt's outcome counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use a2a_tests::cluster::{ALICE, Cluster};

/// How long a caller waits for one answer before it counts the attempt failed.
const PATIENCE: Duration = Duration::from_secs(10);

/// What the callers saw.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Requests answered with a task, by idempotency key: the task's id.
    pub(crate) answered: HashMap<String, String>,
    /// Attempts that got no task, with what they got instead.
    pub(crate) failed: Vec<String>,
    /// Requests never answered although retried.
    pub(crate) unanswered: Vec<String>,
}

/// Callers sending until stopped.
pub(crate) struct Load {
    stop: Arc<AtomicBool>,
    outcome: Arc<Mutex<Outcome>>,
    callers: Vec<tokio::task::JoinHandle<()>>,
}

impl Load {
    /// `callers` callers sending through `cluster`'s balancer; each request is retried under its
    /// key up to `attempts` times.
    pub(crate) fn start(cluster: &Cluster, callers: usize, attempts: usize) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let outcome = Arc::new(Mutex::new(Outcome::default()));
        let url = format!("{}hello/", cluster.url);
        let callers = (0..callers)
            .map(|caller| {
                let (stop, outcome, url) = (Arc::clone(&stop), Arc::clone(&outcome), url.clone());
                tokio::spawn(async move {
                    let http = Cluster::client(ALICE);
                    let mut n = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let key = format!("load-{caller}-{n}");
                        send(&http, &url, &key, attempts, &outcome).await;
                        n += 1;
                    }
                })
            })
            .collect();
        Self {
            stop,
            outcome,
            callers,
        }
    }

    /// How many requests have been answered so far.
    pub(crate) fn answered(&self) -> usize {
        self.outcome.lock().unwrap().answered.len()
    }

    /// Waits until `more` requests beyond those answered now are answered (a hang guard of
    /// 60 s): load that is flowing.
    pub(crate) async fn flowing(&self, more: usize) {
        let target = self.answered() + more;
        for _ in 0..6000 {
            if self.answered() >= target {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the load stalled at {} answers", self.answered());
    }

    /// Stops the callers (each finishes its request) and says what they saw.
    pub(crate) async fn finish(self) -> Outcome {
        self.stop.store(true, Ordering::Relaxed);
        for caller in self.callers {
            caller.await.expect("a caller ends");
        }
        Arc::try_unwrap(self.outcome)
            .map(|m| m.into_inner().unwrap())
            .unwrap_or_else(|_| panic!("the callers hold the outcome"))
    }
}

/// One request under `key`, tried up to `attempts` times.
async fn send(
    http: &reqwest::Client,
    url: &str,
    key: &str,
    attempts: usize,
    outcome: &Mutex<Outcome>,
) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message":
        {"messageId": key, "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}});
    for _ in 0..attempts {
        let sent = http
            .post(url)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .header("idempotency-key", key)
            .timeout(PATIENCE)
            .body(body.to_string())
            .send()
            .await;
        let said = match sent {
            Ok(response) => {
                let status = response.status();
                let text = response.text().await.unwrap_or_default();
                let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                if let Some(id) = answer["result"]["task"]["id"].as_str() {
                    let mut outcome = outcome.lock().unwrap();
                    outcome.answered.insert(key.to_owned(), id.to_owned());
                    return;
                }
                format!("HTTP {status}: {text}")
            }
            Err(error) => format!("{error:?}"),
        };
        outcome
            .lock()
            .unwrap()
            .failed
            .push(format!("{key}: {said}"));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    outcome.lock().unwrap().unanswered.push(key.to_owned());
}
