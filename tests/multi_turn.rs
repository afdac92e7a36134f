//! Multi-turn calls over A2A on a real socket: questions that interrupt a task and the answers
//! that resume it, expiry, authorization, and conversations across tasks.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::auth::Caller;
use a2a_tests::sse::state_of;
use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, start};
use booking::Booking;
use serde_json::{Value, json};

/// A user message: `parts`, plus any of `taskId`, `contextId`, `metadata`, `referenceTaskIds`.
fn message(parts: Value, extra: Value) -> Value {
    let mut message = json!({
        "messageId": next_message_id(),
        "role": "ROLE_USER",
        "parts": parts,
    });
    if let Value::Object(extra) = extra {
        message.as_object_mut().unwrap().extend(extra);
    }
    message
}

fn next_message_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("msg-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

async fn send(server: &TestServer, message: Value) -> Value {
    server
        .rpc("SendMessage", json!({ "message": message }))
        .await
}

/// Sends `message` and returns the task it answered with, failing on a JSON-RPC error.
async fn send_task(server: &TestServer, message: Value) -> Value {
    let response = send(server, message).await;
    assert!(response["error"].is_null(), "{response}");
    response["result"]["task"].clone()
}

fn to_skill(skill: &str, parts: Value) -> Value {
    message(parts, json!({ "metadata": { "skill": skill } }))
}

fn answer(task: &Value, text: &str) -> Value {
    message(json!([{ "text": text }]), json!({ "taskId": task["id"] }))
}

fn status_text(task: &Value) -> String {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn output(task: &Value) -> Value {
    task["artifacts"][0]["parts"][0]["data"].clone()
}

#[tokio::test]
async fn booking_asks_for_the_missing_date_then_confirms_over_blocking_sends() {
    let server = start(Booking::default().server()).await;
    let task = send_task(
        &server,
        message(
            json!([{ "data": { "restaurant": "Luigi's", "guests": 4 } }]),
            json!({}),
        ),
    )
    .await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    assert_eq!(status_text(&task), "Which day should I book? (YYYY-MM-DD)");
    let schema = &task["status"]["message"]["parts"][1];
    assert_eq!(schema["mediaType"], "application/schema+json");
    assert_eq!(schema["data"]["type"], "string");
    assert_eq!(schema["data"]["format"], "date");

    let task = send_task(&server, answer(&task, "2999-01-31")).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    assert_eq!(
        status_text(&task),
        "Book a table for 4 at Luigi's on 2999-01-31? (yes/no)"
    );

    let task = send_task(&server, answer(&task, "yes")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let reservation = output(&task);
    assert_eq!(reservation["date"], "2999-01-31");
    assert_eq!(reservation["confirmed"], true);
    assert_eq!(reservation["reference"], "BK-0001");
    // The whole exchange is the task's history: request, question, answer, question, answer.
    let history: Vec<&str> = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        history,
        [
            "ROLE_USER",
            "ROLE_AGENT",
            "ROLE_USER",
            "ROLE_AGENT",
            "ROLE_USER"
        ]
    );
}

#[tokio::test]
async fn a_subscription_to_a_waiting_task_stays_open_through_its_answers_to_completed() {
    let server = start(Booking::default().server()).await;
    let task = send_task(
        &server,
        message(
            json!([{ "data": { "restaurant": "Luigi's", "guests": 2 } }]),
            json!({}),
        ),
    )
    .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = task["id"].as_str().unwrap();
    // A second watcher subscribes while the task waits for its date.
    let mut watcher = server.subscribe(id).await.unwrap();
    let first = watcher.next_result().await.unwrap();
    assert_eq!(
        first["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let task = send_task(&server, answer(&task, "2999-02-01")).await;
    send_task(&server, answer(&task, "yes")).await;
    let events = tokio::time::timeout(Duration::from_secs(30), watcher.rest())
        .await
        .expect("the subscription ends once the task does");
    let states: Vec<_> = events.iter().filter_map(state_of).collect();
    assert!(states.contains(&"TASK_STATE_INPUT_REQUIRED"), "{states:?}");
    assert_eq!(states.last(), Some(&"TASK_STATE_COMPLETED"), "{events:?}");
}

#[tokio::test]
async fn a_past_date_is_refused_by_the_skill_and_asked_for_again() {
    let server = start(Booking::default().server()).await;
    let task = send_task(
        &server,
        message(
            json!([{ "data": { "restaurant": "Luigi's", "guests": 2, "date": "2001-02-03" } }]),
            json!({}),
        ),
    )
    .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(
        status_text(&task).starts_with("2001-02-03 has already passed."),
        "{task}"
    );
    let task = send_task(&server, answer(&task, "2999-12-24")).await;
    let task = send_task(&server, answer(&task, "no")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(output(&task)["confirmed"], false);
    assert_eq!(output(&task)["reference"], Value::Null);
}

#[tokio::test]
async fn ask_and_answer_round_trip_over_streams() {
    let server = start(Booking::default().server()).await;
    let start = message(
        json!([{ "data": { "restaurant": "Luigi's", "guests": 3 } }]),
        json!({}),
    );
    let mut stream = server
        .stream("SendStreamingMessage", json!({ "message": start }))
        .await
        .unwrap();
    let events = stream.rest().await;
    let last = events.last().unwrap();
    assert_eq!(
        state_of(last),
        Some("TASK_STATE_INPUT_REQUIRED"),
        "{events:?}"
    );
    let task_id = events[0]["task"]["id"].clone();
    assert_eq!(
        last["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "Which day should I book? (YYYY-MM-DD)"
    );

    // The answer resumes the same task; its stream ends at the next question.
    let reply = message(
        json!([{ "text": "2999-06-01" }]),
        json!({ "taskId": task_id }),
    );
    let mut stream = server
        .stream("SendStreamingMessage", json!({ "message": reply }))
        .await
        .unwrap();
    let events = stream.rest().await;
    assert_eq!(
        events[0]["task"]["id"], task_id,
        "first event is the resumed task"
    );
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_INPUT_REQUIRED"),
        "{events:?}"
    );

    let reply = message(json!([{ "text": "yes" }]), json!({ "taskId": task_id }));
    let mut stream = server
        .stream("SendStreamingMessage", json!({ "message": reply }))
        .await
        .unwrap();
    let events = stream.rest().await;
    let artifact = events
        .iter()
        .find_map(|e| e.get("artifactUpdate"))
        .expect("the reservation is streamed");
    assert_eq!(artifact["artifact"]["parts"][0]["data"]["guests"], 3);
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_COMPLETED"),
        "{events:?}"
    );
}

#[tokio::test]
async fn an_unreadable_answer_is_asked_again_with_the_reason() {
    let talker = Talker::default();
    let server = start(talker.clone().server()).await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(status_text(&task), "How many?");

    let task = send_task(&server, answer(&task, "several")).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let text = status_text(&task);
    assert!(text.starts_with("Could not use that answer ("), "{text}");
    assert!(text.contains("expected u32"), "{text}");
    assert!(text.ends_with("How many?"), "{text}");

    let task = send_task(&server, answer(&task, "21")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(output(&task), 42);
    assert!(talker.log().is_empty(), "the skill saw no error");
}

#[tokio::test]
async fn a_data_part_answers_a_typed_question() {
    let server = start(Talker::default().server()).await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    let reply = message(json!([{ "data": 5 }]), json!({ "taskId": task["id"] }));
    let task = send_task(&server, reply).await;
    assert_eq!(output(&task), 10);
}

#[tokio::test]
async fn an_unanswered_question_expires_fails_the_task_and_frees_its_slot() {
    let talker = Talker::default();
    let server = start(
        talker
            .clone()
            .server()
            .input_timeout(Duration::from_millis(200))
            .max_waiting_tasks(1),
    )
    .await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");

    let failed = server
        .wait_for_state(task["id"].as_str().unwrap(), "TASK_STATE_FAILED")
        .await;
    assert_eq!(
        status_text(&failed),
        "No answer to \"How many?\" within 200ms; the task was closed."
    );
    let seen = talker.logged("ask failed").await.unwrap();
    assert!(seen.contains("Expired"), "{seen}");

    // A late answer is refused as for any finished task.
    let late = send(&server, answer(&task, "3")).await;
    assert_eq!(late["error"]["code"], -32004, "{late}");
    // The expired question no longer holds the only waiting slot.
    let next = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(
        next["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{next}"
    );
}

#[tokio::test]
async fn waiting_calls_are_bounded() {
    let talker = Talker::default();
    let server = start(talker.clone().server().max_waiting_tasks(1)).await;
    let first = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(first["status"]["state"], "TASK_STATE_INPUT_REQUIRED");

    let second = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(second["status"]["state"], "TASK_STATE_FAILED", "{second}");
    assert!(
        status_text(&second).contains("1 calls are already waiting for input"),
        "{second}"
    );

    // Answering the first frees its slot.
    let done = send_task(&server, answer(&first, "1")).await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    let third = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    assert_eq!(third["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
}

#[tokio::test]
async fn canceling_a_waiting_task_tells_the_skill() {
    let talker = Talker::default();
    let server = start(talker.clone().server()).await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    let canceled = server.rpc("CancelTask", json!({ "id": task["id"] })).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let seen = talker.logged("ask failed").await.unwrap();
    assert!(seen.contains("Canceled"), "{seen}");
}

#[tokio::test]
async fn a_message_to_a_completed_task_is_unsupported() {
    let server = start(Talker::default().server()).await;
    let task = send_task(&server, to_skill("greet", json!([{ "text": "hi" }]))).await;
    let task = send_task(&server, answer(&task, "Ada")).await;
    assert_eq!(output_text(&task), "Hello, Ada!");
    let response = send(&server, answer(&task, "again")).await;
    assert_eq!(response["error"]["code"], -32004, "{response}");
    let text = response["error"]["message"].as_str().unwrap();
    assert!(text.contains("accepts no more messages"), "{text}");
}

fn output_text(task: &Value) -> &str {
    task["artifacts"][0]["parts"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn a_message_for_an_unknown_task_is_task_not_found() {
    let server = start(Talker::default().server()).await;
    let response = send(
        &server,
        message(
            json!([{ "text": "3" }]),
            json!({ "taskId": "no-such-task" }),
        ),
    )
    .await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-task")
    );
}

#[tokio::test]
async fn an_answer_naming_another_context_is_rejected_and_the_question_stays_open() {
    let server = start(Talker::default().server()).await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    let wrong = message(
        json!([{ "text": "2" }]),
        json!({ "taskId": task["id"], "contextId": "another-context" }),
    );
    let response = send(&server, wrong).await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let task = send_task(&server, answer(&task, "2")).await;
    assert_eq!(output(&task), 4);
}

#[tokio::test]
async fn history_length_applies_to_resumed_tasks() {
    let server = start(Talker::default().server()).await;
    let task = send_task(&server, to_skill("double", json!([{ "text": "go" }]))).await;
    let response = server
        .rpc(
            "SendMessage",
            json!({ "message": answer(&task, "4"), "configuration": { "historyLength": 1 } }),
        )
        .await;
    let history = response["result"]["task"]["history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["parts"][0]["text"], "4");
    let full = server
        .rpc("GetTask", json!({ "id": task["id"], "historyLength": 0 }))
        .await;
    assert!(full["result"]["history"].is_null(), "{full}");
}

#[tokio::test]
async fn history_spans_the_earlier_tasks_of_a_context() {
    let server = start(Talker::default().server()).await;
    let first = send_task(&server, to_skill("greet", json!([{ "text": "hi" }]))).await;
    let context = first["contextId"].clone();
    send_task(&server, answer(&first, "Ada")).await;

    let recall = message(
        json!([{ "text": "what did I say?" }]),
        json!({ "contextId": context, "metadata": { "skill": "recall" } }),
    );
    let task = send_task(&server, recall).await;
    assert_eq!(task["contextId"], context);
    assert_eq!(
        output(&task),
        json!(["user: hi", "agent: What is your name?", "user: Ada"])
    );

    // Another conversation shares nothing.
    let elsewhere = send_task(&server, to_skill("recall", json!([{ "text": "anyone?" }]))).await;
    assert_eq!(output(&elsewhere), json!([]));
}

#[tokio::test]
async fn reference_task_ids_reach_the_skill() {
    let server = start(Talker::default().server()).await;
    let refs = message(
        json!([{ "text": "see these" }]),
        json!({ "referenceTaskIds": ["t-1", "t-2"], "metadata": { "skill": "references" } }),
    );
    let task = send_task(&server, refs).await;
    assert_eq!(output(&task), json!(["t-1", "t-2"]));
}

#[tokio::test]
async fn auth_required_waits_until_the_runtime_is_told_the_credential_arrived() {
    let agent = Talker::default().server();
    let tasks = agent.tasks();
    let server = start(agent).await;
    let task = send_task(&server, to_skill("whoami", json!([{ "text": "me" }]))).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_AUTH_REQUIRED",
        "{task}"
    );
    let id = task["id"].as_str().unwrap();
    assert_eq!(status_text(&task), format!("Sign in for task {id}."));

    // Credentials arrive out of band, not as messages.
    let response = send(&server, answer(&task, "let me in")).await;
    assert_eq!(response["error"]["code"], -32004, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("waiting for authorization")
    );
    assert!(matches!(
        tasks
            .authorize("no-such-task", &Caller::anonymous(), json!({}))
            .await,
        Err(a2a_runtime::server::TasksError::NotFound(_))
    ));

    tasks
        .authorize(id, &Caller::anonymous(), json!({ "user": "ada" }))
        .await
        .unwrap();
    let done = server
        .wait_for_state(task["id"].as_str().unwrap(), "TASK_STATE_COMPLETED")
        .await;
    assert_eq!(output_text(&done), "signed in as \"ada\"");
    // The credential is handed to the skill, never kept in the task.
    assert!(!done.to_string().contains("ada\\\"}"), "{done}");
    let again = tasks
        .authorize(id, &Caller::anonymous(), json!({ "user": "eve" }))
        .await;
    assert!(
        matches!(
            again,
            Err(a2a_runtime::server::TasksError::NotWaiting { .. })
        ),
        "{again:?}"
    );
}

#[tokio::test]
async fn a_message_to_a_task_that_is_not_waiting_is_refused() {
    let stepper = a2a_tests::stepper::Stepper::default();
    let server = start(stepper.clone().server()).await;
    let working = server
        .rpc(
            "SendMessage",
            json!({
                "message": to_skill("wait", json!([{ "data": { "millis": 60_000 } }])),
                "configuration": { "returnImmediately": true },
            }),
        )
        .await;
    let task = working["result"]["task"].clone();
    let response = send(&server, answer(&task, "hello?")).await;
    assert_eq!(response["error"]["code"], -32004, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still working"),
        "{response}"
    );
    server.rpc("CancelTask", json!({ "id": task["id"] })).await;
}
