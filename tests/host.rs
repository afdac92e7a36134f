//! Several agents behind one server (`Host`): each reached by path and by tenant, with its own
//! card and MCP endpoint, a catalog of all, and tasks that never cross agents; and the discovery
//! documents every server, of one agent or several, publishes (`discovery`, `manifests`).

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::server::Host;
use a2a_tests::{TestServer, response_from};
use serde_json::{Value, json};

#[path = "host/discovery.rs"]
mod discovery;
#[path = "host/lifecycle.rs"]
mod lifecycle;
#[path = "host/manifests.rs"]
mod manifests;
#[path = "host/remote_agents.rs"]
mod remote_agents;
#[path = "host/remotes_file.rs"]
mod remotes_file;
#[path = "host/server_wide.rs"]
mod server_wide;

/// The currency and booking examples on one host, currency primary.
fn two_agents() -> Host {
    Host::new()
        .agent("currency", currency::Currency::with_reference_rates())
        .agent("booking", booking::Booking::default())
        .primary("currency")
}

/// A JSON-RPC request to `path` (relative to the server) with A2A 1.0.
async fn rpc_at(server: &TestServer, path: &str, method: &str, params: Value) -> Value {
    server
        .http
        .post(format!("{}{path}", server.base))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn convert(tenant: Option<&str>) -> Value {
    let mut params = json!({
        "message": {
            "messageId": uuid(),
            "role": "ROLE_USER",
            "parts": [{"data": {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}}],
            "metadata": {"skill": "convert"},
        }
    });
    if let Some(tenant) = tenant {
        params["tenant"] = json!(tenant);
    }
    params
}

fn uuid() -> String {
    format!(
        "m-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

fn task_id(response: &Value) -> String {
    response["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a task in {response}"))
        .to_owned()
}

#[tokio::test]
async fn each_agent_is_reached_by_path_and_by_tenant() {
    let server = a2a_tests::start_host(two_agents()).await;
    let by_path = rpc_at(&server, "currency/", "SendMessage", convert(None)).await;
    assert_eq!(
        by_path["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{by_path}"
    );
    let by_tenant = rpc_at(&server, "", "SendMessage", convert(Some("currency"))).await;
    assert_eq!(
        by_tenant["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // HTTP+JSON: `/{tenant}/message:send` is the agent's own path.
    let rest: Value = server
        .http
        .post(format!("{}currency/message:send", server.base))
        .header("A2A-Version", "1.0")
        .json(&convert(None))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        rest["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{rest}"
    );
    // The same skill id on the other agent does not exist: booking has no `convert`.
    let elsewhere = rpc_at(&server, "", "SendMessage", convert(Some("booking"))).await;
    assert!(
        elsewhere["error"].is_object(),
        "booking has no convert skill: {elsewhere}"
    );
    // Without a tenant the root reaches the primary agent.
    let primary = rpc_at(&server, "", "SendMessage", convert(None)).await;
    assert_eq!(
        primary["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn a_task_of_one_agent_is_not_found_through_another_and_lists_never_mix() {
    let server = a2a_tests::start_host(two_agents()).await;
    let task = task_id(&rpc_at(&server, "currency/", "SendMessage", convert(None)).await);
    let own = rpc_at(&server, "currency/", "GetTask", json!({"id": task})).await;
    assert_eq!(own["result"]["id"], task.as_str());
    for (path, tenant) in [("booking/", None), ("", Some("booking"))] {
        let mut params = json!({"id": task});
        if let Some(tenant) = tenant {
            params["tenant"] = json!(tenant);
        }
        let other = rpc_at(&server, path, "GetTask", params.clone()).await;
        assert_eq!(
            other["error"]["code"], -32001,
            "not found through booking: {other}"
        );
        let cancel = rpc_at(&server, path, "CancelTask", params).await;
        assert_eq!(cancel["error"]["code"], -32001, "{cancel}");
    }
    let status = server
        .http
        .get(format!("{}booking/tasks/{task}", server.base))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 404);
    let listed = |tenant: &'static str| {
        let server = &server;
        async move {
            let list = rpc_at(
                server,
                "",
                "ListTasks",
                json!({"tenant": tenant, "pageSize": 100}),
            )
            .await;
            list["result"]["tasks"]
                .as_array()
                .unwrap_or_else(|| panic!("tasks in {list}"))
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(listed("currency").await, [task]);
    assert!(
        listed("booking").await.is_empty(),
        "booking lists none of currency's tasks"
    );
}

#[tokio::test]
async fn the_catalog_lists_every_agent_and_the_primary_card_is_at_the_root() {
    let server = a2a_tests::start_host(two_agents()).await;
    let catalog = server.get_json("agents").await;
    let agents = catalog["agents"].as_array().unwrap();
    let ids: Vec<&str> = agents.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["currency", "booking"]);
    assert_eq!(agents[0]["primary"], true);
    assert_eq!(agents[1]["card"]["name"], "Booking Agent");
    assert_eq!(agents[1]["url"], format!("{}booking/", server.base));
    let root = server.card().await;
    assert_eq!(
        root["name"], "Currency Agent",
        "the primary agent's card at the root"
    );
    let card: Value = server
        .http
        .get(agents[1]["cardUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "Booking Agent");
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(interfaces[0]["url"], format!("{}booking/", server.base));
    assert!(
        interfaces[0].get("tenant").is_none(),
        "the agent's own URL needs no tenant"
    );
    let shared: Vec<&Value> = interfaces
        .iter()
        .filter(|i| i["tenant"] == "booking")
        .collect();
    let bindings: Vec<&str> = shared
        .iter()
        .map(|i| i["protocolBinding"].as_str().unwrap())
        .collect();
    assert_eq!(
        bindings,
        ["JSONRPC", "HTTP+JSON", "GRPC"],
        "every binding at the shared URL: {interfaces:?}"
    );
    assert_eq!(shared[0]["url"], server.base.as_str());
    let address = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/');
    assert_eq!(shared[2]["url"], address, "gRPC at the host's address");
    assert_eq!(
        card["url"],
        format!("{}booking/", server.base),
        "0.3 clients go by path"
    );
}

#[tokio::test]
async fn an_unknown_tenant_or_agent_is_a_clear_not_found() {
    let server = a2a_tests::start_host(two_agents()).await;
    let refused = rpc_at(
        &server,
        "",
        "GetTask",
        json!({"id": "t", "tenant": "weather"}),
    )
    .await;
    assert_eq!(refused["id"], 7);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`weather`") && message.contains("currency, booking"),
        "names the tenant and the agents: {message}"
    );
    let response = server
        .http
        .post(format!("{}weather/message:send", server.base))
        .json(&convert(None))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], "NOT_FOUND");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`weather`")
    );
    let card = server
        .http
        .get(format!(
            "{}weather/.well-known/agent-card.json",
            server.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 404);
}

/// A tenant that is not one string cannot say which agent is meant: refused naming `tenant`,
/// never served by the primary agent; a long one is repeated only in part.
#[tokio::test]
async fn a_tenant_that_is_not_one_string_is_refused_and_a_long_one_is_not_echoed_whole() {
    let server = a2a_tests::start_host(two_agents()).await;
    let send = |params: &str| {
        let body =
            format!(r#"{{"jsonrpc": "2.0", "id": 9, "method": "ListTasks", "params": {params}}}"#);
        let server = &server;
        async move {
            let response = server
                .http
                .post(&server.base)
                .header("A2A-Version", "1.0")
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            response.json::<Value>().await.unwrap()
        }
    };
    for params in [
        r#"{"tenant": 5}"#,
        r#"{"tenant": ["booking"]}"#,
        r#"{"tenant": "booking", "tenant": "booking"}"#,
        r#"{"tenant": "booking", "tenant": "currency"}"#,
    ] {
        let refused = send(params).await;
        assert_eq!(refused["id"], 9, "{params}: {refused}");
        assert_eq!(refused["error"]["code"], -32602, "{params}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("tenant"), "{params}: {message}");
    }
    // `null` and an empty tenant still name none: the primary agent answers.
    for params in [r#"{"tenant": null}"#, r#"{"tenant": ""}"#] {
        let listed = send(params).await;
        assert!(listed["result"]["tasks"].is_array(), "{params}: {listed}");
    }
    let long = "x".repeat(900 * 1024);
    let body = format!(r#"{{"tenant": "{long}"}}"#);
    let response = server
        .http
        .post(&server.base)
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body(format!(
            r#"{{"jsonrpc": "2.0", "id": 9, "method": "ListTasks", "params": {body}}}"#
        ))
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.len() < 4096, "an error of {} bytes", text.len());
    assert!(text.contains("(921600 bytes)"), "{text}");
}

#[tokio::test]
async fn each_agent_has_its_own_mcp_endpoint() {
    let server = a2a_tests::start_host(two_agents()).await;
    let tools = |agent: &'static str| {
        let at = TestServer {
            base: format!("{}{agent}/", server.base),
            addr: server.addr,
            http: server.http.clone(),
        };
        async move {
            let (status, text) = at.mcp_modern("tools/list", json!({}), json!({})).await;
            assert_eq!(status, 200, "{text}");
            let listed = response_from(&text);
            listed["result"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("tools in {listed}"))
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    let currency = tools("currency").await;
    let booking = tools("booking").await;
    assert!(currency.contains(&"convert".to_owned()), "{currency:?}");
    assert!(!currency.contains(&"book_table".to_owned()), "{currency:?}");
    assert!(booking.contains(&"book_table".to_owned()), "{booking:?}");
    assert!(!booking.contains(&"convert".to_owned()), "{booking:?}");
}

#[tokio::test]
async fn agent_ids_are_checked_when_the_host_is_built() {
    let cases = [
        (
            Host::new()
                .agent("a", booking::Booking::default())
                .agent("a", booking::Booking::default()),
            "used twice",
        ),
        (
            Host::new().agent("agents", booking::Booking::default()),
            "must be",
        ),
        (
            Host::new().agent("console", booking::Booking::default()),
            "must be",
        ),
        (
            Host::new().agent("a/b", booking::Booking::default()),
            "must be",
        ),
        (
            Host::new().agent("", booking::Booking::default()),
            "must be",
        ),
        (
            Host::new()
                .agent("a", booking::Booking::default())
                .primary("b"),
            "primary agent `b`",
        ),
        (Host::new(), "at least one agent"),
    ];
    for (host, expected) in cases {
        let error = host.router().expect_err("refused").to_string();
        assert!(error.contains(expected), "{error} should say {expected}");
    }
}

#[tokio::test]
async fn the_shared_mcp_endpoint_lists_and_calls_every_agents_tools_namespaced() {
    let server = a2a_tests::start_host(two_agents()).await;
    let (status, text) = server.mcp_modern("tools/list", json!({}), json!({})).await;
    assert_eq!(status, 200, "{text}");
    let listed = response_from(&text);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"currency_convert"), "{names:?}");
    assert!(names.contains(&"booking_book_table"), "{names:?}");
    assert!(
        !names.contains(&"convert"),
        "only namespaced names: {names:?}"
    );
    let arguments = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
    let (status, text) = server
        .mcp_modern(
            "tools/call",
            json!({"name": "currency_convert", "arguments": arguments}),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{text}");
    let called = response_from(&text);
    assert_eq!(
        called["result"]["structuredContent"]["currency"], "EUR",
        "{called}"
    );
    let (_, text) = server
        .mcp_modern(
            "tools/call",
            json!({"name": "weather_now", "arguments": {}}),
            json!({}),
        )
        .await;
    let refused = response_from(&text);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("weather_now")
    );
}

mod colliding {
    use a2a_runtime::prelude::*;

    /// Has a tool `b_c`.
    #[agent]
    pub(super) struct A;

    /// Reports.
    #[skill(agent = A)]
    async fn b_c() -> String {
        "a".into()
    }

    /// Has a tool `c`.
    #[agent]
    pub(super) struct Ab;

    /// Reports.
    #[skill(agent = Ab)]
    async fn c() -> String {
        "ab".into()
    }
}

#[tokio::test]
async fn two_agents_listing_one_tool_name_on_the_shared_endpoint_are_refused_at_startup() {
    let host = || {
        Host::new()
            .agent("a", colliding::A)
            .agent("a_b", colliding::Ab)
    };
    let error = host().router().expect_err("a collision").to_string();
    assert!(
        error.contains("`a_b_c`") && error.contains("`a`") && error.contains("`a_b`"),
        "{error}"
    );
    assert!(
        host().shared_mcp(false).router().is_ok(),
        "without the shared endpoint, names do not meet"
    );
}

/// What `a2a validate` checks, on every card a host serves: the primary one at the root, each
/// agent's own, and each in the catalog.
#[tokio::test]
async fn every_card_of_a_host_validates() {
    use a2a_runtime::client::{A2aClient, Severity, validate_card};
    let server = a2a_tests::start_host(two_agents()).await;
    let errors = |findings: Vec<a2a_runtime::client::Finding>| -> Vec<String> {
        findings
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.to_string())
            .collect()
    };
    for url in [
        server.base.clone(),
        format!("{}currency/", server.base),
        format!("{}booking/", server.base),
    ] {
        let client = A2aClient::connect(url.clone()).await.unwrap();
        assert!(
            errors(client.card().validate()).is_empty(),
            "{url}: {:?}",
            client.card().validate()
        );
    }
    let catalog = server.get_json("agents").await;
    for entry in catalog["agents"].as_array().unwrap() {
        let findings = validate_card(&entry["card"]);
        assert!(
            errors(findings.clone()).is_empty(),
            "{}: {findings:?}",
            entry["id"]
        );
    }
}

const HOST: &str = env!("CARGO_BIN_EXE_interop-host");

const RECEIVER: &str = env!("CARGO_BIN_EXE_receiver-under-test");
