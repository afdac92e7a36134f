//! Push notifications over real sockets: the webhook-receiver example on loopback (allowed
//! explicitly) gets every event once, in order, with the right headers, in the wire version
//! that registered it; retries, a receiver that hangs, the SSRF guard, redaction, ownership on
//! every dialect, and deliveries pending at `kill -9` delivered after a restart.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::auth::{ApiKeys, JwtConfig};
use a2a_runtime::{AgentServer, server::PushOptions};
use a2a_tests::lab::Lab;
use a2a_tests::receiver::Receiver;
use a2a_tests::vault::Vault;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

#[path = "push/ownership_and_versions.rs"]
mod ownership_and_versions;
#[path = "push/remote.rs"]
mod remote;

const RECEIVER: &str = env!("CARGO_BIN_EXE_receiver-under-test");
const LAB: &str = env!("CARGO_BIN_EXE_lab-server");

/// Delivery to loopback allowed (the receiver runs there), quick retries.
fn local_push() -> PushOptions {
    let mut push = PushOptions::default();
    push.allow_private = true;
    push.first_retry = Duration::from_millis(50);
    push
}

async fn lab() -> TestServer {
    start(Lab.server().push(local_push())).await
}

/// A `SendMessage` request to `skill` with `input`, and `configuration`.
fn send_params(skill: &str, input: Value, configuration: Value) -> Value {
    json!({
        "message": {
            "messageId": format!("m-{skill}"),
            "role": "ROLE_USER",
            "parts": [{"data": input}],
            "metadata": {"skill": skill},
        },
        "configuration": configuration,
    })
}

/// Starts a `wait` task that runs until canceled; its id.
async fn waiting_task(server: &TestServer) -> String {
    let started = server
        .rpc(
            "SendMessage",
            send_params(
                "wait",
                json!({"millis": 600_000}),
                json!({"returnImmediately": true}),
            ),
        )
        .await;
    started["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned()
}

fn error_message(response: &Value) -> String {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    response["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn every_event_reaches_the_receiver_once_in_order_with_token_and_authorization() {
    let mut receiver = Receiver::start(
        RECEIVER,
        &["--token", "tok-1", "--authorization", "Bearer s3cret"],
    )
    .await;
    let server = lab().await;
    let config = json!({
        "url": receiver.url,
        "token": "tok-1",
        "authentication": {"scheme": "Bearer", "credentials": "s3cret"},
    });
    let mut stream = server
        .stream(
            "SendStreamingMessage",
            send_params(
                "tick",
                json!({"times": 3}),
                json!({"taskPushNotificationConfig": config}),
            ),
        )
        .await
        .unwrap();
    let streamed = stream.rest().await;
    assert!(streamed[0].get("task").is_some(), "{}", streamed[0]);
    // The subscriber saw the task, then each event; the receiver gets the same events.
    let events = &streamed[1..];
    let delivered = receiver.accepted_until_terminal().await;
    assert_eq!(delivered.len(), events.len(), "{delivered:#?}");
    for (delivery, event) in delivered.iter().zip(events) {
        assert_eq!(&delivery["body"], event);
        assert_eq!(delivery["contentType"], "application/a2a+json");
        assert_eq!(delivery["token"], "tok-1");
        assert_eq!(delivery["authorization"], "Bearer s3cret");
    }
    let kinds = kinds(&delivered);
    assert_eq!(
        kinds,
        [
            "statusUpdate",
            "statusUpdate",
            "statusUpdate",
            "statusUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
    assert_eq!(delivered.last().unwrap()["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn a_receiver_failing_twice_gets_the_event_on_the_third_attempt() {
    let mut receiver = Receiver::start(RECEIVER, &["--fail-first", "2"]).await;
    let server = lab().await;
    let sent = server
        .rpc(
            "SendMessage",
            send_params(
                "echo",
                json!({"text": "hi"}),
                json!({"taskPushNotificationConfig": {"url": receiver.url}}),
            ),
        )
        .await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let attempts = [
        receiver.next().await,
        receiver.next().await,
        receiver.next().await,
    ];
    let answered: Vec<&Value> = attempts.iter().map(|a| &a["answered"]).collect();
    assert_eq!(answered, [&json!(500), &json!(500), &json!(200)]);
    assert_eq!(
        attempts[0]["body"], attempts[2]["body"],
        "the same event, retried"
    );
    assert_eq!(attempts[0]["state"], "TASK_STATE_WORKING");
    // The events after it follow, in order, once each.
    let rest = receiver.accepted_until_terminal().await;
    let kinds = kinds(&rest);
    assert_eq!(kinds, ["artifactUpdate", "statusUpdate"]);
}

#[tokio::test]
async fn a_receiver_that_never_answers_delays_neither_the_task_nor_other_receivers() {
    let stalled = Receiver::start(RECEIVER, &["--stall"]).await;
    let mut healthy = Receiver::start(RECEIVER, &[]).await;
    let mut push = local_push();
    // Far longer than the test: the stalled delivery is still in flight at its end.
    push.timeout = Duration::from_secs(3600);
    let server = start(Lab.server().push(push)).await;
    // A blocking send answers with the finished task while its receiver holds the first event.
    let sent = server
        .rpc(
            "SendMessage",
            send_params(
                "tick",
                json!({"times": 2}),
                json!({"taskPushNotificationConfig": {"url": stalled.url}}),
            ),
        )
        .await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
    // Another task's receiver gets all its events meanwhile.
    let task = waiting_task(&server).await;
    for url in [&stalled.url, &healthy.url] {
        let created = server
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": url}),
            )
            .await;
        assert!(created["result"]["id"].is_string(), "{created}");
    }
    let canceled = server.rpc("CancelTask", json!({"id": task})).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let delivered = healthy.accepted_until_terminal().await;
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["taskId"], json!(task));
    assert_eq!(delivered[0]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn webhooks_to_internal_addresses_are_refused_naming_the_rule() {
    // The default: no --push-allow-private.
    let server = start(Lab.server()).await;
    assert_eq!(
        server.card().await["capabilities"]["pushNotifications"],
        true
    );
    let task = waiting_task(&server).await;
    let cases = [
        (
            "http://127.0.0.1:9/hook",
            "a loopback address (127.0.0.0/8)",
        ),
        ("http://10.1.2.3/hook", "a private address (10.0.0.0/8)"),
        (
            "http://192.168.0.7/hook",
            "a private address (192.168.0.0/16)",
        ),
        (
            "http://169.254.169.254/latest/meta-data",
            "the cloud metadata address (169.254.169.254)",
        ),
        (
            "http://100.64.0.9/",
            "a carrier-grade NAT address (100.64.0.0/10)",
        ),
        ("http://[fe80::1]/", "a link-local address (fe80::/10)"),
        (
            "http://[::ffff:127.0.0.1]/",
            "a loopback address (127.0.0.0/8)",
        ),
        ("http://localhost:8080/hook", "a loopback name"),
        ("ftp://example.com/hook", "the scheme `ftp`"),
        ("not a url", "is not a valid URL"),
    ];
    for (url, rule) in cases {
        let refused = server
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": url}),
            )
            .await;
        let message = error_message(&refused);
        assert!(message.starts_with("url: "), "{url}: {message}");
        assert!(message.contains(rule), "{url}: {message}");
    }
    // Inline, the send is refused before a task is created.
    let refused = server
        .rpc(
            "SendMessage",
            send_params(
                "echo",
                json!({"text": "x"}),
                json!({"taskPushNotificationConfig": {"url": "http://10.0.0.1/"}}),
            ),
        )
        .await;
    let message = error_message(&refused);
    assert!(
        message.starts_with("configuration.taskPushNotificationConfig.url: "),
        "{message}"
    );
    let listed = server.rpc("ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn config_fields_are_checked_and_named() {
    let server = lab().await;
    let task = waiting_task(&server).await;
    let cases = [
        (json!({"taskId": task}), "url: is required"),
        (json!({"url": "http://127.0.0.1:9/"}), "taskId: is required"),
        (
            json!({"taskId": task, "url": "http://127.0.0.1:9/", "token": "a\nb"}),
            "token: must be printable ASCII",
        ),
        (
            json!({"taskId": task, "url": "http://127.0.0.1:9/", "authentication": {"credentials": "x"}}),
            "authentication.scheme: is required",
        ),
        (
            json!({"taskId": task, "url": "http://127.0.0.1:9/", "authentication": {"scheme": "Bad Scheme"}}),
            "authentication.scheme: `Bad Scheme` is not an HTTP authentication scheme",
        ),
        (
            json!({"taskId": task, "url": "http://127.0.0.1:9/", "id": "a/b"}),
            "id: must not contain `/`",
        ),
    ];
    for (params, expected) in cases {
        let refused = server
            .rpc("CreateTaskPushNotificationConfig", params.clone())
            .await;
        let message = error_message(&refused);
        assert!(message.starts_with(expected), "{params}: {message}");
    }
    let unknown = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": "nope", "url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    // A task holds at most 10 configs.
    for i in 0..10 {
        let created = server
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "id": format!("c{i}"), "url": "http://127.0.0.1:9/"}),
            )
            .await;
        assert!(created.get("result").is_some(), "{created}");
    }
    let over = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "id": "c10", "url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert!(error_message(&over).contains("10 push configs"), "{over}");
}

#[tokio::test]
async fn a_finished_task_takes_a_config_and_an_unknown_config_is_task_not_found() {
    let server = lab().await;
    // A task that already finished takes a config too (a client registering right after a
    // fast task ends), and reads it back; an unknown config id is a not-found.
    let done = server
        .rpc(
            "SendMessage",
            send_params("echo", json!({"text": "x"}), json!({})),
        )
        .await;
    let done = done["result"]["task"]["id"].as_str().unwrap();
    let ended = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": done, "id": "late", "url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert_eq!(ended["result"]["id"], "late", "{ended}");
    let read = server
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": done, "id": "late"}),
        )
        .await;
    assert_eq!(read["result"]["url"], "http://127.0.0.1:9/", "{read}");
    let missing = server
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": done, "id": "nope"}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32001, "{missing}");
    let reason = &missing["error"]["data"][0]["reason"];
    assert_eq!(reason, "TASK_NOT_FOUND", "{missing}");
    // HTTP+JSON answers A2A's error name too (ACTS: no `PUSH_NOTIFICATION_CONFIG_NOT_FOUND`).
    let path = format!("{}tasks/{done}/pushNotificationConfigs/nope", server.base);
    let rest = server
        .http
        .get(&path)
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 404);
    let body: Value = rest.json().await.unwrap();
    let reason = &body["error"]["details"][0]["reason"];
    assert_eq!(reason, "TASK_NOT_FOUND", "{body}");
}

/// A2A 1.0.1 §3.1.10: "This operation MUST be idempotent" (the TCK's PUSH-DEL-002, ACTS
/// PUSH-IDEM-001). Deleting a config the task does not have succeeds, over JSON-RPC and
/// HTTP+JSON alike; a task that does not exist stays not found.
#[tokio::test]
async fn deleting_a_push_config_twice_or_one_never_made_succeeds_and_an_unknown_task_does_not() {
    let server = lab().await;
    let done = server
        .rpc(
            "SendMessage",
            send_params("echo", json!({"text": "x"}), json!({})),
        )
        .await;
    let done = done["result"]["task"]["id"].as_str().unwrap();
    let hook = json!({"taskId": done, "id": "hook", "url": "http://127.0.0.1:9/"});
    let created = server.rpc("CreateTaskPushNotificationConfig", hook).await;
    assert_eq!(created["result"]["id"], "hook", "{created}");
    for id in ["hook", "hook", "never-made"] {
        let deleted = server
            .rpc(
                "DeleteTaskPushNotificationConfig",
                json!({"taskId": done, "id": id}),
            )
            .await;
        assert_eq!(deleted["result"], Value::Null, "{id}: {deleted}");
        assert!(deleted.get("error").is_none(), "{id}: {deleted}");
    }
    let unknown = server
        .rpc(
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": "no-such-task", "id": "hook"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    for (task, status) in [(done, 200), (done, 200), ("no-such-task", 404)] {
        let path = format!("{}tasks/{task}/pushNotificationConfigs/hook", server.base);
        let rest = server
            .http
            .delete(&path)
            .header("A2A-Version", "1.0")
            .send()
            .await
            .unwrap();
        assert_eq!(rest.status(), status, "{path}");
    }
}

/// Config `hook` of `task` read and listed in every dialect: 1.0 JSON-RPC (get, list),
/// HTTP+JSON 1.0 and 0.3 (get, list), 0.3 JSON-RPC (get, list).
async fn read_in_every_dialect(server: &TestServer, task: &str) -> Vec<Value> {
    let hook = json!({"taskId": task, "id": "hook"});
    let mut bodies = vec![
        server.rpc("GetTaskPushNotificationConfig", hook).await,
        server
            .rpc("ListTaskPushNotificationConfigs", json!({"taskId": task}))
            .await,
    ];
    for path in [
        format!("tasks/{task}/pushNotificationConfigs/hook"),
        format!("tasks/{task}/pushNotificationConfigs"),
        format!("v1/tasks/{task}/pushNotificationConfigs/hook"),
        format!("v1/tasks/{task}/pushNotificationConfigs"),
    ] {
        let response = server.http.get(format!("{}{path}", server.base)).send();
        bodies.push(response.await.unwrap().json::<Value>().await.unwrap());
    }
    for method in [
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
    ] {
        let params = json!({"id": task, "pushNotificationConfigId": "hook"});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        bodies.push(server.post_raw(body.to_string(), None).await.1);
    }
    bodies
}

#[tokio::test]
async fn get_and_list_never_echo_credentials_on_any_dialect() {
    let server = lab().await;
    let task = waiting_task(&server).await;
    let secret = "s3cret-credentials";
    let created = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({
                "taskId": task,
                "id": "hook",
                "url": "http://127.0.0.1:9/hook",
                "token": "tok",
                "authentication": {"scheme": "Bearer", "credentials": secret},
            }),
        )
        .await;
    assert_eq!(
        created["result"],
        json!({
            "id": "hook",
            "taskId": task,
            "url": "http://127.0.0.1:9/hook",
            "token": "tok",
            "authentication": {"scheme": "Bearer", "credentials": "********"},
        })
    );
    let bodies = read_in_every_dialect(&server, &task).await;
    for body in &bodies {
        let text = body.to_string();
        assert!(!text.contains(secret), "{text}");
        assert!(text.contains("********"), "{text}");
        assert!(text.contains("http://127.0.0.1:9/hook"), "{text}");
    }
    assert_eq!(
        bodies[1]["result"]["configs"][0]["authentication"]["credentials"],
        "********"
    );
    assert_eq!(bodies[1]["result"]["nextPageToken"], "");
    assert_eq!(
        bodies[4]["name"],
        format!("tasks/{task}/pushNotificationConfigs/hook")
    );
    assert_eq!(
        bodies[6]["result"]["pushNotificationConfig"]["authentication"]["schemes"],
        json!(["Bearer"])
    );
}

const ALICE_KEY: &str = "alice-key-0123456789";
const BOB_KEY: &str = "bob-key-9876543210abc";

/// The kind of each delivery the receiver printed, in order.
fn kinds(deliveries: &[Value]) -> Vec<&str> {
    deliveries
        .iter()
        .map(|d| d["kind"].as_str().expect("a delivery kind"))
        .collect()
}
