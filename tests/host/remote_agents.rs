//! A remote A2A agent behind the host (`Host::remote_agent`): its card republished at the
//! host's address, its skills served over A2A and as MCP tools, each call forwarded to the
//! remote, its questions asked and answered through the host.

use super::*;

/// The currency example served on its own, as the remote, and a host fronting it as `fx`
/// beside a compiled agent.
async fn fronted() -> (TestServer, TestServer) {
    let remote = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let host = Host::new()
        .remote_agent("fx", remote.base.clone())
        .agent("booking", booking::Booking::default());
    (remote, a2a_tests::start_host(host).await)
}

#[tokio::test]
async fn a_remote_agents_card_is_republished_at_the_hosts_address() {
    let (remote, host) = fronted().await;
    let card = host.mounted("fx").card().await;
    assert_eq!(card["name"], remote.card().await["name"], "{card}");
    let url = card["supportedInterfaces"][0]["url"].as_str().unwrap();
    assert!(url.starts_with(&host.base), "{url} is the host's");
    let skills: Vec<_> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["id"].as_str().unwrap())
        .collect();
    assert!(skills.contains(&"convert"), "{skills:?}");
}

#[tokio::test]
async fn a_call_through_the_host_is_forwarded_to_the_remote_and_its_result_comes_back() {
    let (_remote, host) = fronted().await;
    let sent = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    let artifact = task["artifacts"].to_string();
    assert!(
        artifact.contains("EUR"),
        "the remote's conversion: {artifact}"
    );
    // The same skill as an MCP tool on the remote's own endpoint at the host.
    let mcp = host.mounted("fx");
    let arguments = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
    let (status, body) = mcp
        .mcp_modern(
            "tools/call",
            json!({"name": "convert", "arguments": arguments}),
            json!({}),
        )
        .await;
    let called = response_from(&body);
    assert_eq!(status, 200, "{body}");
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert!(called.to_string().contains("EUR"), "{called}");
}

#[tokio::test]
async fn a_remote_skills_questions_are_asked_and_answered_through_the_host() {
    let (_remote, host) = fronted().await;
    let exchange = json!({"message": {
        "messageId": uuid(), "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": 5, "currency": "GBP"}, "to": "CHF"}}],
        "metadata": {"skill": "exchange"},
    }});
    let sent = rpc_at(&host, "fx/", "SendMessage", exchange).await;
    let task = &sent["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{sent}"
    );
    let asked = task["status"]["message"].to_string();
    assert!(
        asked.contains("Which account"),
        "the remote's question: {asked}"
    );
    let id = task["id"].as_str().unwrap();
    let answer = |text: &str| {
        json!({"message": {
            "messageId": uuid(), "role": "ROLE_USER", "taskId": id,
            "parts": [{"text": text}],
        }})
    };
    let confirm = rpc_at(&host, "fx/", "SendMessage", answer("ACME-1")).await;
    let state = &confirm["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_INPUT_REQUIRED", "{confirm}");
    let done = rpc_at(&host, "fx/", "SendMessage", answer("yes")).await;
    let task = &done["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert!(task.to_string().contains("ACME-1"), "{done}");
}

#[tokio::test]
async fn an_unreachable_remote_is_served_without_skills_and_a_call_names_it() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let host = Host::new()
        .remote_agent("gone", url)
        .agent("booking", booking::Booking::default());
    let host = a2a_tests::start_host(host).await;
    let card = host.mounted("gone").card().await;
    assert_eq!(card["skills"], json!([]), "{card}");
    let sent = rpc_at(&host, "gone/", "SendMessage", convert(None)).await;
    assert!(sent["error"].is_object(), "no skill to route to: {sent}");
    // The other agent answers all the while.
    let booking = host.mounted("booking").card().await;
    assert_eq!(booking["name"], "Booking Agent", "{booking}");
}

#[tokio::test]
async fn a_remote_that_dies_fails_its_callers_naming_it_and_the_host_serves_on() {
    let (mut child, base) =
        a2a_tests::spawn_served_with(env!("CARGO_BIN_EXE_interop-currency"), &[]).await;
    let host = Host::new()
        .remote_agent("fx", base)
        .agent("booking", booking::Booking::default());
    let host = a2a_tests::start_host(host).await;
    let alive = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    assert_eq!(
        alive["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{alive}"
    );
    let (status, said) = healthz(&host).await;
    assert_eq!((status, said.as_str()), (200, "ok\nremote fx: reachable\n"));
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let dead = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    let status = &dead["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{dead}");
    let said = status["message"].to_string();
    assert!(
        said.contains("remote agent `fx`") && said.contains("unreachable"),
        "{said}"
    );
    // The host stays healthy, and says how the remote was last found, as its catalog does.
    let (status, said) = healthz(&host).await;
    assert_eq!(status, 200, "{said}");
    assert!(said.starts_with("ok\nremote fx: unreachable: "), "{said}");
    let catalog = host.get_json("agents").await;
    let fx = catalog["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["id"] == "fx")
        .unwrap();
    assert_eq!(fx["remote"]["state"], "unreachable", "{fx}");
    assert!(
        catalog["agents"][1].get("remote").is_none(),
        "compiled agents say nothing"
    );
    let booking = host.mounted("booking").card().await;
    assert_eq!(booking["name"], "Booking Agent", "{booking}");
}

#[tokio::test]
async fn a_remote_that_answers_late_gets_its_card_tools_and_documents_served_once_it_does() {
    let reserved = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = reserved.local_addr().unwrap();
    drop(reserved);
    let url = format!("http://{addr}/");
    let host = Host::new()
        .remote_agent("late", url.clone())
        .agent("booking", booking::Booking::default());
    let host = a2a_tests::start_host(host).await;
    let late = host.mounted("late");
    assert_eq!(late.card().await["skills"], json!([]));
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let remote = currency::Currency::with_reference_rates()
        .server()
        .public_url(url);
    tokio::spawn(async move { remote.serve_on(listener).await.unwrap() });
    let mut card = Value::Null;
    for _ in 0..100 {
        card = late.card().await;
        if card["skills"]
            .as_array()
            .is_some_and(|skills| !skills.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(card["name"], "Currency Agent", "{card}");
    // The discovery documents are built again: its SKILL.md and the AI Catalog describe it now,
    // and say to revalidate them.
    let skill_md = host
        .http
        .get(format!(
            "{}late/.well-known/agent-skills/late/SKILL.md",
            host.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(skill_md.headers()["cache-control"], "public, no-cache");
    let skill_md = skill_md.text().await.unwrap();
    assert!(skill_md.contains("convert"), "{skill_md}");
    let catalog = host.get_json(".well-known/ai-catalog.json").await;
    assert!(catalog.to_string().contains("Currency Agent"), "{catalog}");
    let (_, listed) = late.mcp_modern("tools/list", json!({}), json!({})).await;
    let listed = response_from(&listed);
    let names = listed["result"]["tools"].to_string();
    assert!(names.contains("\"convert\""), "{listed}");
    let sent = rpc_at(&host, "late/", "SendMessage", convert(None)).await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
}

#[tokio::test]
async fn the_remote_agent_flag_mounts_a_remote_on_the_example_host() {
    let (_remote, base) =
        a2a_tests::spawn_served_with(env!("CARGO_BIN_EXE_interop-currency"), &[]).await;
    let flag = format!("fx={base}");
    let (_host, host) = a2a_tests::spawn_served_with(HOST, &["--remote-agent", &flag]).await;
    let host = TestServer::at(host);
    let sent = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    let state = &sent["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_COMPLETED", "{sent}");
    let catalog = host.get_json("agents").await;
    assert!(catalog.to_string().contains("\"fx\""), "{catalog}");
}

#[test]
fn a_server_of_one_agent_refuses_the_remote_agent_flag_naming_it() {
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_interop-currency"))
        .args([
            "--bind",
            "127.0.0.1:0",
            "--remote-agent",
            "fx=http://127.0.0.1:9/",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--remote-agent: only a host"), "{said}");
    let malformed = std::process::Command::new(HOST)
        .args([
            "--bind",
            "127.0.0.1:0",
            "--remote-agent",
            "fx=ftp://example",
        ])
        .output()
        .unwrap();
    assert!(!malformed.status.success());
    let said = String::from_utf8_lossy(&malformed.stderr);
    assert!(said.contains("not an http or https URL"), "{said}");
}

/// A JSON-RPC request to `path` on `server` as the caller holding `key`.
async fn rpc_as(server: &TestServer, key: &str, path: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = server
        .http
        .post(format!("{}{path}", server.base))
        .header("A2A-Version", "1.0")
        .header("X-API-Key", key)
        .json(&body)
        .send()
        .await
        .unwrap();
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_remote_task_is_its_callers_alone() {
    const ALICE: &str = "alice-key-0123456789";
    const BOB: &str = "bob-key-9876543210abc";
    let remote = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let keys = a2a_runtime::auth::ApiKeys::parse(&format!("alice={ALICE},bob={BOB}")).unwrap();
    let host = Host::new()
        .api_keys(keys)
        .remote_agent("fx", remote.base.clone())
        .agent("booking", booking::Booking::default());
    let host = a2a_tests::start_host(host).await;
    let anonymous = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    assert!(
        anonymous["error"].is_object(),
        "the host's schemes apply: {anonymous}"
    );
    let sent = rpc_as(&host, ALICE, "fx/", "SendMessage", convert(None)).await;
    let id = task_id(&sent);
    let own = rpc_as(&host, ALICE, "fx/", "GetTask", json!({"id": id})).await;
    assert_eq!(own["result"]["id"], id.as_str(), "{own}");
    for method in ["GetTask", "CancelTask"] {
        let other = rpc_as(&host, BOB, "fx/", method, json!({"id": id})).await;
        assert_eq!(
            other["error"]["code"], -32001,
            "{method} by another caller: {other}"
        );
    }
    let listed = rpc_as(&host, BOB, "fx/", "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
}

#[tokio::test]
async fn a_hostile_remote_fails_its_own_callers_in_time_and_the_host_serves_on() {
    use a2a_runtime::remote::RemoteA2aSettings;
    let hostile = a2a_tests::hostile::start_with_skills().await;
    let settings = RemoteA2aSettings {
        timeout: std::time::Duration::from_secs(1),
        ..RemoteA2aSettings::default()
    };
    let mut host = Host::new().agent("booking", booking::Booking::default());
    for id in ["silent", "huge", "garbage", "huge-card"] {
        host = host.remote_agent_with(id, format!("{hostile}/{id}/"), settings.clone());
    }
    let started = std::time::Instant::now();
    let host = a2a_tests::start_host(host).await;
    // A 1 GiB card is not read past the limit: that remote is served without skills.
    let card = host.mounted("huge-card").card().await;
    assert_eq!(card["skills"], json!([]), "{card}");
    let talk = json!({"message": {
        "messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": "hello"}],
        "metadata": {"skill": "talk"},
    }});
    for (id, said) in [
        ("silent", "unreachable"),
        ("huge", "more than"),
        ("garbage", "remote agent `garbage`"),
    ] {
        let sent = rpc_at(&host, &format!("{id}/"), "SendMessage", talk.clone()).await;
        let status = &sent["result"]["task"]["status"];
        assert_eq!(status["state"], "TASK_STATE_FAILED", "{id}: {sent}");
        let message = status["message"].to_string();
        assert!(
            message.contains(&format!("remote agent `{id}`")),
            "{id}: {message}"
        );
        assert!(message.contains(said), "{id}: {message}");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "each failed in time"
    );
    let booking = host.mounted("booking").card().await;
    assert_eq!(booking["name"], "Booking Agent", "{booking}");
}

/// `/healthz`: its status and text.
async fn healthz(host: &TestServer) -> (u16, String) {
    let response = host
        .http
        .get(format!("{}healthz", host.base))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// `message` for `skill` of a remote, as a JSON-RPC `SendMessage`'s params.
fn ask_skill(skill: &str, input: Value) -> Value {
    json!({"message": {
        "messageId": uuid(), "role": "ROLE_USER", "parts": [{"data": input}],
        "metadata": {"skill": skill},
    }})
}

#[tokio::test]
async fn a_remote_that_does_not_stream_runs_longer_than_one_request_may_take() {
    use a2a_runtime::remote::RemoteA2aSettings;
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.streaming = false;
    let remote = a2a_tests::start(a2a_tests::lab::Lab.server().config(config)).await;
    let settings = RemoteA2aSettings {
        timeout: std::time::Duration::from_secs(1),
        ..RemoteA2aSettings::default()
    };
    let host = Host::new().remote_agent_with("lab", remote.base.clone(), settings);
    let host = a2a_tests::start_host(host).await;
    // The remote's task takes 2.5 requests' worth of time: the host reads it until it settles.
    let sent = rpc_at(
        &host,
        "lab/",
        "SendMessage",
        ask_skill("wait", json!({"millis": 2500})),
    );
    let task = &sent.await["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert!(task.to_string().contains("waited"), "{task}");
}

#[tokio::test]
async fn a_remote_task_the_host_gives_up_on_is_canceled_at_the_remote() {
    let remote = a2a_tests::start(a2a_tests::talker::Talker::default().server()).await;
    let host = Host::new().remote_agent("talk", remote.base.clone());
    let host = a2a_tests::start_host(host).await;
    // The remote asks for an authorization the host cannot give: the call fails naming why …
    let sent = rpc_at(
        &host,
        "talk/",
        "SendMessage",
        ask_skill("whoami", json!({})),
    )
    .await;
    let status = &sent["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{sent}");
    assert!(status.to_string().contains("authorization"), "{status}");
    // … and the remote's task, left waiting, is canceled rather than left behind.
    let mut states = Vec::new();
    for _ in 0..100 {
        let listed = remote.rpc("ListTasks", json!({})).await;
        states = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|task| task["status"]["state"].clone())
            .collect();
        if states == [json!("TASK_STATE_CANCELED")] {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the remote's task stays {states:?}");
}

/// Serves `cards` one after another at a card URL (the last one from then on), each saying it
/// stays fresh for `max_age`; the card URL.
async fn changing_card(cards: Vec<Value>, max_age: &'static str) -> String {
    use a2a_runtime::axum::{self, Json, Router, http::header, routing::get};
    let read = std::sync::atomic::AtomicUsize::new(0);
    let cards = std::sync::Arc::new((cards, read));
    let app = Router::new().route(
        "/.well-known/agent-card.json",
        get(move || {
            let cards = std::sync::Arc::clone(&cards);
            async move {
                let (cards, read) = &*cards;
                let n = read.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let card = cards[n.min(cards.len() - 1)].clone();
                ([(header::CACHE_CONTROL, max_age)], Json(card))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/.well-known/agent-card.json")
}

#[tokio::test]
async fn a_remote_card_is_read_again_as_soon_as_its_cache_control_says() {
    let remote = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let full = remote.card().await;
    let mut bare = full.clone();
    bare["skills"] = json!([]);
    // Without its word, the card would be read again in five minutes.
    let card_url = changing_card(vec![bare, full], "public, max-age=5").await;
    let host = Host::new()
        .remote_agent("fx", card_url)
        .agent("booking", booking::Booking::default());
    let host = a2a_tests::start_host(host).await;
    let fx = host.mounted("fx");
    assert_eq!(fx.card().await["skills"], json!([]));
    let mut card = Value::Null;
    for _ in 0..60 {
        card = fx.card().await;
        if card["skills"].as_array().is_some_and(|s| !s.is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert!(card["skills"].to_string().contains("\"convert\""), "{card}");
    let sent = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
}
