//! Interop with the official Python clients users have: `a2a-sdk` 1.x and 0.3.x, and `mcp` (2.x),
//! which also drives the A2A bridge over stdio; and the other way round, this crate's client
//! against agents the official `a2a-sdk` 1.x and 0.3.x serve, over each of their bindings.
//!
//! The servers are the example binaries (currency, booking) started through `serve()` with
//! `--bind 127.0.0.1:0`, exactly as a user runs them. Python comes from `A2A_TEST_PYTHON` (1.x and
//! `mcp`) and `A2A_TEST_PYTHON03` (the pinned 0.3 SDK, in a virtualenv of its own), both set by
//! `scripts/test`, which installs the packages; if they are missing the tests fail and say how to
//! install them.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::process::Stdio;
use std::time::Duration;

use a2a_runtime::client::{
    A2aClient, Binding, ClientError, ListTasks, PushNotificationConfig, Severity, StreamEvent,
};
use a2a_runtime::{Message, TaskState, model::PartContent};
use a2a_tests::client_kit::{
    all_events, artifacts_of, assert_completed, client_over, list_each_once, no_wait,
    push_round_trip, read_through_a_cut, task_of, texts,
};
use a2a_tests::receiver::Receiver;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

#[path = "interop_oauth.rs"]
mod oauth;

#[path = "interop/mcp_clients.rs"]
mod mcp_clients;

#[path = "interop/hub_install.rs"]
mod hub_install;

#[path = "interop/hub_worktrees.rs"]
mod hub_worktrees;

#[path = "interop/install_docs.rs"]
mod install_docs;

#[path = "interop/remote_host.rs"]
mod remote_host;
#[path = "interop/remote_mcp.rs"]
mod remote_mcp;

/// gRPC's refusals as the official gRPC library sees them.
#[path = "interop/grpc.rs"]
mod grpc;

/// The official Python clients' interpreters, and running scripts with them.
#[path = "interop/interpreters.rs"]
mod interpreters;
use interpreters::*;

const SERVER: &str = env!("CARGO_BIN_EXE_interop-currency");

/// Starts the example with `serve()` on an ephemeral port; returns the child and its base URL.
async fn start_server() -> (Child, String) {
    a2a_tests::spawn_served(SERVER).await
}

#[tokio::test]
async fn official_clients_of_both_generations_share_one_server_over_every_binding() {
    require_packages().await;
    require_v03_client().await;
    let (_server, base) = start_server().await;
    let v1 = script("a2a_client.py");
    let v03 = script("a2a_v03_client.py");
    run_python(&[v1.to_str().unwrap(), &base, "HTTP+JSON"]).await;
    // gRPC on the same port (HTTP/2 in clear text), from the card's GRPC interface.
    run_python(&[v1.to_str().unwrap(), &base, "GRPC"]).await;
    run_interpreter(&python03(), &[v03.to_str().unwrap(), &base, "JSONRPC"]).await;
    run_interpreter(&python03(), &[v03.to_str().unwrap(), &base, "HTTP+JSON"]).await;
    // And the 1.x JSON-RPC client after them: the dialects share one task store.
    run_python(&[v1.to_str().unwrap(), &base, "JSONRPC"]).await;
}

const HOST: &str = env!("CARGO_BIN_EXE_interop-host");

/// A client with no configuration but a server's address finds its MCP endpoints as the
/// discovery documents say (AI Catalog, MCP catalog, server cards) and the official MCP client
/// connects to each: one agent's, and a host's agents' and shared endpoint.
#[tokio::test]
async fn the_official_mcp_client_finds_every_endpoint_through_the_catalog() {
    require_packages().await;
    let discover = script("discovery_client.py");
    let discover = discover.to_str().unwrap();
    let (_agent, base) = a2a_tests::spawn_served(SERVER).await;
    run_python(&[discover, &base, "convert"]).await;
    let (_host, base) = a2a_tests::spawn_served(HOST).await;
    let found = run_python(&[discover, &base, "greet", "book_table", "currency_convert"]).await;
    assert!(found.contains("found 4 endpoints"), "{found}");
}

/// Several agents on one server (examples/agent-host): the 1.x client reaches each by path and
/// by tenant over both HTTP bindings and by tenant over gRPC, the 0.3 client by path, and the MCP client the shared endpoint
/// and one agent's own; all against one server, whose tasks never cross agents. The same host
/// started with `--stdio` serves the shared endpoint's tools to the MCP client over stdio.
#[tokio::test]
async fn official_clients_reach_each_hosted_agent_by_path_and_by_tenant() {
    require_packages().await;
    require_v03_client().await;
    let (_server, base) = a2a_tests::spawn_served(HOST).await;
    let host = script("host_client.py");
    for addressing in ["path", "tenant"] {
        for binding in ["JSONRPC", "HTTP+JSON"] {
            run_python(&[host.to_str().unwrap(), &base, addressing, binding]).await;
        }
    }
    // gRPC reaches a hosted agent by its tenant only: its paths name the service.
    run_python(&[host.to_str().unwrap(), &base, "tenant", "GRPC"]).await;
    let v03 = script("a2a_v03_client.py");
    let currency = format!("{base}currency/");
    for binding in ["JSONRPC", "HTTP+JSON"] {
        run_interpreter(&python03(), &[v03.to_str().unwrap(), &currency, binding]).await;
    }
    run_python(&[script("host_mcp.py").to_str().unwrap(), &base, HOST]).await;
}

const SCENARIOS: &str = env!("CARGO_BIN_EXE_scenarios-server");

/// The scenario agent (examples/a2a-scenarios), played through every messageId prefix of the A2A
/// test kits by both client generations on both HTTP bindings and by the 1.x client over gRPC,
/// all five at once on one server.
#[tokio::test]
async fn official_clients_play_every_tck_scenario_on_every_binding() {
    require_packages().await;
    require_v03_client().await;
    let (_server, base) = a2a_tests::spawn_served(SCENARIOS).await;
    let v1 = script("a2a_scenarios.py");
    let v03 = script("a2a_v03_scenarios.py");
    let (v1, v03) = (v1.to_str().unwrap(), v03.to_str().unwrap());
    let python = python();
    let python03 = python03();
    let (v1_jsonrpc, v1_rest) = ([v1, &base, "JSONRPC"], [v1, &base, "HTTP+JSON"]);
    let v1_grpc = [v1, &base, "GRPC"];
    let (v03_jsonrpc, v03_rest) = ([v03, &base, "JSONRPC"], [v03, &base, "HTTP+JSON"]);
    tokio::join!(
        run_interpreter(&python, &v1_jsonrpc),
        run_interpreter(&python, &v1_rest),
        run_interpreter(&python, &v1_grpc),
        run_interpreter(&python03, &v03_jsonrpc),
        run_interpreter(&python03, &v03_rest),
    );
}

/// The conformance corpus's way (ACTS): behaviours named by a message's first text part, an
/// opaque bearer token on every request (accepted through the SDK's own `Authenticator`), and
/// a second, reduced card without streaming; the official client on every binding (gRPC with the
/// token as call metadata).
#[tokio::test]
async fn official_client_plays_the_behaviours_the_conformance_corpus_names_in_text() {
    require_packages().await;
    let token = "tck-token-0123456789";
    let (_server, base) = a2a_tests::spawn_served_with(
        SCENARIOS,
        &[
            "--test-bearer",
            token,
            "--test-bearer-scopes",
            "tck:read tck:write",
        ],
    )
    .await;
    let (_reduced, reduced) =
        a2a_tests::spawn_served_with(SCENARIOS, &["--test-bearer", token, "--no-streaming"]).await;
    let acts = script("a2a_acts.py");
    let acts = acts.to_str().unwrap();
    let python = python();
    let jsonrpc = [acts, &base, "JSONRPC", token, &reduced];
    let rest = [acts, &base, "HTTP+JSON", token, &reduced];
    let grpc = [acts, &base, "GRPC", token, &reduced];
    tokio::join!(
        run_interpreter(&python, &jsonrpc),
        run_interpreter(&python, &rest),
        run_interpreter(&python, &grpc),
    );
}

const RECEIVER: &str = env!("CARGO_BIN_EXE_receiver-under-test");

#[tokio::test]
async fn official_clients_register_push_configs_and_the_receiver_gets_every_event() {
    require_packages().await;
    require_v03_client().await;
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &["--push-allow-private"]).await;
    let runs = [
        (python(), "a2a_push.py", "JSONRPC", "application/a2a+json"),
        (python(), "a2a_push.py", "HTTP+JSON", "application/a2a+json"),
        (python03(), "a2a_v03_push.py", "JSONRPC", "application/json"),
        (
            python03(),
            "a2a_v03_push.py",
            "HTTP+JSON",
            "application/json",
        ),
    ];
    for (interpreter, name, binding, media_type) in runs {
        let token = format!("token-{name}-{binding}");
        let mut receiver = Receiver::start(
            RECEIVER,
            &["--token", &token, "--authorization", "Bearer py-secret"],
        )
        .await;
        let script = script(name);
        let mut args = vec![script.to_str().unwrap(), &base, binding, &receiver.url];
        args.push(&token);
        let out = run_interpreter(&interpreter, &args).await;
        let task = out.trim().lines().last().unwrap().trim().to_owned();
        let delivered = receiver.accepted_until_terminal().await;
        assert!(!delivered.is_empty(), "{name} {binding}");
        for delivery in &delivered {
            assert_eq!(
                delivery["taskId"],
                json!(task),
                "{name} {binding}: {delivery}"
            );
            assert_eq!(delivery["contentType"], media_type, "{name} {binding}");
        }
        let last = delivered.last().unwrap();
        assert!(
            last["state"] == "TASK_STATE_COMPLETED" || last["state"] == "completed",
            "{name} {binding}: {last}"
        );
        // 1.0 pushes each event; 0.3 the task as each event left it, artifacts and all.
        let artifacts_pushed = delivered.iter().any(|d| d["kind"] == "artifactUpdate")
            || last["body"]["artifacts"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
        assert!(
            artifacts_pushed,
            "{name} {binding}: the report's artifacts are pushed too: {last}"
        );
    }
}

const BRIDGE: &str = env!("CARGO_BIN_EXE_interop-bridge");

const HUB: &str = env!("CARGO_BIN_EXE_hub-under-test");

#[tokio::test]
async fn official_clients_coordinate_through_the_hub_over_stdio_http_and_a2a() {
    require_packages().await;
    // The HTTP hub and the stdio hub the script starts share one data directory.
    let data = a2a_tests::scratch_dir();
    let data = data.to_str().unwrap();
    let (_hub, base) = a2a_tests::spawn_served_with(HUB, &["--data-dir", data]).await;
    run_python(&[script("hub_clients.py").to_str().unwrap(), HUB, &base, data]).await;
}

const BOOKING: &str = env!("CARGO_BIN_EXE_interop-booking");

#[tokio::test]
async fn official_a2a_client_completes_questions_and_sign_in() {
    require_packages().await;
    let (_server, base) = a2a_tests::spawn_served(BOOKING).await;
    run_python(&[script("a2a_ask.py").to_str().unwrap(), &base]).await;
}

const VAULT: &str = env!("CARGO_BIN_EXE_interop-vault");

#[tokio::test]
async fn official_clients_authenticate_with_bearer_tokens_and_discover_the_metadata() {
    use a2a_tests::tokens;
    require_packages().await;
    let issuer = "https://issuer.test";
    let (_server, base) = a2a_tests::spawn_served_with(
        VAULT,
        &[
            "--api-keys",
            "ops=ops-key-0123456789abcdef",
            "--jwt-secret",
            tokens::SECRET,
            "--jwt-issuer",
            issuer,
        ],
    )
    .await;
    let token = |scope: &str| {
        let mut claims = tokens::claims("ivy", scope);
        claims["iss"] = serde_json::json!(issuer);
        tokens::hs256(&claims)
    };
    run_python(&[
        script("auth_client.py").to_str().unwrap(),
        &base,
        &token("vault:open"),
        &token("vault:read"),
        issuer,
    ])
    .await;
}

/// A generation of the official Python a2a-sdk serving an agent, and the interfaces it offers.
#[derive(Clone, Copy)]
enum Sdk {
    /// 1.x (`a2a_server.py`): JSON-RPC and HTTP+JSON, 1.0.
    V1,
    /// 0.3.x (`a2a_server_v03.py`): JSON-RPC and HTTP+JSON, 0.3.
    V0_3,
}

impl Sdk {
    /// Each interface its agent offers, as `(binding, version)`.
    fn interfaces(self) -> [(Binding, &'static str); 2] {
        let version = match self {
            Self::V1 => "1.0",
            Self::V0_3 => "0.3",
        };
        [(Binding::JsonRpc, version), (Binding::HttpJson, version)]
    }

    async fn require(self) {
        match self {
            Self::V1 => require_packages().await,
            Self::V0_3 => require_v03_client().await,
        }
    }
}

/// An agent served by the official a2a-sdk.
struct PythonAgent {
    child: Child,
    /// The port it bound on 127.0.0.1.
    port: u16,
}

impl PythonAgent {
    /// Starts it: it binds a port, then waits for [`serve`](Self::serve).
    async fn bind(sdk: Sdk) -> Self {
        sdk.require().await;
        let (python, name) = match sdk {
            Sdk::V1 => (python(), "a2a_server.py"),
            Sdk::V0_3 => (python03(), "a2a_server_v03.py"),
        };
        let mut child = Command::new(python)
            .arg(script(name))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python runs");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let port = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the Python agent printed its port in time")
            .expect("its output is readable")
            .expect("it printed its port")
            .trim()
            .parse()
            .expect("a port number");
        Self { child, port }
    }

    /// Serves with a card advertising `base` (its own address when `None`); the base URL.
    async fn serve(&mut self, base: Option<String>) -> String {
        let base = base.unwrap_or_else(|| format!("http://127.0.0.1:{}/", self.port));
        let mut stdin = self.child.stdin.take().expect("piped stdin");
        stdin
            .write_all(format!("{base}\n").as_bytes())
            .await
            .expect("the Python agent reads its public URL");
        base
    }
}

#[tokio::test]
async fn our_client_drives_agents_served_by_both_official_python_sdks_over_every_binding() {
    for sdk in [Sdk::V1, Sdk::V0_3] {
        for (binding, version) in &sdk.interfaces() {
            // An agent per interface, so that listing finds this interface's tasks only.
            let mut agent = PythonAgent::bind(sdk).await;
            let base = agent.serve(None).await;
            drive_python_agent(&base, binding, version).await;
        }
    }
}

/// Gives the Python agent's task `id` a webhook over `binding` in `version`, and reads it back.
async fn configures_push(client: &A2aClient, id: &str, binding: &Binding, version: &str) {
    let over = format!("{binding} {version}");
    let mut hook = PushNotificationConfig::new(id, "https://receiver.example/hook");
    hook.token = Some("t0k3n".into());
    if version.starts_with('1') || *binding == Binding::JsonRpc {
        push_round_trip(client, &hook).await;
    } else {
        // The 0.3 SDK's HTTP+JSON routes create and read configs (naming none unless asked),
        // and have no listing (500) and no DELETE.
        hook.id = Some("hook-1".into());
        let stored = client.set_push_config(&hook).await.unwrap();
        assert_eq!(stored.id.as_deref(), Some("hook-1"), "{over}");
        let read = client.get_push_config(id, "hook-1").await.unwrap();
        assert_eq!(
            (read.url, read.token),
            (hook.url.clone(), hook.token.clone())
        );
        let unlisted = client.list_push_configs(id).await.unwrap_err();
        assert!(
            matches!(&unlisted, ClientError::Remote(r) if r.http_status == Some(500)),
            "{over}: {unlisted}"
        );
    }
}

/// Lists the Python agent's tasks one page at a time (1.0); 0.3 has no listing method over
/// JSON-RPC, and its SDK does not implement its HTTP+JSON route.
async fn lists_tasks(client: &A2aClient, binding: &Binding, version: &str) {
    let over = format!("{binding} {version}");
    let query = ListTasks {
        page_size: Some(1),
        ..ListTasks::default()
    };
    if version.starts_with('1') {
        list_each_once(client, &query, 3).await;
    } else {
        let refused = client.list_tasks_page(&query, None).await.unwrap_err();
        let expected = match binding {
            Binding::JsonRpc => matches!(refused, ClientError::Unsupported { .. }),
            _ => matches!(&refused, ClientError::Remote(r) if r.http_status == Some(500)),
        };
        assert!(expected, "{over}: {refused}");
    }
}

/// Sends, streams, reads, configures push on, cancels and lists tasks of the Python agent at
/// `base` through its interface of `binding` in `version`.
async fn drive_python_agent(base: &str, binding: &Binding, version: &str) {
    let over = format!("{binding} {version}");
    let client = client_over(base, binding, version).await;
    assert!(client.card().name.starts_with("Python Echo"), "{over}");
    let errors: Vec<_> = client
        .card()
        .validate()
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{over}: {errors:#?}");

    // A blocking send.
    let done = task_of(client.send(Message::user_text("hi")).await.unwrap());
    assert_eq!(done.status.state, TaskState::Completed, "{over}: {done:?}");
    let text = &done.artifacts[0].parts[0].content;
    assert_eq!(
        *text,
        PartContent::Text("echo: hi".into()),
        "{over}: {done:?}"
    );

    // A stream, to the end.
    let events = all_events(
        client
            .send_streaming(Message::user_text("streamed"))
            .await
            .unwrap(),
    )
    .await;
    assert!(
        events.iter().any(|e| matches!(e, StreamEvent::Artifact(_))),
        "{over}: {events:?}"
    );
    assert_completed(&events);

    // A task left working: read, given a webhook, and canceled.
    let working = task_of(
        client
            .send_with(Message::user_text("wait"), no_wait())
            .await
            .unwrap(),
    );
    let read = client.get_task(&working.id, None).await.unwrap();
    assert_eq!(read.id, working.id, "{over}");
    configures_push(&client, &working.id, binding, version).await;
    let canceled = client.cancel_task(&working.id).await.unwrap();
    assert_eq!(
        canceled.status.state,
        TaskState::Canceled,
        "{over}: {canceled:?}"
    );

    lists_tasks(&client, binding, version).await;

    // The agent's own error: the code of TASK_NOT_FOUND, or over 0.3 HTTP+JSON (whose errors
    // carry no reason) the HTTP status.
    let missing = client.get_task("no-such-task", None).await.unwrap_err();
    let ClientError::Remote(remote) = &missing else {
        panic!("{over}: expected the agent's error, got {missing}");
    };
    if version.starts_with('1') || *binding == Binding::JsonRpc {
        assert_eq!(remote.code, -32001, "{over}: {remote}");
    } else {
        assert_eq!(remote.http_status, Some(404), "{over}: {remote}");
    }
}

#[tokio::test]
async fn our_client_renews_cut_streams_from_both_official_python_sdks_with_no_gap_and_no_duplicate()
{
    for sdk in [Sdk::V1, Sdk::V0_3] {
        for (binding, version) in &sdk.interfaces() {
            let mut agent = PythonAgent::bind(sdk).await;
            let target = std::net::SocketAddr::from(([127, 0, 0, 1], agent.port));
            let proxy = a2a_tests::proxy::CuttableProxy::start(target).await;
            let base = agent.serve(Some(format!("http://{}/", proxy.addr))).await;
            let client = client_over(&base, binding, version).await;
            let stream = client
                .send_streaming(Message::user_text("drip"))
                .await
                .unwrap();
            let events = read_through_a_cut(stream, &proxy, 3).await;
            assert_completed(&events);
            let task_id = match &events[0] {
                StreamEvent::Task(task) => task.id.clone(),
                StreamEvent::Status(update) => update.task_id.clone(),
                other => panic!("unexpected first event {other:?}"),
            };
            // What the caller was shown is what the agent holds: no gap, no duplicate.
            let settled = client.get_task(&task_id, None).await.unwrap();
            let rebuilt: Vec<String> = artifacts_of(&events).into_values().flatten().collect();
            let held = texts(&settled.artifacts[0].parts);
            assert_eq!(rebuilt, held, "{binding} {version}: {events:#?}");
            // The 1.x SDK holds the chunks its executor appended. The 0.3 SDK applies each append
            // twice to its own record once a second stream follows the task (both streams'
            // aggregators save it), so its record, which the client matches, has repeats.
            if let Sdk::V1 = sdk {
                let expected: Vec<String> = (0..12).map(|i| format!("c{i}")).collect();
                assert_eq!(held, expected);
            }
        }
    }
}
