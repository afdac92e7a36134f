//! Test harness: serves an agent on an ephemeral loopback port and talks to it over HTTP, plus a
//! "lab" agent whose skills exercise failure modes.

mod browser;
pub mod client_kit;
pub mod cluster;
pub mod grpc_only;
pub mod h2_raw;
pub mod hostile;
pub mod lab;
pub mod library;
pub mod oauth_flow;
pub mod otlp;
pub mod pki;
pub mod postgres;
mod processes;
pub mod proxy;
pub mod receiver;
pub mod registry_agents;
pub mod reverse_proxy;
mod scratch;
pub mod sse;
pub mod stepper;
pub mod talker;
pub mod tokens;
pub mod upstream;
pub mod vault;

pub use browser::{Browser, browser};
pub use processes::{
    StdioServer, path_with, rss_kb, run_to_success, run_to_success_with, run_with_input,
    spawn_served, spawn_served_with, spawn_served_with_env, spawn_stdio, spawn_stdio_command,
};
pub use scratch::{scratch_dir, scratch_named};

use std::net::SocketAddr;

use a2a_runtime::AgentServer;
use serde_json::{Value, json};

/// An HTTP client for the tests' own requests, with the TLS the runtime's clients use (rustls
/// and *ring*, the platform's roots): reqwest is built without a provider of its own.
pub fn http() -> reqwest::Client {
    http_builder().build().expect("an HTTP client")
}

/// [`http`]'s builder, for a test that sets timeouts, headers or redirects.
pub fn http_builder() -> reqwest::ClientBuilder {
    a2a_runtime_types::https::client_builder().expect("HTTPS set up")
}

/// `GET url` with [`http`]'s client, as `reqwest::get` does with a default one.
pub async fn get(url: impl reqwest::IntoUrl) -> reqwest::Result<reqwest::Response> {
    http().get(url).send().await
}

/// A server running on 127.0.0.1 for the duration of one test (it stops with the test's runtime).
#[derive(Debug)]
pub struct TestServer {
    /// `http://127.0.0.1:PORT/`.
    pub base: String,
    /// The address.
    pub addr: SocketAddr,
    /// An HTTP client.
    pub http: reqwest::Client,
}

impl TestServer {
    /// A client of the server at `base` (`http://127.0.0.1:PORT/`), started elsewhere (for
    /// example by [`spawn_served_with`]).
    pub fn at(base: String) -> Self {
        Self {
            addr: base
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .parse()
                .expect("a base URL on a socket address"),
            base,
            http: crate::http(),
        }
    }

    /// A client of the agent this server mounts at `/{id}/` (a host's), for requests relative
    /// to it (its card, `mcp`…).
    pub fn mounted(&self, id: &str) -> Self {
        Self {
            base: format!("{}{id}/", self.base),
            addr: self.addr,
            http: self.http.clone(),
        }
    }
}

/// Serves `server` on an ephemeral port, as `serve()` would (without reading flags).
pub async fn start(server: AgentServer) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let addr = listener.local_addr().expect("local address");
    let base = format!("http://{addr}/");
    // Served through the runtime's own connection loop (limits, timeouts, peer addresses).
    let server = server.public_url(base.clone());
    tokio::spawn(async move { server.serve_on(listener).await.expect("valid agent") });
    TestServer {
        base,
        addr,
        http: crate::http(),
    }
}

/// Serves `host` (several agents) on an ephemeral port, as `serve()` would (without reading
/// flags).
pub async fn start_host(host: a2a_runtime::server::Host) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let addr = listener.local_addr().expect("local address");
    let base = format!("http://{addr}/");
    let host = host.public_url(base.clone());
    tokio::spawn(async move { host.serve_on(listener).await.expect("a valid host") });
    TestServer {
        base,
        addr,
        http: crate::http(),
    }
}

impl TestServer {
    /// GETs `path` (relative to the server) and reads its JSON body.
    pub async fn get_json(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET sent")
            .json()
            .await
            .expect("a JSON body")
    }

    /// POSTs a raw body to the JSON-RPC endpoint with `A2A-Version: 1.0`; returns status and JSON.
    pub async fn post_raw(
        &self,
        body: impl Into<reqwest::Body>,
        version: Option<&str>,
    ) -> (u16, Value) {
        let mut request = self
            .http
            .post(&self.base)
            .header("content-type", "application/json")
            .body(body);
        if let Some(version) = version {
            request = request.header("A2A-Version", version);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        let text = response.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or_else(|_| json!({ "raw": text })),
        )
    }

    /// Calls a JSON-RPC method and returns the whole response object.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.post_raw(body.to_string(), Some("1.0")).await.1
    }

    /// POSTs JSON-RPC `body` (A2A 1.0) to the agent with more `headers` (credentials, a
    /// `traceparent`…); returns the JSON response.
    pub async fn rpc_with(&self, body: &Value, headers: &[(&str, &str)]) -> Value {
        let mut request = self
            .http
            .post(&self.base)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .body(body.to_string())
            .send()
            .await
            .expect("request sent");
        response.json().await.expect("a JSON response")
    }

    /// `SendMessage` with one message built from `parts` and message `metadata`.
    pub async fn send(&self, parts: Value, metadata: Value, configuration: Value) -> Value {
        let mut message = json!({"messageId": "m-1", "role": "ROLE_USER", "parts": parts});
        if !metadata.is_null() {
            message["metadata"] = metadata;
        }
        self.rpc(
            "SendMessage",
            json!({"message": message, "configuration": configuration}),
        )
        .await
    }

    /// Calls a streaming JSON-RPC method. `Ok` with the event stream when the server answered
    /// `text/event-stream`; `Err` with the JSON-RPC response when it answered `application/json`.
    pub async fn stream(&self, method: &str, params: Value) -> Result<sse::SseStream, Value> {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        let response = self
            .http
            .post(&self.base)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .header("A2A-Version", "1.0")
            .body(body.to_string())
            .send()
            .await
            .expect("request sent");
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        if content_type.starts_with("text/event-stream") {
            Ok(sse::SseStream::new(response))
        } else {
            Err(response.json().await.expect("JSON error response"))
        }
    }

    /// `SendStreamingMessage` to `skill` with `input` as the data part.
    pub async fn send_streaming(&self, skill: &str, input: Value) -> sse::SseStream {
        let message = json!({
            "messageId": "m-stream",
            "role": "ROLE_USER",
            "parts": [{"data": input}],
            "metadata": {"skill": skill},
        });
        self.stream("SendStreamingMessage", json!({"message": message}))
            .await
            .unwrap_or_else(|error| panic!("SendStreamingMessage failed: {error}"))
    }

    /// `SubscribeToTask`.
    pub async fn subscribe(&self, task_id: &str) -> Result<sse::SseStream, Value> {
        self.stream("SubscribeToTask", json!({"id": task_id})).await
    }

    /// Polls `GetTask` until the task reaches `state` (a hang guard of 10 s, not a timing
    /// assertion); returns the task.
    pub async fn wait_for_state(&self, task_id: &str, state: &str) -> Value {
        for _ in 0..1000 {
            let task = self.rpc("GetTask", json!({ "id": task_id })).await["result"].clone();
            if task["status"]["state"] == state {
                return task;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("task {task_id} never reached {state}");
    }

    /// Polls MCP `tasks/get` (stateless, declaring the tasks extension) until `done` holds for
    /// the result (a hang guard of 10 s); returns the result.
    pub async fn poll_mcp_task(&self, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let capabilities = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
        let mut polled = Value::Null;
        for _ in 0..1000 {
            let (_, body) = self
                .mcp_modern(
                    "tasks/get",
                    json!({ "taskId": task_id }),
                    capabilities.clone(),
                )
                .await;
            polled = response_from(&body);
            if done(&polled["result"]) {
                return polled["result"].clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("task {task_id} never reached the expected state; last polled: {polled}");
    }

    /// Answers input request `key` of MCP task `task` with `answer` (`tasks/update`, declaring
    /// `capabilities`), and checks that the server took it.
    pub async fn answer_mcp_input(
        &self,
        task: &str,
        key: &str,
        answer: &str,
        capabilities: &Value,
    ) {
        let (_, updated) = self
            .mcp_modern(
                "tasks/update",
                json!({"taskId": task,
                       "inputResponses": { key: {"action": "accept", "content": {"answer": answer}}}}),
                capabilities.clone(),
            )
            .await;
        assert!(response_from(&updated)["error"].is_null(), "{updated}");
    }

    /// The agent card.
    pub async fn card(&self) -> Value {
        self.http
            .get(format!("{}.well-known/agent-card.json", self.base))
            .send()
            .await
            .expect("card")
            .json()
            .await
            .expect("card JSON")
    }

    /// One stateless (2026-07-28) MCP request on `/mcp` declaring `capabilities` as the client's;
    /// returns the HTTP status and the raw body (JSON, or SSE with any notifications).
    pub async fn mcp_modern(
        &self,
        method: &str,
        params: Value,
        capabilities: Value,
    ) -> (u16, String) {
        self.mcp_modern_with(method, params, capabilities, &[])
            .await
    }

    /// [`mcp_modern`](Self::mcp_modern) with more request headers (`Host`, `Origin`…).
    pub async fn mcp_modern_with(
        &self,
        method: &str,
        mut params: Value,
        capabilities: Value,
        headers: &[(&str, &str)],
    ) -> (u16, String) {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        match params.get_mut("_meta").and_then(Value::as_object_mut) {
            Some(existing) => existing.extend(meta.as_object().cloned().unwrap_or_default()),
            None => params["_meta"] = meta,
        }
        // SEP-2243: the header mirrors the tool name, or the task id for tasks/*.
        let name = params
            .get("name")
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str);
        let mut headers = headers.to_vec();
        headers.extend(name.map(|name| ("mcp-name", name)));
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
        self.mcp_modern_raw(method, body.to_string(), &headers)
            .await
    }

    /// A 2026-07-28 request of `method` on `/mcp` with this body as sent (its `_meta` is the
    /// caller's to write) and more headers (`Mcp-Name`, credentials…).
    pub async fn mcp_modern_raw(
        &self,
        method: &str,
        body: String,
        headers: &[(&str, &str)],
    ) -> (u16, String) {
        let mut request = self
            .http
            .post(format!("{}mcp", self.base))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.body(body).send().await.expect("MCP request sent");
        let status = response.status().as_u16();
        (status, response.text().await.expect("body"))
    }

    /// Opens a legacy-era MCP session on `/mcp` with `initialize`; returns it and the response.
    async fn mcp_initialize(&self) -> (McpSession, Value) {
        self.mcp_initialize_with(json!({})).await
    }

    /// Opens a legacy-era MCP session on `/mcp` declaring client `capabilities`.
    async fn mcp_initialize_with(&self, capabilities: Value) -> (McpSession, Value) {
        let mut session = McpSession {
            url: format!("{}mcp", self.base),
            http: self.http.clone(),
            session_id: None,
            next_id: 1,
        };
        let init = session
            .request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "tests", "version": "1"}}))
            .await;
        (session, init)
    }

    /// The `initialize` response of a new legacy-era MCP session (not continued).
    pub async fn mcp_session_init(&self) -> Value {
        self.mcp_initialize().await.1
    }

    /// A legacy-era MCP session (initialize + initialized) on `/mcp`.
    pub async fn mcp_session(&self) -> McpSession {
        self.mcp_session_with(json!({})).await
    }

    /// A legacy-era MCP session on `/mcp` whose client declared `capabilities`.
    pub async fn mcp_session_with(&self, capabilities: Value) -> McpSession {
        let (mut session, init) = self.mcp_initialize_with(capabilities).await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        session.notify("notifications/initialized").await;
        session
    }
}

/// A minimal MCP streamable-HTTP client (legacy era, with a session).
#[derive(Debug, Clone)]
pub struct McpSession {
    url: String,
    http: reqwest::Client,
    session_id: Option<String>,
    next_id: u64,
}

impl McpSession {
    /// The same session, its requests sent to `url` (another replica's endpoint).
    pub fn elsewhere(&self, url: &str) -> Self {
        Self {
            url: url.to_owned(),
            ..self.clone()
        }
    }

    /// The session's id, once the server gave one.
    pub fn id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Sends a request and returns its JSON-RPC response (from JSON or SSE).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        response_from(&self.request_raw(method, params).await)
    }

    /// Sends a request and returns the whole response body (JSON, or SSE with any notifications
    /// that preceded the response).
    pub async fn request_raw(&mut self, method: &str, params: Value) -> String {
        let body = self.next_request(method, params);
        let response = self.post(body).await;
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.session_id = Some(id.to_str().expect("ascii session id").to_owned());
        }
        response.text().await.expect("body")
    }

    /// A request envelope with the next id; the id is `self.last_id()` afterwards.
    pub fn next_request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
    }

    /// The id of the last request built.
    pub fn last_id(&self) -> u64 {
        self.next_id
    }

    /// Sends a notification.
    pub async fn notify_with(&self, method: &str, params: Value) {
        let status = self
            .post(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
            .status();
        assert_eq!(status.as_u16(), 202);
    }

    async fn notify(&mut self, method: &str) {
        let status = self
            .post(json!({"jsonrpc": "2.0", "method": method}))
            .await
            .status();
        assert_eq!(status.as_u16(), 202);
    }

    /// Sends a prepared envelope (from [`next_request`](Self::next_request)).
    pub async fn send_envelope(&self, body: Value) -> reqwest::Response {
        self.post(body).await
    }

    async fn post(&self, body: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(id) = &self.session_id {
            request = request
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send().await.expect("MCP request sent")
    }
}

/// The JSON-RPC response in a JSON or SSE body (the last `data:` line carrying an `id`).
pub fn response_from(text: &str) -> Value {
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return value;
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .rfind(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in {text:?}"))
}

/// The `id` of every skill in an agent card, in card order.
pub fn skill_ids(card: &Value) -> Vec<String> {
    card["skills"]
        .as_array()
        .map(|skills| {
            skills
                .iter()
                .filter_map(|s| s["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
