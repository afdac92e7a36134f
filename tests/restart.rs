//! Restarts over a real process: the currency agent on its default SQLite store is killed with
//! SIGKILL mid-work and started again on the same data directory.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use a2a_tests::{TestServer, spawn_served_with};
use serde_json::{Value, json};

#[path = "restart/keys.rs"]
mod keys;
#[path = "restart/questions.rs"]
mod questions;

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");
const LAB: &str = env!("CARGO_BIN_EXE_lab-server");

fn convert(amount: u32) -> Value {
    json!({"message": {"messageId": format!("m{amount}"), "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": amount, "currency": "USD"}, "to": "EUR"}}],
        "metadata": {"skill": "convert"}}})
}

fn exchange() -> Value {
    json!({"message": {"messageId": "xchg", "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": 100, "currency": "USD"}, "to": "CHF"}}],
        "metadata": {"skill": "exchange"}}})
}

fn answer(task: &Value, text: &str) -> Value {
    json!({"message": {"messageId": format!("answer-{text}"), "role": "ROLE_USER",
        "taskId": task["id"], "contextId": task["contextId"],
        "parts": [{"text": text}]}})
}

fn status_text(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn finished_tasks_survive_kill_9_running_ones_fail_and_a_waiting_one_carries_on() {
    let data_dir = a2a_tests::scratch_dir();
    survives_kill_9(&["--data-dir", data_dir.to_str().unwrap()]).await;
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn on_postgres_finished_tasks_survive_kill_9_and_a_waiting_one_carries_on() {
    let Some(url) = a2a_tests::postgres::fresh_database("restart").await else {
        return;
    };
    survives_kill_9(&["--store", &url, "--replica-lease", "1s"]).await;
}

/// The currency agent on the store `flags` name: some tasks finished, one running, one waiting
/// when it is killed with SIGKILL; then started again on the same store.
async fn survives_kill_9(flags: &[&str]) {
    let (mut first, base) = spawn_served_with(CURRENCY, flags).await;
    let server = TestServer::at(base);
    let running = server
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "slow", "role": "ROLE_USER",
                "parts": [{"data": {"currencies": ["USD", "JPY"], "pace_ms": 60000}}],
                "metadata": {"skill": "report"}},
                "configuration": {"returnImmediately": true}}),
        )
        .await;
    let running_id = running["result"]["task"]["id"].as_str().unwrap().to_owned();
    server
        .wait_for_state(&running_id, "TASK_STATE_WORKING")
        .await;
    // A multi-turn task, answered once, waits on its second question when the server dies.
    let asked = server.rpc("SendMessage", exchange()).await;
    let waiting = asked["result"]["task"].clone();
    assert_eq!(
        waiting["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let asked = server
        .rpc("SendMessage", answer(&waiting, "ACME-0042"))
        .await;
    let second = &asked["result"]["task"];
    assert_eq!(
        second["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    assert!(status_text(second).contains("Book it?"), "{asked}");
    let mut finished = Vec::new();
    for amount in 1..=5 {
        let body = server.rpc("SendMessage", convert(amount)).await;
        let task = &body["result"]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
        finished.push(task.clone());
    }
    // Killed as soon as the last answer arrives.
    first.start_kill().unwrap();
    first.wait().await.unwrap();

    let (_second, base) = spawn_served_with(CURRENCY, flags).await;
    let server = TestServer::at(base);
    finished_tasks_are_intact(&server, &finished).await;
    // At once on SQLite; on Postgres once the killed process's replica lease runs out.
    let interrupted =
        json!({"result": server.wait_for_state(&running_id, "TASK_STATE_FAILED").await});
    let status = &interrupted["result"]["status"];
    assert!(
        status["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("interrupted by a restart"),
        "{interrupted}"
    );
    the_waiting_task_carries_on(&server, &waiting).await;
    let listed = server.rpc("ListTasks", json!({"pageSize": 100})).await;
    assert_eq!(listed["result"]["totalSize"], 7, "{listed}");
}

/// Each of `finished`, read again after a restart, is as it was.
async fn finished_tasks_are_intact(server: &TestServer, finished: &[Value]) {
    for before in finished {
        let id = before["id"].as_str().unwrap();
        let after = server.rpc("GetTask", json!({"id": id})).await;
        assert_eq!(
            &after["result"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{after}"
        );
        assert_eq!(
            after["result"]["artifacts"], before["artifacts"],
            "artifacts intact"
        );
        assert_eq!(after["result"]["contextId"], before["contextId"]);
    }
}

/// A task that waited on its second question when the server was killed still waits on it, and
/// its answer runs the skill again with the first answer replayed.
async fn the_waiting_task_carries_on(server: &TestServer, waiting: &Value) {
    // Still waiting on the same question after the restart ...
    let still = server.rpc("GetTask", json!({"id": waiting["id"]})).await;
    assert_eq!(
        still["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{still}"
    );
    assert!(status_text(&still["result"]).contains("debited from ACME-0042"));
    // ... and the answer runs the skill again with the first answer replayed.
    let done = server.rpc("SendMessage", answer(waiting, "yes")).await;
    let task = &done["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    let artifacts = task["artifacts"].as_array().unwrap();
    let names: Vec<&str> = artifacts
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["quote", "exchange"],
        "reports made while the answers were replayed are not repeated: {done}"
    );
    let booked = &artifacts[1]["parts"][0]["data"];
    assert_eq!(booked["account"], "ACME-0042", "{done}");
    assert_eq!(booked["bought"]["currency"], "CHF", "{done}");
}

fn lab_call(skill: &str) -> Value {
    json!({"message": {"messageId": format!("call-{skill}"), "role": "ROLE_USER",
        "parts": [{"data": {}}], "metadata": {"skill": skill}},
        "configuration": {"returnImmediately": true}})
}

/// Kills the server with SIGKILL and starts it again on the same data directory.
async fn kill_and_restart(
    mut child: tokio::process::Child,
    binary: &str,
    dir: &str,
) -> (tokio::process::Child, TestServer) {
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let (child, base) = spawn_served_with(binary, &["--data-dir", dir]).await;
    (child, TestServer::at(base))
}

#[tokio::test]
async fn a_skill_that_opts_into_reruns_runs_again_with_its_answers_replayed() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (first, base) = spawn_served_with(LAB, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let started = server.rpc("SendMessage", lab_call("nap")).await;
    let task = started["result"]["task"].clone();
    server
        .wait_for_state(task["id"].as_str().unwrap(), "TASK_STATE_INPUT_REQUIRED")
        .await;
    // A nap long enough to be interrupted.
    let mut nap = answer(&task, "60000");
    nap["configuration"] = json!({"returnImmediately": true});
    let answered = server.rpc("SendMessage", nap).await;
    assert_eq!(
        answered["result"]["task"]["status"]["state"], "TASK_STATE_WORKING",
        "{answered}"
    );

    let (mut second, server) = kill_and_restart(first, LAB, dir).await;
    let rerun = server.rpc("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(
        rerun["result"]["status"]["state"], "TASK_STATE_WORKING",
        "run again, its answer replayed rather than asked again: {rerun}"
    );
    second.start_kill().unwrap();
    second.wait().await.unwrap();
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn a_rerun_skill_finishes_on_the_next_run() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (first, base) = spawn_served_with(LAB, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let started = server.rpc("SendMessage", lab_call("nap")).await;
    let task = started["result"]["task"].clone();
    let id = task["id"].as_str().unwrap();
    server.wait_for_state(id, "TASK_STATE_INPUT_REQUIRED").await;
    server.rpc("SendMessage", answer(&task, "1500")).await;

    let (_second, server) = kill_and_restart(first, LAB, dir).await;
    let done = server.wait_for_state(id, "TASK_STATE_COMPLETED").await;
    let artifacts = done["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "one run's result: {done}");
    assert_eq!(artifacts[0]["parts"][0]["text"], "napped 1500 ms", "{done}");
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn a_skill_that_never_resumes_fails_even_while_it_waits() {
    let data_dir = a2a_tests::scratch_dir();
    let dir = data_dir.to_str().unwrap();
    let (first, base) = spawn_served_with(LAB, &["--data-dir", dir]).await;
    let server = TestServer::at(base);
    let started = server.rpc("SendMessage", lab_call("fragile")).await;
    let task = started["result"]["task"].clone();
    let id = task["id"].as_str().unwrap();
    server.wait_for_state(id, "TASK_STATE_INPUT_REQUIRED").await;

    let (_second, server) = kill_and_restart(first, LAB, dir).await;
    let failed = server.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(
        failed["result"]["status"]["state"], "TASK_STATE_FAILED",
        "{failed}"
    );
    assert!(status_text(&failed["result"]).starts_with("interrupted by a restart"));
    let refused = server.rpc("SendMessage", answer(&task, "late")).await;
    assert_eq!(
        refused["error"]["code"], -32004,
        "a finished task takes no answer: {refused}"
    );
    let _ = std::fs::remove_dir_all(data_dir);
}

/// A store in front of memory that behaves as a troubled disk does: writes of finished tasks
/// wait until released (a slow disk, with `hold_finished`), and every write fails while `full`.
struct TroubledDisk {
    inner: a2a_runtime::store::InMemoryTaskStore,
    hold_finished: bool,
    arrived: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Semaphore>,
    full: Arc<AtomicBool>,
    /// The largest task written, in bytes of JSON.
    largest: Arc<std::sync::atomic::AtomicUsize>,
}

impl TroubledDisk {
    fn new(hold_finished: bool) -> Self {
        Self {
            inner: a2a_runtime::store::InMemoryTaskStore::new(
                a2a_runtime::store::MemoryStoreLimits::default(),
            ),
            hold_finished,
            arrived: Arc::new(tokio::sync::Notify::new()),
            release: Arc::new(tokio::sync::Semaphore::new(0)),
            full: Arc::new(AtomicBool::new(false)),
            largest: Arc::default(),
        }
    }

    async fn write(
        &self,
        task: &a2a_runtime::store::StoredTask,
    ) -> Result<(), a2a_runtime::store::StoreError> {
        if self.full.load(Ordering::SeqCst) {
            return Err(a2a_runtime::store::StoreError::backend(
                "disk I/O error (no space left)",
            ));
        }
        let size = task.to_json().map_or(0, |json| json.len());
        self.largest.fetch_max(size, Ordering::SeqCst);
        if self.hold_finished && task.task.status.state.is_terminal() {
            self.arrived.notify_one();
            let _permit = self.release.acquire().await;
        }
        Ok(())
    }
}

impl a2a_runtime::store::TaskStore for TroubledDisk {
    // A quick task of a blocking send is first written finished: by `create`.
    fn create<'a>(
        &'a self,
        task: &'a a2a_runtime::store::StoredTask,
    ) -> a2a_runtime::store::BoxFuture<'a, Result<(), a2a_runtime::store::StoreError>> {
        Box::pin(async move {
            self.write(task).await?;
            self.inner.create(task).await
        })
    }

    fn update<'a>(
        &'a self,
        task: &'a a2a_runtime::store::StoredTask,
    ) -> a2a_runtime::store::BoxFuture<'a, Result<(), a2a_runtime::store::StoreError>> {
        Box::pin(async move {
            self.write(task).await?;
            self.inner.update(task).await
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        history_length: Option<usize>,
    ) -> a2a_runtime::store::BoxFuture<
        'a,
        Result<Option<a2a_runtime::store::StoredTask>, a2a_runtime::store::StoreError>,
    > {
        self.inner.get(id, history_length)
    }

    fn list<'a>(
        &'a self,
        query: &'a a2a_runtime::store::ListQuery,
    ) -> a2a_runtime::store::BoxFuture<
        'a,
        Result<a2a_runtime::store::TaskPage, a2a_runtime::store::StoreError>,
    > {
        self.inner.list(query)
    }

    fn delete<'a>(
        &'a self,
        id: &'a str,
    ) -> a2a_runtime::store::BoxFuture<'a, Result<bool, a2a_runtime::store::StoreError>> {
        self.inner.delete(id)
    }

    fn unfinished(
        &self,
    ) -> a2a_runtime::store::BoxFuture<
        '_,
        Result<Vec<a2a_runtime::store::StoredTask>, a2a_runtime::store::StoreError>,
    > {
        self.inner.unfinished()
    }
}

#[tokio::test]
async fn a_blocking_send_answers_only_once_its_final_state_is_stored() {
    let store = TroubledDisk::new(true);
    let (arrived, release) = (Arc::clone(&store.arrived), Arc::clone(&store.release));
    let server = a2a_tests::start(hello::Hello.server().store(store)).await;
    let send = tokio::spawn({
        let server_base = server.base.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params":
                {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "Ada"}]}}});
            a2a_tests::http()
                .post(server_base)
                .header("content-type", "application/json")
                .header("A2A-Version", "1.0")
                .body(body.to_string())
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    });
    // The skill finished and its final write is held: a loopback answer would take a
    // millisecond; none comes while the write waits.
    arrived.notified().await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        !send.is_finished(),
        "answered before the final state was stored"
    );
    release.add_permits(1);
    let body = send.await.unwrap();
    assert_eq!(
        body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
}

/// Polls task `id` for up to 10 s until it is stored completed.
async fn completes_in_the_background(server: &TestServer, id: &str) {
    let mut stored = Value::Null;
    for _ in 0..100 {
        stored = server.rpc("GetTask", json!({ "id": id })).await;
        if stored["result"]["status"]["state"] == "TASK_STATE_COMPLETED" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        stored["result"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{stored}"
    );
}

#[tokio::test]
async fn a_state_the_store_refuses_is_an_error_and_a_failing_health_never_a_success() {
    let store = TroubledDisk::new(false);
    let full = Arc::clone(&store.full);
    let server = a2a_tests::start(hello::Hello.server().store(store)).await;
    let health = || async {
        let response = a2a_tests::get(format!("{}healthz", server.base))
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    };
    assert_eq!(health().await.0, 200);
    full.store(true, Ordering::SeqCst);

    // JSON-RPC: the skill completed, but COMPLETED is not what the caller is told.
    let send =
        json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "Ada"}]}});
    let body = server.rpc("SendMessage", send).await;
    assert!(
        body.get("result").is_none(),
        "acknowledged an unstored task: {body}"
    );
    assert_eq!(body["error"]["code"], -32603, "{body}");
    let message = body["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("not stored") && message.contains("disk I/O error"),
        "{message}"
    );
    assert_eq!(
        body["error"]["data"][0]["reason"], "TASK_NOT_STORED",
        "{body}"
    );
    let body_task_id = body["error"]["data"][0]["metadata"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, text) = health().await;
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("disk I/O error"), "{text}");

    // HTTP+JSON: 503 with the same reason.
    let response = a2a_tests::http()
        .post(format!("{}message:send", server.base))
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(
            json!({"message": {"messageId": "m2", "role": "ROLE_USER", "parts": [{"text": "Bo"}]}})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], "UNAVAILABLE", "{body}");

    // A stream's task is stored before the stream starts: with the disk full it is refused.
    let message = json!({"messageId": "m3", "role": "ROLE_USER", "parts": [{"text": "Cy"}]});
    let refused = server
        .stream("SendStreamingMessage", json!({ "message": message }))
        .await
        .err()
        .unwrap();
    assert_eq!(refused["error"]["code"], -32603, "{refused}");

    // Once the disk takes writes again, the refused tasks are written in the background and
    // the server is healthy again.
    full.store(false, Ordering::SeqCst);
    completes_in_the_background(&server, &body_task_id).await;
    assert_eq!(health().await.0, 200);
}

/// An agent whose skill is authorized out of band, then asks a question.
mod teller {
    use a2a_runtime::prelude::*;

    /// Pays out to signed-in callers.
    #[agent(name = "Teller")]
    #[derive(Debug, Default)]
    pub(crate) struct Teller;

    /// Sign in, then say how much to pay out.
    #[skill(agent = Teller)]
    pub(crate) async fn payout(ctx: TaskContext) -> Result<String, SkillError> {
        let who = ctx.require_auth("Sign in first").await?;
        let amount = ctx.ask::<u32>("How much?").await?;
        Ok(format!("paid {amount} to {who}"))
    }
}

/// The teller on the SQLite file `path`, served from a runtime of its own; dropping that
/// runtime (when `stop` fires) ends every task at once, as a crash would.
fn teller_in_own_runtime(
    path: std::path::PathBuf,
    stop: tokio::sync::oneshot::Receiver<()>,
) -> (
    std::thread::JoinHandle<()>,
    String,
    a2a_runtime::server::Tasks,
) {
    let (started, served) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let options = a2a_runtime::store::SqliteStoreOptions::default();
            let store = a2a_runtime::store::SqliteTaskStore::open(&path, options)
                .await
                .unwrap();
            let agent = teller::Teller.server().store(store);
            let tasks = agent.tasks();
            let server = a2a_tests::start(agent).await;
            started.send((server.base.clone(), tasks)).unwrap();
            let _ = stop.await;
        });
        drop(runtime);
    });
    let (base, tasks) = served.recv().unwrap();
    (thread, base, tasks)
}
