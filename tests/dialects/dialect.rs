//! Each dialect one server speaks, as a client of it: the scenario's steps in its own wire
//! shapes, its answers read back into one normalized form.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    V1JsonRpc,
    V1Rest,
    V03JsonRpc,
    V03Rest,
    Draft,
}

pub(super) const ALL: [Dialect; 5] = [
    Dialect::V1JsonRpc,
    Dialect::V1Rest,
    Dialect::V03JsonRpc,
    Dialect::V03Rest,
    Dialect::Draft,
];

/// A task as every dialect reports it.
#[derive(Debug, Clone)]
pub(super) struct Task {
    /// The id to use in later calls (the client's own id for the draft).
    pub(super) id: String,
    pub(super) state: String,
    /// The text or JSON of the first part of every artifact.
    pub(super) outputs: Vec<Value>,
    pub(super) history: usize,
    pub(super) raw: Value,
}

/// An error as every dialect reports it: the ErrorInfo reason and the dialect's code.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) reason: String,
    /// The JSON-RPC code, or the HTTP status for HTTP+JSON.
    pub(super) code: i64,
    pub(super) message: String,
}

/// One normalized stream event: `task`/`status` with a state, or `artifact`.
pub(super) type Event = (String, String);

pub(super) static NEXT: AtomicU32 = AtomicU32::new(1);

pub(super) fn next_id(prefix: &str) -> String {
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `TASK_STATE_INPUT_REQUIRED`, `input-required`, `TASK_STATE_CANCELLED` → `input-required`,
/// `canceled`.
pub(super) fn normalize_state(state: &str) -> String {
    let state = state.strip_prefix("TASK_STATE_").unwrap_or(state);
    let state = state.to_ascii_lowercase().replace('_', "-");
    if state == "cancelled" {
        "canceled".into()
    } else {
        state
    }
}

pub(super) fn part_value(part: &Value) -> Value {
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
    pub(super) fn is_rest(self) -> bool {
        matches!(self, Self::V1Rest | Self::V03Rest)
    }

    pub(super) fn part(self, part: &Value) -> Value {
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
    pub(super) fn message(self, skill: &str, parts: &[Value], task: Option<&str>) -> Value {
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

    pub(super) async fn rpc(
        self,
        server: &TestServer,
        method: &str,
        params: Value,
    ) -> Result<Value, Failure> {
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

    pub(super) async fn rest(
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

    pub(super) fn task(self, raw: &Value, id: Option<&str>) -> Task {
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
    pub(super) async fn send(
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

    pub(super) async fn get(
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

    pub(super) async fn cancel(self, server: &TestServer, id: &str) -> Result<Task, Failure> {
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
    pub(super) async fn stream(
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
    pub(super) async fn events(self, stream: &mut SseStream) -> Vec<Event> {
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
    pub(super) fn code(self, reason: &str) -> i64 {
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

    pub(super) fn assert_failure(self, failure: &Failure, reason: &str) {
        assert_eq!(failure.reason, reason, "{self:?}: {failure:?}");
        assert_eq!(failure.code, self.code(reason), "{self:?}: {failure:?}");
    }
}
