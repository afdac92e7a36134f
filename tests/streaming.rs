//! A2A streaming over a real socket: SendStreamingMessage and SubscribeToTask as SSE, event
//! order, several subscribers, slow subscribers, keep-alives and cancellation.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::AgentServer;
use a2a_tests::sse::{SseItem, state_of, task_id_of};
use a2a_tests::stepper::Stepper;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

async fn serve(stepper: &Stepper) -> TestServer {
    start(stepper.clone().server()).await
}

async fn serve_with(server: AgentServer) -> TestServer {
    start(server).await
}

fn artifact_text(update: &Value) -> String {
    update["artifactUpdate"]["artifact"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn streamed_task_sends_snapshot_then_progress_chunks_and_completion_in_order() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    stepper.release("order", 2);
    let mut stream = server
        .send_streaming("steps", json!({"gate": "order", "steps": 2}))
        .await;
    let events = stream.rest().await;
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            let kind = e.as_object().unwrap().keys().next().unwrap().clone();
            match state_of(e) {
                Some(state) => format!("{kind}:{state}"),
                None => kind,
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "task:TASK_STATE_SUBMITTED",
            "statusUpdate:TASK_STATE_WORKING",
            "statusUpdate:TASK_STATE_WORKING",
            "artifactUpdate",
            "statusUpdate:TASK_STATE_WORKING",
            "artifactUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate:TASK_STATE_COMPLETED",
        ]
    );
    let task_id = task_id_of(&events[0]).to_owned();
    assert!(events.iter().all(|e| task_id_of(e) == task_id));
    // Progress: the message and the count.
    let progress = &events[2]["statusUpdate"];
    assert_eq!(progress["status"]["message"]["parts"][0]["text"], "step 1");
    assert_eq!(progress["status"]["message"]["role"], "ROLE_AGENT");
    assert_eq!(progress["metadata"], json!({"progress": 1, "total": 2}));
    // Chunks: one artifact id, `append` after the first, `lastChunk` on the closing one.
    let chunks = [&events[3], &events[5], &events[6]];
    let id = &chunks[0]["artifactUpdate"]["artifact"]["artifactId"];
    assert!(
        chunks
            .iter()
            .all(|c| c["artifactUpdate"]["artifact"]["artifactId"] == *id)
    );
    assert_eq!(chunks[0]["artifactUpdate"].get("append"), None);
    assert_eq!(chunks[1]["artifactUpdate"]["append"], true);
    assert_eq!(chunks[2]["artifactUpdate"]["lastChunk"], true);
    assert_eq!(
        chunks.iter().map(|c| artifact_text(c)).collect::<String>(),
        "chunk 1;chunk 2;"
    );
    // The returned value is its own artifact, before the final status.
    assert_eq!(artifact_text(&events[7]), "2 steps");
    assert_ne!(events[7]["artifactUpdate"]["artifact"]["artifactId"], *id);
    // The task kept everything that was streamed.
    let task = server.rpc("GetTask", json!({"id": task_id})).await["result"].clone();
    assert_eq!(task["artifacts"][0]["artifactId"], *id);
    let kept: String = task["artifacts"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(kept, "chunk 1;chunk 2;");
}

#[tokio::test]
async fn every_event_is_a_jsonrpc_envelope_with_the_request_id() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server.send_streaming("count", json!({"upto": 3})).await;
    let mut seen = 0;
    while let Some(event) = stream.next_event().await {
        assert_eq!(event["jsonrpc"], "2.0");
        assert_eq!(event["id"], 7);
        assert!(event["result"].is_object());
        seen += 1;
    }
    assert!(seen >= 4, "{seen} events");
}

#[tokio::test]
async fn a_returned_stream_becomes_one_chunked_artifact() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server.send_streaming("count", json!({"upto": 3})).await;
    let events = stream.rest().await;
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("artifactUpdate").is_some())
        .collect();
    assert_eq!(updates.len(), 4, "three lines and the closing chunk");
    let id = &updates[0]["artifactUpdate"]["artifact"]["artifactId"];
    assert!(
        updates
            .iter()
            .all(|u| u["artifactUpdate"]["artifact"]["artifactId"] == *id)
    );
    assert_eq!(updates[0]["artifactUpdate"]["artifact"]["name"], "count");
    assert_eq!(
        updates.iter().map(|u| artifact_text(u)).collect::<String>(),
        "1\n2\n3\n"
    );
    assert_eq!(updates[3]["artifactUpdate"]["lastChunk"], true);
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_COMPLETED")
    );
}

#[tokio::test]
async fn an_error_item_in_a_returned_stream_fails_the_task_after_the_chunks_sent() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server.send_streaming("broken_stream", json!({})).await;
    let events = stream.rest().await;
    let last = events.last().unwrap();
    assert_eq!(state_of(last), Some("TASK_STATE_FAILED"));
    assert_eq!(
        last["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "the source went away"
    );
    let task = server.rpc("GetTask", json!({"id": task_id_of(last)})).await["result"].clone();
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "first line\n");
}

#[tokio::test]
async fn a_panic_inside_a_returned_stream_fails_the_task_not_the_server() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server.send_streaming("panicky_stream", json!({})).await;
    let events = stream.rest().await;
    let last = events.last().unwrap();
    assert_eq!(state_of(last), Some("TASK_STATE_FAILED"));
    assert!(
        last["statusUpdate"]["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("panicked")
    );
    // The server still serves.
    let mut again = server.send_streaming("count", json!({"upto": 1})).await;
    let events = again.rest().await;
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_COMPLETED")
    );
}

#[tokio::test]
async fn two_subscribers_see_identical_sequences() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut origin = server
        .send_streaming("steps", json!({"gate": "twins", "steps": 5}))
        .await;
    let task_id = task_id_of(&origin.next_result().await.unwrap()).to_owned();
    server.wait_for_state(&task_id, "TASK_STATE_WORKING").await;
    let mut first = server.subscribe(&task_id).await.unwrap();
    let mut second = server.subscribe(&task_id).await.unwrap();
    stepper.release("twins", 5);
    let (first, second) = tokio::join!(first.rest(), second.rest());
    assert_eq!(first, second);
    assert_eq!(state_of(&first[0]), Some("TASK_STATE_WORKING"));
    assert_eq!(
        state_of(first.last().unwrap()),
        Some("TASK_STATE_COMPLETED")
    );
    assert!(first.len() > 10, "{} events", first.len());
    // The original stream saw the same events after its own start.
    let origin = origin.rest().await;
    assert!(origin.ends_with(&first[1..]));
}

#[tokio::test]
async fn resubscribing_mid_task_gets_a_snapshot_then_the_rest() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut origin = server
        .send_streaming("steps", json!({"gate": "resub", "steps": 3}))
        .await;
    let task_id = task_id_of(&origin.next_result().await.unwrap()).to_owned();
    stepper.release("resub", 1);
    // Read until the first chunk has been streamed.
    while origin
        .next_result()
        .await
        .unwrap()
        .get("artifactUpdate")
        .is_none()
    {}
    let mut late = server.subscribe(&task_id).await.unwrap();
    let snapshot = late.next_result().await.unwrap();
    let task = &snapshot["task"];
    assert_eq!(task["id"], task_id);
    assert_eq!(task["status"]["state"], "TASK_STATE_WORKING");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "step 1");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "chunk 1;");
    stepper.release("resub", 2);
    let rest = late.rest().await;
    let texts: String = rest
        .iter()
        .filter(|e| e.get("artifactUpdate").is_some())
        .map(artifact_text)
        .collect();
    assert_eq!(texts, "chunk 2;chunk 3;3 steps");
    assert_eq!(state_of(rest.last().unwrap()), Some("TASK_STATE_COMPLETED"));
}

#[tokio::test]
async fn a_subscriber_that_disconnects_leaves_the_task_and_others_running() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut origin = server
        .send_streaming("steps", json!({"gate": "leave", "steps": 2}))
        .await;
    let task_id = task_id_of(&origin.next_result().await.unwrap()).to_owned();
    let mut leaver = server.subscribe(&task_id).await.unwrap();
    leaver.next_result().await.unwrap();
    drop(leaver);
    drop(origin);
    let mut stayer = server.subscribe(&task_id).await.unwrap();
    stepper.release("leave", 2);
    let rest = stayer.rest().await;
    assert_eq!(state_of(rest.last().unwrap()), Some("TASK_STATE_COMPLETED"));
    let task = server
        .wait_for_state(&task_id, "TASK_STATE_COMPLETED")
        .await;
    assert_eq!(task["artifacts"][1]["parts"][0]["text"], "2 steps");
}

#[tokio::test]
async fn a_subscriber_that_never_reads_delays_neither_the_task_nor_a_fast_subscriber() {
    let stepper = Stepper::default();
    // A small buffer so the stalled subscriber falls behind quickly; 4 000 chunks of 1 KiB are
    // far more than the socket buffers between the server and a client that does not read.
    let server = serve_with(stepper.clone().server().stream_buffer(16)).await;
    let message = json!({
        "messageId": "m-flood",
        "role": "ROLE_USER",
        "parts": [{"data": {"count": 4000, "size": 1024}}],
        "metadata": {"skill": "flood"},
    });
    let created = server
        .rpc(
            "SendMessage",
            json!({"message": message, "configuration": {"returnImmediately": true}}),
        )
        .await;
    let task_id = created["result"]["task"]["id"].as_str().unwrap().to_owned();
    let stalled = server.subscribe(&task_id).await;
    let mut fast = server.subscribe(&task_id).await.unwrap();
    // The fast subscriber reads to the end while the stalled one holds its connection open.
    let events = tokio::time::timeout(Duration::from_secs(60), fast.rest())
        .await
        .expect("the fast subscriber finished");
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_COMPLETED")
    );
    server
        .wait_for_state(&task_id, "TASK_STATE_COMPLETED")
        .await;
    // The stalled subscriber, once it reads, is resynchronized with a snapshot and still ends
    // with the final state; nothing it missed is lost from the task.
    let mut stalled = stalled.unwrap();
    let events = stalled.rest().await;
    let snapshots = events.iter().filter(|e| e.get("task").is_some()).count();
    assert!(
        snapshots >= 2,
        "expected a resync snapshot, got {snapshots}"
    );
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_COMPLETED")
    );
    let task = server.rpc("GetTask", json!({"id": task_id})).await["result"].clone();
    let kept = task["artifacts"][0]["parts"].as_array().unwrap().len();
    assert_eq!(kept, 4001, "4 000 chunks and the closing one");
}

#[tokio::test]
async fn subscribing_to_a_finished_task_is_a_direct_unsupported_operation_error() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server.send_streaming("count", json!({"upto": 1})).await;
    let events = stream.rest().await;
    let task_id = task_id_of(&events[0]).to_owned();
    let error = server.subscribe(&task_id).await.unwrap_err();
    assert_eq!(error["error"]["code"], -32004, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already ended")
    );
    let unknown = server.subscribe("no-such-task").await.unwrap_err();
    assert_eq!(unknown["error"]["code"], -32001);
}

#[tokio::test]
async fn streaming_requests_with_bad_params_get_plain_json_errors() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let missing = server
        .stream("SendStreamingMessage", json!({}))
        .await
        .unwrap_err();
    assert_eq!(missing["error"]["code"], -32602);
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("message")
    );
    let bad_input = server
        .stream(
            "SendStreamingMessage",
            json!({"message": {"messageId": "m", "role": "ROLE_USER",
                "parts": [{"data": {"upto": "three"}}], "metadata": {"skill": "count"}}}),
        )
        .await
        .unwrap_err();
    assert_eq!(bad_input["error"]["code"], -32602);
    assert!(
        bad_input["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upto")
    );
}

#[tokio::test]
async fn idle_streams_get_keep_alive_comments() {
    let stepper = Stepper::default();
    let server = serve_with(
        stepper
            .clone()
            .server()
            .sse_keep_alive(Duration::from_millis(50)),
    )
    .await;
    let mut stream = server
        .send_streaming("steps", json!({"gate": "idle", "steps": 1}))
        .await;
    let mut comments = 0;
    while comments < 2 {
        match stream.next_item().await.unwrap() {
            SseItem::Comment(text) => {
                assert_eq!(text, "keep-alive");
                comments += 1;
            }
            SseItem::Data(_) => {}
        }
    }
    stepper.release("idle", 1);
    let rest = stream.rest().await;
    assert_eq!(state_of(rest.last().unwrap()), Some("TASK_STATE_COMPLETED"));
}

#[tokio::test]
async fn cancel_reaches_a_skill_blocked_in_an_await_and_subscribers_see_canceled() {
    let stepper = Stepper::default();
    let server = serve(&stepper).await;
    let mut stream = server
        .send_streaming("wait", json!({"millis": 600_000}))
        .await;
    let task_id = task_id_of(&stream.next_result().await.unwrap()).to_owned();
    // Wait for the skill to be running (its progress report).
    while state_of(&stream.next_result().await.unwrap()) != Some("TASK_STATE_WORKING") {}
    let mut other = server.subscribe(&task_id).await.unwrap();
    let canceled = server.rpc("CancelTask", json!({"id": task_id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let rest = stream.rest().await;
    assert_eq!(state_of(rest.last().unwrap()), Some("TASK_STATE_CANCELED"));
    let seen = other.rest().await;
    assert_eq!(state_of(seen.last().unwrap()), Some("TASK_STATE_CANCELED"));
    assert!(stepper.logged(&format!("cancelled:{task_id}")).await);
    let again = server.rpc("CancelTask", json!({"id": task_id})).await;
    assert_eq!(again["error"]["code"], -32002, "{again}");
    let task = server.rpc("GetTask", json!({"id": task_id})).await;
    assert_eq!(task["result"]["status"]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn a_skill_that_ignores_cancel_is_dropped_after_the_grace_period() {
    let stepper = Stepper::default();
    let server = serve_with(
        stepper
            .clone()
            .server()
            .cancel_grace(Duration::from_millis(100)),
    )
    .await;
    let mut stream = server
        .send_streaming("stubborn", json!({"millis": 600_000}))
        .await;
    let task_id = task_id_of(&stream.next_result().await.unwrap()).to_owned();
    server.wait_for_state(&task_id, "TASK_STATE_WORKING").await;
    server.rpc("CancelTask", json!({"id": task_id})).await;
    assert!(stepper.logged(&format!("dropped:{task_id}")).await);
    let rest = stream.rest().await;
    assert_eq!(state_of(rest.last().unwrap()), Some("TASK_STATE_CANCELED"));
}

#[tokio::test]
async fn a_shutdown_signal_ends_open_streams_of_a_mounted_router() {
    let stepper = Stepper::default();
    let signal = a2a_runtime::server::CancellationToken::new();
    let server = serve_with(stepper.clone().server().shutdown_signal(signal.clone())).await;
    let mut stream = server
        .send_streaming("steps", json!({"gate": "never", "steps": 1}))
        .await;
    stream.next_result().await.unwrap();
    signal.cancel();
    let rest = stream.rest().await;
    assert!(
        rest.iter()
            .all(|e| state_of(e) != Some("TASK_STATE_COMPLETED")),
        "{rest:?}"
    );
}

#[tokio::test]
async fn the_card_says_what_a_skill_produces_from_its_return_type() {
    let server = serve(&Stepper::default()).await;
    let card = server.card().await;
    let modes = |id: &str| {
        card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| s["outputModes"].clone())
            .unwrap()
    };
    // `impl Stream<Item = String>` and `Result<String, _>` items produce text.
    assert_eq!(modes("count"), json!(["text/plain"]));
    assert_eq!(modes("broken_stream"), json!(["text/plain"]));
    // A `String` result.
    assert_eq!(modes("steps"), json!(["text/plain"]));
}
