//! An application's observers: every call reaches them with its outcome, caller, sizes and
//! trace, and every task change; a stuck observer holds up no call, and what it misses is
//! counted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_runtime::TaskState;
use a2a_runtime::observe::{Binding, CallObserver, CallOutcome, CallRecord, Protocol, TaskChange};
use a2a_runtime::server::ObserveOptions;
use a2a_tests::lab::Lab;
use a2a_tests::{response_from, start};
use serde_json::json;

use super::metrics::scrape;

/// Keeps every call and task change it is told of.
#[derive(Clone, Default)]
struct Keeper {
    calls: Arc<Mutex<Vec<CallRecord>>>,
    changes: Arc<Mutex<Vec<(String, TaskState)>>>,
}

impl CallObserver for Keeper {
    fn call(&self, record: &CallRecord) {
        self.calls.lock().unwrap().push(record.clone());
    }

    fn task(&self, change: &TaskChange<'_>) {
        let change = (change.task_id.to_string(), change.state);
        self.changes.lock().unwrap().push(change);
    }
}

impl Keeper {
    /// The calls kept, once there are `count` (a hang guard of 10 s).
    async fn calls(&self, count: usize) -> Vec<CallRecord> {
        for _ in 0..1000 {
            let calls = self.calls.lock().unwrap().clone();
            if calls.len() >= count {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the observer never got {count} calls");
    }
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

#[tokio::test]
async fn an_observer_gets_every_call_with_its_outcome_caller_sizes_and_trace() {
    let keeper = Keeper::default();
    let server = start(Lab.server().observe(keeper.clone())).await;
    let traceparent = format!("00-{TRACE_ID}-00f067aa0ba902b7-01");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-1", "role": "ROLE_USER", "parts": [{"data": {"text": "hello"}}],
        "metadata": {"skill": "echo"}}}});
    let sent = server
        .rpc_with(&body, &[("traceparent", &traceparent)])
        .await;
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let params = json!({"name": "fail", "arguments": {"reason": "no luck"}});
    let (_, failed) = server.mcp_modern("tools/call", params, json!({})).await;
    assert_eq!(
        response_from(&failed)["result"]["isError"],
        true,
        "{failed}"
    );

    let calls = keeper.calls(2).await;
    let a2a = calls.iter().find(|c| c.name == "echo").unwrap();
    assert_eq!(&*a2a.agent, "Lab");
    assert_eq!(
        a2a.protocol,
        Protocol::A2a(a2a_runtime::model::A2aVersion::V1_0)
    );
    assert_eq!(a2a.binding, Binding::JsonRpc);
    assert_eq!(a2a.outcome, CallOutcome::Completed);
    assert_eq!(a2a.task_id.as_deref(), Some(task_id.as_str()));
    assert!(a2a.context_id.is_some());
    assert_eq!(a2a.caller.principal(), "anonymous");
    assert_eq!(a2a.trace.as_ref().map(|t| t.trace_id()), Some(TRACE_ID));
    assert!(a2a.input_bytes >= "hello".len() as u64, "{a2a:?}");
    assert!(a2a.output_bytes >= "hello".len() as u64, "{a2a:?}");
    let mcp = calls.iter().find(|c| c.name == "fail").unwrap();
    assert_eq!(mcp.protocol, Protocol::Mcp);
    assert_eq!(mcp.binding, Binding::StreamableHttp);
    assert_eq!(mcp.outcome, CallOutcome::Errored);
    assert_eq!(mcp.error.as_deref(), Some("no luck"));
    assert_eq!(mcp.task_id, None, "a plain MCP call is no task");
    assert!(mcp.trace.is_none());
    // Both calls were made: a refusal or a panic would say so.
    assert!(calls.iter().all(|c| c.outcome.ran()));

    let changes = keeper.changes.lock().unwrap().clone();
    let of_task: Vec<TaskState> = changes
        .iter()
        .filter(|(id, _)| *id == task_id)
        .map(|(_, state)| *state)
        .collect();
    assert_eq!(of_task, [TaskState::Working, TaskState::Completed]);
}

/// Blocks on its first record until released.
#[derive(Clone)]
struct Stuck {
    released: Arc<std::sync::atomic::AtomicBool>,
    received: Arc<std::sync::atomic::AtomicUsize>,
}

impl CallObserver for Stuck {
    fn call(&self, _: &CallRecord) {
        self.receive();
    }

    fn task(&self, _: &TaskChange<'_>) {
        self.receive();
    }

    fn operation(&self, _: &a2a_runtime::observe::OperationRecord) {
        self.receive();
    }

    fn store_write(&self, _: &a2a_runtime::observe::StoreWrite) {
        self.receive();
    }
}

impl Stuck {
    fn receive(&self) {
        self.received
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // Blocks its thread, as a slow observer would.
        while !self.released.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[tokio::test]
async fn a_stuck_observer_holds_up_no_call_and_what_it_misses_is_counted() {
    let stuck = Stuck {
        released: Arc::default(),
        received: Arc::default(),
    };
    let mut observe = ObserveOptions::default();
    observe.metrics = true;
    observe.observer_queue = 4;
    let server = start(Lab.server().observe(stuck.clone()).observe_options(observe)).await;
    for n in 0..10 {
        let done = server
            .send(
                json!([{"data": {"text": format!("call {n}")}}]),
                json!({"skill": "echo"}),
                json!({}),
            )
            .await;
        assert_eq!(
            done["result"]["task"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
    }
    let dropped = scrape(&server.base)
        .await
        .value("a2a_observer_dropped_total", &[]);
    assert!(
        dropped > 0.0,
        "ten calls make more records than a queue of four holds"
    );
    stuck
        .released
        .store(true, std::sync::atomic::Ordering::SeqCst);
    // The record it was stuck on, then the four its queue held; the rest were dropped.
    for _ in 0..1000 {
        if stuck.received.load(std::sync::atomic::Ordering::SeqCst) >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let received = stuck.received.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(received, 5, "{dropped} dropped");
}
