//! A soak of keyed sends against two replicas on one Postgres database, one of them killed
//! with SIGKILL at random moments and started again, the callers giving up on slow answers and
//! retrying each request under its key through whichever replica is up: every request ends
//! with exactly one task, and every task a caller was told of is stored.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::CURRENCY;
use a2a_tests::{TestServer, spawn_served_with};

/// Keyed sends in the soak: `A2A_SOAK_SENDS` (10 000 for the figures the issue asks for),
/// 1 000 by default so the suite stays quick.
fn sends() -> usize {
    std::env::var("A2A_SOAK_SENDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000)
}

/// The callers sending at once.
const CALLERS: usize = 12;

/// The replicas' addresses, as the killer restarts them on new ports.
type Addresses = Arc<Mutex<Vec<String>>>;

/// What a caller was told of one request: the task's id and state, and the attempts it took.
type Told = (String, String, usize);

/// A report taking 0 to 300 ms, longer than a caller waits for some of them.
fn report(caller: usize, n: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": n, "method": "SendMessage", "params": {
        "message": {"messageId": format!("soak-{caller}-{n}"), "role": "ROLE_USER",
            "parts": [{"data": {"currencies": ["USD"], "pace_ms": (n * 37) % 300}}],
            "metadata": {"skill": "report"}}}})
}

/// How long a caller waits for an answer before it sends the request again: a slow answer is
/// as lost to it as a dropped connection.
const PATIENCE: Duration = Duration::from_millis(250);

/// One logical request, sent under `key` until a replica answers it with a task.
async fn send_until_answered(
    http: &reqwest::Client,
    addresses: &Addresses,
    (caller, body, key): (usize, &Value, &str),
    first: usize,
) -> Told {
    for attempt in 0..400 {
        let base = addresses.lock().unwrap()[(first + attempt) % 2].clone();
        let sent = http
            .post(&base)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .header("idempotency-key", key)
            .header("x-api-key", api_key(caller))
            .timeout(PATIENCE)
            .body(body.to_string())
            .send()
            .await;
        let answer: Option<Value> = match sent {
            Ok(response) => response.json().await.ok(),
            Err(_) => None,
        };
        let task = answer.as_ref().map(|a| &a["result"]["task"]);
        if let Some(task) = task
            && let (Some(id), Some(state)) = (task["id"].as_str(), task["status"]["state"].as_str())
        {
            return (id.to_owned(), state.to_owned(), attempt + 1);
        }
        // No answer in time (slow, or the replica died), or an error a retry may mend (a state
        // not stored yet); never a refusal of the repeat itself.
        if let Some(error) = answer.as_ref().and_then(|a| a.get("error")) {
            assert_ne!(error["code"], -32602, "a repeat was refused: {error}");
        }

        let pause = 20 + 10 * u64::try_from(attempt.min(20)).unwrap();
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    panic!("request {key} was never answered");
}

/// Kills one of the two replicas with SIGKILL every 1.5 to 4 s and starts it again on the
/// same database, until `done`; how many it killed, and the replicas (dropping them stops them).
async fn killer(
    url: String,
    mut children: Vec<tokio::process::Child>,
    addresses: Addresses,
    done: Arc<AtomicBool>,
) -> (usize, Vec<tokio::process::Child>) {
    let mut kills = 0;
    let mut pick = [0u8; 2];
    while !done.load(Ordering::Relaxed) {
        getrandom::fill(&mut pick).unwrap();
        // Until the next kill, waking to stop as soon as the callers are done.
        let next = Instant::now() + Duration::from_millis(1500 + u64::from(pick[0]) * 10);
        while Instant::now() < next && !done.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if done.load(Ordering::Relaxed) {
            break;
        }
        let victim = usize::from(pick[1] % 2);
        children[victim].start_kill().unwrap();
        children[victim].wait().await.unwrap();
        kills += 1;
        let (child, base) = replica(&url).await;
        children[victim] = child;
        addresses.lock().unwrap()[victim] = base;
    }
    (kills, children)
}

/// The API key of caller `n`: each caller is a principal of its own, with its own quotas and
/// its own idempotency keys.
fn api_key(caller: usize) -> String {
    format!("soak-caller-{caller:02}-secret-0123456789")
}

fn flags(url: &str, api_keys: &str) -> Vec<String> {
    [
        "--store",
        url,
        "--replica-lease",
        "1s",
        "--api-keys",
        api_keys,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// A replica on the database `url`.
async fn replica(url: &str) -> (tokio::process::Child, String) {
    let keys: Vec<String> = (0..CALLERS)
        .map(|caller| format!("caller{caller}={}", api_key(caller)))
        .collect();
    let flags = flags(url, &keys.join(","));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    spawn_served_with(CURRENCY, &flags).await
}

/// `CALLERS` callers sending `sends` keyed requests between them over `addresses`.
async fn callers(addresses: &Addresses, sends: usize) -> Vec<Told> {
    let next = Arc::new(AtomicUsize::new(0));
    // Spawned all at once (collected), so they send side by side.
    let callers: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (addresses, next) = (addresses.clone(), next.clone());
            tokio::spawn(async move {
                let http = a2a_tests::http();
                let mut told = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= sends {
                        return told;
                    }
                    let (key, body) = (format!("soak-{n}"), report(caller, n));
                    let request = (caller, &body, key.as_str());
                    told.push(send_until_answered(&http, &addresses, request, n).await);
                }
            })
        })
        .collect();
    let mut told = Vec::new();
    for caller in callers {
        told.extend(caller.await.unwrap());
    }
    told
}

#[tokio::test]
async fn keyed_sends_through_replicas_killed_at_random_make_one_task_each_and_lose_none() {
    let Some(url) = a2a_tests::postgres::fresh_database("soak").await else {
        return;
    };
    let (sends, started) = (sends(), Instant::now());
    let (mut children, mut bases) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let (child, base) = replica(&url).await;
        children.push(child);
        bases.push(base);
    }
    let addresses: Addresses = Arc::new(Mutex::new(bases));
    let done = Arc::new(AtomicBool::new(false));
    let killing = tokio::spawn(killer(
        url.clone(),
        children,
        addresses.clone(),
        done.clone(),
    ));
    let told = callers(&addresses, sends).await;
    let sent_in = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let (kills, _replicas) = killing.await.unwrap();
    let server = TestServer::at(addresses.lock().unwrap()[0].clone());
    let stored = stored_ids(&server).await;
    let ids: HashSet<&str> = told.iter().map(|(id, ..)| id.as_str()).collect();
    let lost = ids.iter().filter(|id| !stored.contains(**id)).count();
    let duplicates = stored.len().saturating_sub(ids.len());
    let retried = told.iter().filter(|(.., attempts)| *attempts > 1).count();
    let mut states: HashMap<&str, usize> = HashMap::new();
    for (_, state, _) in &told {
        *states.entry(state.as_str()).or_default() += 1;
    }
    eprintln!(
        "soak: {sends} keyed sends by {CALLERS} callers in {sent_in:.1?}, {kills} SIGKILLs, \
         {retried} requests retried; {} tasks stored, {duplicates} duplicates, {lost} \
         acknowledged tasks lost; states told: {states:?}",
        stored.len()
    );
    assert_eq!(ids.len(), sends, "every request has a task of its own");
    assert_eq!((duplicates, lost), (0, 0), "one task per key, none lost");
    assert!(kills > 0, "the soak killed a replica");
}

/// Every task id the store holds, each caller's paged through its own `ListTasks`.
async fn stored_ids(server: &TestServer) -> HashSet<String> {
    let mut ids = HashSet::new();
    for caller in 0..CALLERS {
        let mut token = String::new();
        loop {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
                "params": {"pageSize": 100, "pageToken": token}});
            let page = list_page(server, &body, caller).await;
            let result = &page["result"];
            for task in result["tasks"].as_array().expect("a page") {
                ids.insert(task["id"].as_str().unwrap().to_owned());
            }
            token = result["nextPageToken"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if token.is_empty() {
                break;
            }
        }
    }
    ids
}

/// One `ListTasks` page of `caller`'s; a reset connection (one the pool kept from before a
/// restart) is tried again.
async fn list_page(server: &TestServer, body: &Value, caller: usize) -> Value {
    for _ in 0..20 {
        let sent = server
            .http
            .post(&server.base)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .header("x-api-key", api_key(caller))
            .body(body.to_string())
            .send()
            .await;
        match sent {
            Ok(response) => return response.json().await.expect("a JSON page"),
            Err(error) => eprintln!("ListTasks: {error}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("ListTasks never answered");
}
