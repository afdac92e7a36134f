//! The same scenarios against every A2A dialect one server speaks: 1.0 JSON-RPC, 1.0 HTTP+JSON,
//! 0.3 JSON-RPC, 0.3 HTTP+JSON (0.3 proto JSON under `/v1/`) and the early draft (`tasks/send`).
//! Each dialect turns the scenario's steps into its own wire shapes and reads the answers back
//! into one normalized form, so every dialect is held to the same behaviour.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use a2a_tests::lab::Lab;
use a2a_tests::sse::{SseItem, SseStream};
use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, start};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    V1JsonRpc,
    V1Rest,
    V03JsonRpc,
    V03Rest,
    Draft,
}

const ALL: [Dialect; 5] = [
    Dialect::V1JsonRpc,
    Dialect::V1Rest,
    Dialect::V03JsonRpc,
    Dialect::V03Rest,
    Dialect::Draft,
];

/// A task as every dialect reports it.
#[derive(Debug, Clone)]
struct Task {
    /// The id to use in later calls (the client's own id for the draft).
    id: String,
    state: String,
    /// The text or JSON of the first part of every artifact.
    outputs: Vec<Value>,
    history: usize,
    raw: Value,
}

/// An error as every dialect reports it: the ErrorInfo reason and the dialect's code.
#[derive(Debug, Clone)]
struct Failure {
    reason: String,
    /// The JSON-RPC code, or the HTTP status for HTTP+JSON.
    code: i64,
    message: String,
}

/// One normalized stream event: `task`/`status` with a state, or `artifact`.
type Event = (String, String);

static NEXT: AtomicU32 = AtomicU32::new(1);

fn next_id(prefix: &str) -> String {
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `TASK_STATE_INPUT_REQUIRED`, `input-required`, `TASK_STATE_CANCELLED` → `input-required`,
/// `canceled`.
fn normalize_state(state: &str) -> String {
    let state = state.strip_prefix("TASK_STATE_").unwrap_or(state);
    let state = state.to_ascii_lowercase().replace('_', "-");
    if state == "cancelled" {
        "canceled".into()
    } else {
        state
    }
}

fn part_value(part: &Value) -> Value {
    if let Some(text) = part.get("text") {
        return text.clone();
    }
    match part.get("data") {
        // 0.3 proto JSON nests the object once more.
        Some(Value::Object(map)) if map.len() == 1 && map.contains_key("data") => {
            map["data"].clone()
        }
        Some(data) => data.clone(),
        None => Value::Null,
    }
}

impl Dialect {
    fn is_rest(self) -> bool {
        matches!(self, Self::V1Rest | Self::V03Rest)
    }

    fn part(self, part: &Value) -> Value {
        let (kind, mut body) = match (part.get("text"), part.get("data"), part.get("raw")) {
            (Some(text), _, _) => ("text", json!({ "text": text })),
            (_, Some(data), _) => ("data", json!({ "data": data })),
            (_, _, Some(raw)) => ("file", json!({ "raw": raw })),
            _ => panic!("unsupported test part {part}"),
        };
        match self {
            Self::V1JsonRpc | Self::V1Rest => {
                if let Some(media) = part.get("mediaType") {
                    body["mediaType"] = media.clone();
                }
                body
            }
            Self::V03JsonRpc | Self::Draft => {
                let tag = if self == Self::Draft { "type" } else { "kind" };
                let mut out = match kind {
                    "file" => {
                        json!({ "file": { "bytes": part["raw"], "mimeType": part["mediaType"] } })
                    }
                    _ => body,
                };
                out[tag] = json!(kind);
                out
            }
            Self::V03Rest => match kind {
                "data" => json!({ "data": { "data": part["data"] } }),
                "file" => {
                    json!({ "file": { "fileWithBytes": part["raw"], "mimeType": part["mediaType"] } })
                }
                _ => body,
            },
        }
    }

    /// A user message in this dialect; `task` is the task it answers.
    fn message(self, skill: &str, parts: &[Value], task: Option<&str>) -> Value {
        let parts: Vec<Value> = parts.iter().map(|p| self.part(p)).collect();
        let mut message = match self {
            Self::V1JsonRpc | Self::V1Rest => {
                json!({"messageId": next_id("m"), "role": "ROLE_USER", "parts": parts})
            }
            Self::V03JsonRpc => {
                json!({"kind": "message", "messageId": next_id("m"), "role": "user", "parts": parts})
            }
            Self::V03Rest => {
                json!({"messageId": next_id("m"), "role": "ROLE_USER", "content": parts})
            }
            Self::Draft => json!({"role": "user", "parts": parts}),
        };
        if !skill.is_empty() {
            message["metadata"] = json!({ "skill": skill });
        }
        if let (Some(task), false) = (task, self == Self::Draft) {
            message["taskId"] = json!(task);
        }
        message
    }

    async fn rpc(self, server: &TestServer, method: &str, params: Value) -> Result<Value, Failure> {
        let version = match self {
            Self::V1JsonRpc => Some("1.0"),
            _ => None,
        };
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params});
        let (status, mut response) = server.post_raw(body.to_string(), version).await;
        assert_eq!(status, 200, "{response}");
        // A 0.3 streaming method refused before any event answers one SSE error event.
        if let Some(event) = response["raw"]
            .as_str()
            .and_then(|raw| raw.strip_prefix("data: "))
        {
            assert_eq!(self, Self::V03JsonRpc, "{event}");
            response = serde_json::from_str(event.trim()).unwrap();
        }
        assert_eq!(response["id"], 5, "{response}");
        match response.get("error") {
            Some(error) => Err(Failure {
                reason: error["data"][0]["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .into(),
                code: error["code"].as_i64().unwrap(),
                message: error["message"].as_str().unwrap_or_default().into(),
            }),
            None => Ok(response["result"].clone()),
        }
    }

    async fn rest(
        self,
        server: &TestServer,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, Failure> {
        let prefix = if self == Self::V03Rest { "v1/" } else { "" };
        let url = format!("{}{prefix}{path}", server.base);
        let mut request = server.http.request(method, url);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/a2a+json")
                .body(body.to_string());
        }
        let response = request.send().await.unwrap();
        let status = i64::from(response.status().as_u16());
        let body: Value = response.json().await.unwrap();
        if status == 200 {
            return Ok(body);
        }
        let error = &body["error"];
        assert_eq!(error["code"], status, "{body}");
        Err(Failure {
            reason: error["details"][0]["reason"]
                .as_str()
                .unwrap_or_default()
                .into(),
            code: status,
            message: error["message"].as_str().unwrap_or_default().into(),
        })
    }

    fn task(self, raw: &Value, id: Option<&str>) -> Task {
        let raw = raw.get("task").cloned().unwrap_or_else(|| raw.clone());
        if self == Self::V03JsonRpc {
            assert_eq!(raw["kind"], "task", "{raw}");
        }
        if self == Self::Draft {
            assert!(
                raw.get("sessionId").is_some(),
                "draft tasks carry sessionId: {raw}"
            );
        }
        // 0.3 and the draft carry only objects in data parts; other values come wrapped.
        let legacy = !matches!(self, Self::V1JsonRpc | Self::V1Rest);
        let unwrap = |value: Value| match value {
            Value::Object(map) if legacy && map.len() == 1 && map.contains_key("value") => {
                map["value"].clone()
            }
            other => other,
        };
        let outputs = raw["artifacts"]
            .as_array()
            .map(|artifacts| {
                artifacts
                    .iter()
                    .map(|a| unwrap(part_value(&a["parts"][0])))
                    .collect()
            })
            .unwrap_or_default();
        Task {
            id: id.map_or_else(|| raw["id"].as_str().unwrap().to_owned(), str::to_owned),
            state: normalize_state(raw["status"]["state"].as_str().unwrap()),
            history: raw["history"].as_array().map_or(0, Vec::len),
            outputs,
            raw,
        }
    }

    /// Sends a message: blocking unless `wait` is false (the draft always blocks).
    async fn send(
        self,
        server: &TestServer,
        skill: &str,
        parts: &[Value],
        answering: Option<&str>,
        wait: bool,
    ) -> Result<Task, Failure> {
        let message = self.message(skill, parts, answering);
        match self {
            Self::V1JsonRpc | Self::V1Rest => {
                let params =
                    json!({"message": message, "configuration": {"returnImmediately": !wait}});
                let raw = if self.is_rest() {
                    self.rest(server, reqwest::Method::POST, "message:send", Some(params))
                        .await?
                } else {
                    self.rpc(server, "SendMessage", params).await?
                };
                Ok(self.task(&raw, None))
            }
            Self::V03JsonRpc => {
                let params = json!({"message": message, "configuration": {"blocking": wait}});
                Ok(self.task(&self.rpc(server, "message/send", params).await?, None))
            }
            Self::V03Rest => {
                let params = json!({"message": message, "configuration": {"blocking": wait}});
                let raw = self
                    .rest(server, reqwest::Method::POST, "message:send", Some(params))
                    .await?;
                Ok(self.task(&raw, None))
            }
            Self::Draft => {
                let id = answering.map_or_else(|| next_id("draft-task"), str::to_owned);
                let params = json!({"id": id, "message": message, "historyLength": 10});
                let raw = self.rpc(server, "tasks/send", params).await?;
                assert_eq!(
                    raw["id"],
                    id.as_str(),
                    "the draft answers under the client's id"
                );
                Ok(self.task(&raw, Some(&id)))
            }
        }
    }

    async fn get(
        self,
        server: &TestServer,
        id: &str,
        history: Option<u32>,
    ) -> Result<Task, Failure> {
        let raw = match self {
            Self::V1Rest | Self::V03Rest => {
                let query = history
                    .map(|h| format!("?historyLength={h}"))
                    .unwrap_or_default();
                self.rest(
                    server,
                    reqwest::Method::GET,
                    &format!("tasks/{id}{query}"),
                    None,
                )
                .await?
            }
            _ => {
                let method = if self == Self::V1JsonRpc {
                    "GetTask"
                } else {
                    "tasks/get"
                };
                let mut params = json!({ "id": id });
                if let Some(h) = history {
                    params["historyLength"] = json!(h);
                }
                self.rpc(server, method, params).await?
            }
        };
        Ok(self.task(&raw, Some(id)))
    }

    async fn cancel(self, server: &TestServer, id: &str) -> Result<Task, Failure> {
        let raw = match self {
            Self::V1Rest | Self::V03Rest => {
                self.rest(
                    server,
                    reqwest::Method::POST,
                    &format!("tasks/{id}:cancel"),
                    None,
                )
                .await?
            }
            _ => {
                let method = if self == Self::V1JsonRpc {
                    "CancelTask"
                } else {
                    "tasks/cancel"
                };
                self.rpc(server, method, json!({ "id": id })).await?
            }
        };
        Ok(self.task(&raw, Some(id)))
    }

    /// Opens a stream: a streaming send of `parts` to `skill`, or a resubscription to `task`.
    async fn stream(
        self,
        server: &TestServer,
        skill: &str,
        parts: &[Value],
        resubscribe: Option<&str>,
    ) -> (SseStream, String) {
        let client_id = next_id("draft-stream");
        let (method, path, params) = match (self, resubscribe) {
            (Self::V1JsonRpc, None) => ("SendStreamingMessage", "message:stream", None),
            (Self::V1JsonRpc, Some(id)) => ("SubscribeToTask", "", Some(json!({ "id": id }))),
            (Self::V03JsonRpc, None) => ("message/stream", "", None),
            (Self::V03JsonRpc, Some(id)) => ("tasks/resubscribe", "", Some(json!({ "id": id }))),
            (Self::Draft, None) => ("tasks/sendSubscribe", "", None),
            (Self::Draft, Some(id)) => ("tasks/resubscribe", "", Some(json!({ "id": id }))),
            (_, None) => ("", "message:stream", None),
            (_, Some(_)) => ("", "", None),
        };
        let params = params.unwrap_or_else(|| {
            let message = self.message(skill, parts, None);
            if self == Self::Draft {
                json!({ "id": client_id, "message": message })
            } else {
                json!({ "message": message })
            }
        });
        let request = if self.is_rest() {
            let prefix = if self == Self::V03Rest { "v1/" } else { "" };
            let path = match resubscribe {
                Some(id) => format!("tasks/{id}:subscribe"),
                None => path.to_owned(),
            };
            let request = server.http.post(format!("{}{prefix}{path}", server.base));
            if resubscribe.is_some() {
                request
            } else {
                request
                    .header("content-type", "application/json")
                    .body(params.to_string())
            }
        } else {
            let body = json!({"jsonrpc": "2.0", "id": 8, "method": method, "params": params});
            let mut request = server
                .http
                .post(&server.base)
                .header("content-type", "application/json")
                .body(body.to_string());
            if self == Self::V1JsonRpc {
                request = request.header("A2A-Version", "1.0");
            }
            request
        };
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        (SseStream::new(response), client_id)
    }

    /// Reads a stream to its end, normalized; the last event must mark the end where the
    /// dialect has a `final` flag.
    async fn events(self, stream: &mut SseStream) -> Vec<Event> {
        let mut events = Vec::new();
        let mut last_final = None;
        while let Some(item) = stream.next_item().await {
            let SseItem::Data(data) = item else { continue };
            let result = if self.is_rest() {
                data
            } else {
                data["result"].clone()
            };
            let event = match self {
                Self::V1JsonRpc | Self::V1Rest | Self::V03Rest => {
                    if let Some(task) = result.get("task") {
                        (
                            "task".into(),
                            normalize_state(task["status"]["state"].as_str().unwrap()),
                        )
                    } else if let Some(update) = result.get("statusUpdate") {
                        if self == Self::V03Rest {
                            last_final = Some(update["final"] == true);
                        }
                        (
                            "status".into(),
                            normalize_state(update["status"]["state"].as_str().unwrap()),
                        )
                    } else {
                        assert!(result.get("artifactUpdate").is_some(), "{result}");
                        ("artifact".into(), String::new())
                    }
                }
                Self::V03JsonRpc => match result["kind"].as_str().unwrap() {
                    "task" => (
                        "task".into(),
                        normalize_state(result["status"]["state"].as_str().unwrap()),
                    ),
                    "status-update" => {
                        last_final = Some(result["final"] == true);
                        (
                            "status".into(),
                            normalize_state(result["status"]["state"].as_str().unwrap()),
                        )
                    }
                    other => {
                        assert_eq!(other, "artifact-update");
                        ("artifact".into(), String::new())
                    }
                },
                Self::Draft => {
                    if let Some(status) = result.get("status") {
                        last_final = Some(result["final"] == true);
                        (
                            "status".into(),
                            normalize_state(status["state"].as_str().unwrap()),
                        )
                    } else {
                        assert!(result["artifact"]["index"].is_u64(), "{result}");
                        ("artifact".into(), String::new())
                    }
                }
            };
            events.push(event);
        }
        if let Some(last_final) = last_final {
            assert!(last_final, "the last status event is final: {events:?}");
        }
        events
    }

    /// The code this dialect gives an error of `reason`.
    fn code(self, reason: &str) -> i64 {
        let (rpc, http) = match reason {
            "TASK_NOT_FOUND" => (-32001, 404),
            "TASK_NOT_CANCELABLE" => (-32002, 409),
            "UNSUPPORTED_OPERATION" => (-32004, 400),
            "CONTENT_TYPE_NOT_SUPPORTED" => (-32005, 415),
            "INVALID_PARAMS" => (-32602, 400),
            other => panic!("no code for {other}"),
        };
        if self.is_rest() { http } else { rpc }
    }

    fn assert_failure(self, failure: &Failure, reason: &str) {
        assert_eq!(failure.reason, reason, "{self:?}: {failure:?}");
        assert_eq!(failure.code, self.code(reason), "{self:?}: {failure:?}");
    }
}

async fn lab() -> TestServer {
    start(Lab.server().cancel_grace(Duration::from_millis(200))).await
}

fn text(text: &str) -> Value {
    json!({ "text": text })
}

#[tokio::test]
async fn blocking_send_completes_with_the_skill_output_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let task = dialect
            .send(&server, "echo", &[text("hi")], None, true)
            .await
            .unwrap();
        assert_eq!(task.state, "completed", "{dialect:?}: {}", task.raw);
        assert_eq!(task.outputs, vec![json!("hi")], "{dialect:?}");
        let sum = dialect
            .send(
                &server,
                "add",
                &[json!({"data": {"a": 2, "b": 3}})],
                None,
                true,
            )
            .await
            .unwrap();
        assert_eq!(
            sum.outputs,
            vec![json!({"sum": 5})],
            "{dialect:?}: {}",
            sum.raw
        );
    }
}

#[tokio::test]
async fn get_honours_history_length_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let task = dialect
            .send(&server, "echo", &[text("hi")], None, true)
            .await
            .unwrap();
        let none = dialect.get(&server, &task.id, Some(0)).await.unwrap();
        assert_eq!(none.history, 0, "{dialect:?}: {}", none.raw);
        let one = dialect.get(&server, &task.id, Some(1)).await.unwrap();
        assert_eq!(one.history, 1, "{dialect:?}: {}", one.raw);
        assert_eq!(one.outputs, vec![json!("hi")], "{dialect:?}");
    }
}

#[tokio::test]
async fn non_blocking_send_then_cancel_then_cancel_again_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let id = if dialect == Dialect::Draft {
            // The draft always blocks: start the task on a stream and take its client id.
            let (mut stream, id) = dialect
                .stream(
                    &server,
                    "wait",
                    &[json!({"data": {"millis": 60_000}})],
                    None,
                )
                .await;
            let first = stream.next_item().await.unwrap();
            assert!(matches!(first, SseItem::Data(_)), "{first:?}");
            id
        } else {
            let task = dialect
                .send(
                    &server,
                    "wait",
                    &[json!({"data": {"millis": 60_000}})],
                    None,
                    false,
                )
                .await
                .unwrap();
            assert!(
                task.state == "submitted" || task.state == "working",
                "{dialect:?}: {}",
                task.raw
            );
            task.id
        };
        let canceled = dialect.cancel(&server, &id).await.unwrap();
        assert_eq!(canceled.state, "canceled", "{dialect:?}: {}", canceled.raw);
        let again = dialect.cancel(&server, &id).await.unwrap_err();
        dialect.assert_failure(&again, "TASK_NOT_CANCELABLE");
        assert_eq!(
            dialect.get(&server, &id, None).await.unwrap().state,
            "canceled"
        );
    }
}

#[tokio::test]
async fn streams_send_the_task_then_updates_and_end_at_completion_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let (mut stream, _) = dialect.stream(&server, "echo", &[text("hi")], None).await;
        let events = dialect.events(&mut stream).await;
        let first = if dialect == Dialect::Draft {
            "status"
        } else {
            "task"
        };
        let expected: Vec<Event> = vec![
            (first.into(), "submitted".into()),
            ("status".into(), "working".into()),
            ("artifact".into(), String::new()),
            ("status".into(), "completed".into()),
        ];
        assert_eq!(events, expected, "{dialect:?}");
    }
}

#[tokio::test]
async fn resubscribing_to_a_running_task_starts_with_its_state_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let (mut first, client_id) = dialect
            .stream(
                &server,
                "wait",
                &[json!({"data": {"millis": 60_000}})],
                None,
            )
            .await;
        let Some(SseItem::Data(data)) = first.next_item().await else {
            panic!("no first event")
        };
        let id = match dialect {
            Dialect::Draft => client_id,
            Dialect::V1Rest | Dialect::V03Rest => data["task"]["id"].as_str().unwrap().to_owned(),
            Dialect::V1JsonRpc => data["result"]["task"]["id"].as_str().unwrap().to_owned(),
            Dialect::V03JsonRpc => data["result"]["id"].as_str().unwrap().to_owned(),
        };
        dialect.cancel(&server, &id).await.unwrap();
        // A canceled task has ended: nothing to subscribe to.
        let (status, body) = if dialect.is_rest() {
            let prefix = if dialect == Dialect::V03Rest {
                "v1/"
            } else {
                ""
            };
            let response = server
                .http
                .post(format!("{}{prefix}tasks/{id}:subscribe", server.base))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        } else {
            let method = match dialect {
                Dialect::V1JsonRpc => "SubscribeToTask",
                _ => "tasks/resubscribe",
            };
            let result = dialect.rpc(&server, method, json!({ "id": id })).await;
            let failure = result.unwrap_err();
            dialect.assert_failure(&failure, "UNSUPPORTED_OPERATION");
            continue;
        };
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["error"]["details"][0]["reason"],
            "UNSUPPORTED_OPERATION"
        );
    }
    // A running task: the resubscription starts with its current state.
    for dialect in ALL {
        let (mut first, client_id) = dialect
            .stream(&server, "wait", &[json!({"data": {"millis": 200}})], None)
            .await;
        let Some(SseItem::Data(data)) = first.next_item().await else {
            panic!("no first event")
        };
        let id = match dialect {
            Dialect::Draft => client_id,
            Dialect::V1Rest | Dialect::V03Rest => data["task"]["id"].as_str().unwrap().to_owned(),
            Dialect::V1JsonRpc => data["result"]["task"]["id"].as_str().unwrap().to_owned(),
            Dialect::V03JsonRpc => data["result"]["id"].as_str().unwrap().to_owned(),
        };
        let (mut again, _) = dialect.stream(&server, "", &[], Some(&id)).await;
        let events = dialect.events(&mut again).await;
        let first_kind = if dialect == Dialect::Draft {
            "status"
        } else {
            "task"
        };
        assert_eq!(events[0].0, first_kind, "{dialect:?}: {events:?}");
        assert_eq!(
            events.last().unwrap(),
            &("status".to_owned(), "completed".to_owned()),
            "{dialect:?}"
        );
    }
}

#[tokio::test]
async fn a_question_is_answered_on_its_task_in_every_dialect() {
    let server = start(Talker::default().server()).await;
    for dialect in ALL {
        let asked = dialect
            .send(&server, "double", &[text("go")], None, true)
            .await
            .unwrap();
        assert_eq!(asked.state, "input-required", "{dialect:?}: {}", asked.raw);
        let answered = dialect
            .send(&server, "", &[text("21")], Some(&asked.id), true)
            .await
            .unwrap();
        assert_eq!(answered.state, "completed", "{dialect:?}: {}", answered.raw);
        assert_eq!(answered.outputs, vec![json!(42)], "{dialect:?}");
    }
}

#[tokio::test]
async fn unknown_tasks_are_not_found_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let failure = dialect
            .get(&server, "no-such-task", None)
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "TASK_NOT_FOUND");
        let failure = dialect.cancel(&server, "no-such-task").await.unwrap_err();
        dialect.assert_failure(&failure, "TASK_NOT_FOUND");
    }
}

#[tokio::test]
async fn a_part_the_skill_cannot_read_is_content_type_not_supported_in_every_dialect() {
    let server = lab().await;
    let pdf = json!({"raw": "JVBERi0xLjQK", "mediaType": "application/pdf"});
    for dialect in ALL {
        let failure = dialect
            .send(
                &server,
                "echo",
                &[text("read this"), pdf.clone()],
                None,
                true,
            )
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "CONTENT_TYPE_NOT_SUPPORTED");
        assert!(
            failure.message.contains("application/pdf") && failure.message.contains("text/plain"),
            "{dialect:?}: names the media type and the accepted ones: {}",
            failure.message
        );
        // A structured skill sent only a file: the file is what is wrong, not a missing input.
        let failure = dialect
            .send(&server, "add", std::slice::from_ref(&pdf), None, true)
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "CONTENT_TYPE_NOT_SUPPORTED");
    }
}

#[tokio::test]
async fn bad_input_is_invalid_params_naming_the_field_in_every_dialect() {
    let server = lab().await;
    for dialect in ALL {
        let failure = dialect
            .send(
                &server,
                "add",
                &[json!({"data": {"a": "two", "b": 3}})],
                None,
                true,
            )
            .await
            .unwrap_err();
        dialect.assert_failure(&failure, "INVALID_PARAMS");
        assert!(
            failure.message.contains(".a"),
            "{dialect:?}: {}",
            failure.message
        );
    }
}

#[tokio::test]
async fn list_pages_newest_first_in_the_dialects_that_have_it() {
    let server = lab().await;
    let context = next_id("ctx");
    for i in 0..3 {
        let message = json!({"messageId": next_id("m"), "contextId": context, "role": "ROLE_USER",
            "parts": [{"text": format!("n{i}")}], "metadata": {"skill": "echo"}});
        server
            .rpc("SendMessage", json!({ "message": message }))
            .await;
    }
    for dialect in [Dialect::V1JsonRpc, Dialect::V1Rest, Dialect::V03Rest] {
        let mut token = String::new();
        let mut seen = 0;
        loop {
            let page = if dialect == Dialect::V1JsonRpc {
                let params = json!({"contextId": context, "pageSize": 2, "pageToken": token});
                dialect.rpc(&server, "ListTasks", params).await.unwrap()
            } else {
                let path = format!("tasks?contextId={context}&pageSize=2&pageToken={token}");
                dialect
                    .rest(&server, reqwest::Method::GET, &path, None)
                    .await
                    .unwrap()
            };
            assert_eq!(page["totalSize"], 3, "{dialect:?}: {page}");
            seen += page["tasks"].as_array().unwrap().len();
            token = page["nextPageToken"].as_str().unwrap().to_owned();
            if token.is_empty() {
                break;
            }
        }
        assert_eq!(seen, 3, "{dialect:?}");
        let bad = if dialect == Dialect::V1JsonRpc {
            dialect
                .rpc(&server, "ListTasks", json!({"pageSize": 500}))
                .await
        } else {
            dialect
                .rest(&server, reqwest::Method::GET, "tasks?pageSize=500", None)
                .await
        };
        let failure = bad.unwrap_err();
        dialect.assert_failure(&failure, "INVALID_PARAMS");
        assert!(failure.message.contains("pageSize"), "{}", failure.message);
    }
}

#[tokio::test]
async fn the_version_header_selects_the_dialect_and_wrong_ones_are_named() {
    let server = lab().await;
    let slash = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}});
    let (_, response) = server.post_raw(slash.to_string(), Some("1.0")).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("GetTask")
    );
    let v1 = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let (_, response) = server.post_raw(v1.to_string(), Some("0.3")).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    let (_, response) = server.post_raw(v1.to_string(), Some("2.0")).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    assert_eq!(
        response["error"]["data"][0]["metadata"]["requestedVersion"],
        "2.0"
    );
    // Without a header a 1.0 method is served as 1.0 unless the server insists on the header.
    let (_, response) = server.post_raw(v1.to_string(), None).await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
    let strict = start(Lab.server().require_version_header(true)).await;
    let (_, response) = strict.post_raw(v1.to_string(), None).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    assert_eq!(
        response["error"]["data"][0]["metadata"]["requestedVersion"],
        "0.3"
    );
}

#[tokio::test]
async fn rest_refuses_foreign_content_types_with_415_and_accepts_bodyless_posts() {
    let server = lab().await;
    let response = server
        .http
        .post(format!("{}message:send", server.base))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT", "{body}");
    let response = server
        .http
        .post(format!("{}tasks/nope:cancel", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(body["error"]["details"][0]["metadata"]["taskId"], "nope");
    // The same routes answer under a tenant prefix.
    let response = server
        .http
        .get(format!("{}acme/tasks/nope", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

#[tokio::test]
async fn the_card_lists_every_binding_and_carries_the_0_3_fields() {
    let server = lab().await;
    let card = server.card().await;
    let interfaces: Vec<(String, String)> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["protocolBinding"].as_str().unwrap().to_owned(),
                i["protocolVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        interfaces,
        [
            ("JSONRPC", "1.0"),
            ("HTTP+JSON", "1.0"),
            ("JSONRPC", "0.3"),
            ("HTTP+JSON", "0.3")
        ]
        .map(|(b, v)| (b.to_owned(), v.to_owned()))
    );
    assert_eq!(card["url"], server.base);
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    let echo = &card["skills"][2];
    assert_eq!(echo["id"], "echo");
    assert_eq!(
        echo["inputModes"],
        json!(["text/plain", "application/json"])
    );
    assert_eq!(echo["outputModes"], json!(["text/plain"]));
    let add = &card["skills"][0];
    assert_eq!(add["inputModes"], json!(["application/json"]));
    assert_eq!(add["outputModes"], json!(["application/json"]));
}

#[tokio::test]
async fn rest_routes_follow_a_configured_prefix() {
    let server = start(Lab.server().rest_prefix("/rest")).await;
    let card = server.card().await;
    let rest = format!("{}rest", server.base);
    assert_eq!(card["supportedInterfaces"][1]["url"], rest.as_str());
    let body = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}],
        "metadata": {"skill": "echo"}}});
    let response = server
        .http
        .post(format!("{rest}/message:send"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let task: Value = response.json().await.unwrap();
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let err = Lab.server().rest_prefix("rest/").router().unwrap_err();
    assert!(err.to_string().contains("rest_prefix"), "{err}");
}

#[tokio::test]
async fn rest_push_config_and_extended_card_routes_refuse_with_the_right_reason() {
    let mut push = a2a_runtime::server::PushOptions::default();
    push.enabled = false;
    let server = start(Lab.server().push(push)).await;
    for dialect in [Dialect::V1Rest, Dialect::V03Rest] {
        let card = if dialect == Dialect::V1Rest {
            "extendedAgentCard"
        } else {
            "card"
        };
        let cases = [
            (
                reqwest::Method::GET,
                "tasks/t1/pushNotificationConfigs".to_owned(),
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ),
            (
                reqwest::Method::DELETE,
                "tasks/t1/pushNotificationConfigs/c1".to_owned(),
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ),
            (
                reqwest::Method::GET,
                card.to_owned(),
                "UNSUPPORTED_OPERATION",
            ),
        ];
        for (method, path, reason) in cases {
            let failure = dialect
                .rest(&server, method.clone(), &path, None)
                .await
                .expect_err("refused");
            assert_eq!(failure.code, 400, "{dialect:?} {method} {path}");
            assert_eq!(failure.reason, reason, "{dialect:?} {method} {path}");
        }
        // Other methods on those routes are not A2A operations.
        let url = format!(
            "{}{}tasks/t1/pushNotificationConfigs",
            server.base,
            if dialect == Dialect::V03Rest {
                "v1/"
            } else {
                ""
            }
        );
        let response = server.http.put(url).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 405, "{dialect:?} PUT");
    }
}

#[tokio::test]
async fn protojson_readers_take_proto_names_and_quoted_integers_and_ids_are_echoed_as_sent() {
    let server = lab().await;
    // 0.3 HTTP+JSON in the 0.3 proto's field names, with a quoted integer.
    let sent = json!({
        "message": {"message_id": "snake-1", "role": "ROLE_USER",
                    "content": [{"data": {"data": {"text": "snake"}}}],
                    "metadata": {"skill": "echo", "keep_snake": true}},
        "configuration": {"history_length": "1", "blocking": true},
    });
    let task = Dialect::V03Rest
        .rest(&server, reqwest::Method::POST, "message:send", Some(sent))
        .await
        .unwrap();
    assert_eq!(
        normalize_state(task["task"]["status"]["state"].as_str().unwrap()),
        "completed",
        "{task}"
    );
    let id = task["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        task["task"]["history"].as_array().map(Vec::len),
        Some(1),
        "{task}"
    );
    // A push config in proto names is read as one (its loopback URL is then refused by name).
    let config = json!({"push_notification_config": {"url": "http://127.0.0.1:9/", "id": "p1"}});
    let refused = Dialect::V03Rest
        .rest(
            &server,
            reqwest::Method::POST,
            &format!("tasks/{id}/pushNotificationConfigs"),
            Some(config),
        )
        .await
        .unwrap_err();
    assert!(
        refused
            .message
            .starts_with("pushNotificationConfig.url: `http://127.0.0.1:9/`"),
        "{refused:?}"
    );
    // 1.0 JSON-RPC params in proto names too, and a quoted historyLength.
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask",
        "params": {"id": id, "history_length": "0"}});
    let (_, got) = server.post_raw(body.to_string(), Some("1.0")).await;
    assert_eq!(got["result"]["id"], id.as_str(), "{got}");
    assert!(got["result"].get("history").is_none(), "{got}");
    // An integer id beyond 64 bits comes back as it was sent, not as 1e20.
    let huge =
        r#"{"jsonrpc":"2.0","id":100000000000000000000,"method":"GetTask","params":{"id":"nope"}}"#;
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(huge)
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.contains(r#""id":100000000000000000000"#), "{text}");
}
