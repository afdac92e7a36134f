//! Durable usage records: a row per call and hourly rollups after the same mix the metrics
//! count, in SQLite and Postgres; `/usage` for admins only; a monthly call budget that refuses
//! a caller past it, across a restart.

use std::time::Duration;

use a2a_runtime::server::{ServeConfig, StoreLocation};
use a2a_tests::library::Library;
use a2a_tests::postgres::fresh_database;
use a2a_tests::tokens::{SECRET, claims, hs256};
use a2a_tests::{TestServer, response_from, scratch_dir, start, start_host};
use serde_json::{Value, json};
use sqlx::Row as _;

use super::metrics::{host_of, observed_config, run_the_mix};

/// A token of `sub` granted `scope`.
fn token(sub: &str, scope: &str) -> String {
    hs256(&claims(sub, scope))
}

/// `GET /usage?{query}` with `bearer`: the status, the JSON answer and the challenge.
async fn usage(
    server: &TestServer,
    query: &str,
    bearer: Option<&str>,
) -> (u16, Value, Option<String>) {
    usage_at(server, "usage", query, bearer).await
}

/// `GET /{path}?{query}` with `bearer`: the status, the JSON answer and the challenge.
async fn usage_at(
    server: &TestServer,
    path: &str,
    query: &str,
    bearer: Option<&str>,
) -> (u16, Value, Option<String>) {
    let mut request = server.http.get(format!("{}{path}?{query}", server.base));
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    (
        status,
        response.json().await.unwrap_or(Value::Null),
        challenge,
    )
}

/// The totals of `/usage?by={by}` once they add up to `calls` (a hang guard of 10 s: rows are
/// written within a second).
async fn totals(server: &TestServer, by: &str, calls: u64) -> Vec<Value> {
    let admin = token("root", "a2a:admin");
    for _ in 0..200 {
        let (status, answer, _) = usage(server, &format!("by={by}"), Some(&admin)).await;
        assert_eq!(status, 200, "{answer}");
        let lines = answer["usage"].as_array().cloned().unwrap_or_default();
        let sum: u64 = lines
            .iter()
            .map(|line| line["calls"].as_u64().unwrap())
            .sum();
        if sum == calls {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the usage never added up to {calls} calls");
}

/// The line of `key` in `lines` grouped by `by`.
fn line<'a>(lines: &'a [Value], by: &str, key: &str) -> &'a Value {
    lines
        .iter()
        .find(|line| line[by] == key)
        .unwrap_or_else(|| panic!("no {by} {key} in {lines:?}"))
}

/// The mix on a host keeping tasks (and usage) at `store`; checks the rollups through
/// `/usage` and returns the server.
async fn the_mix_recorded_at(store: StoreLocation) -> TestServer {
    let mut config = observed_config();
    config.observe.usage = true;
    config.observe.usage_claims = vec!["tenant".into()];
    config.store = Some(store);
    let server = start_host(host_of(config)).await;
    run_the_mix(&server).await;

    let skills = totals(&server, "skill", 17).await;
    let counts = |skill: &str| {
        let line = line(&skills, "skill", skill);
        let count = |name: &str| line[name].as_u64().unwrap();
        (
            count("calls"),
            count("ran"),
            count("failed"),
            count("refused"),
        )
    };
    // Calls, ran, failed, refused.
    assert_eq!(
        counts("echo"),
        (8, 7, 0, 1),
        "six A2A (gRPC among them), one MCP, one over quota"
    );
    assert_eq!(counts("fail"), (2, 2, 2, 0));
    assert_eq!(counts("nap"), (2, 2, 0, 0), "its question, then its answer");
    assert_eq!(
        counts("wait"),
        (2, 2, 0, 0),
        "canceled over A2A, a task over MCP"
    );
    assert_eq!(counts("add"), (1, 1, 1, 0), "arguments that do not fit");
    assert_eq!(
        counts("borrow"),
        (2, 0, 0, 2),
        "refused by scope, over MCP and A2A"
    );
    let agents = totals(&server, "agent", 17).await;
    assert_eq!(line(&agents, "agent", "lab")["calls"], 15);
    assert_eq!(line(&agents, "agent", "library")["calls"], 2);
    let callers = totals(&server, "caller", 17).await;
    assert_eq!(line(&callers, "caller", "anonymous")["calls"], 15);
    assert!(
        callers
            .iter()
            .any(|c| c["caller"].as_str().unwrap().ends_with(":ann")),
        "{callers:?}"
    );
    // By a claim kept with the rows: ann's token names tenant acme, the anonymous calls none.
    let tenants = totals(&server, "claim:tenant", 17).await;
    assert_eq!(line(&tenants, "tenant", "acme")["calls"], 2, "{tenants:?}");
    assert_eq!(line(&tenants, "tenant", "")["calls"], 15, "{tenants:?}");
    let admin = token("root", "a2a:admin");
    let (status, refused, _) = usage(&server, "by=claim:plan", Some(&admin)).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("keeps tenant"),
        "{refused}"
    );
    // A caller's own calls, from the same rollups: ann's two refused borrows, no one else's.
    let mine: Value = server
        .http
        .get(format!("{}usage/me", server.base))
        .bearer_auth(token("ann", ""))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(mine["usage"].as_array().map(Vec::len), Some(1), "{mine}");
    assert_eq!(mine["usage"][0]["skill"], "borrow", "{mine}");
    assert_eq!(mine["usage"][0]["refused"], 2, "{mine}");
    server
}

/// A row as the store holds it: its outcome, error, claims, protocol and binding.
type Row = (String, Option<String>, Option<String>, String, String);

/// Checks the rows of the mix.
fn check_rows(rows: &[Row]) {
    assert_eq!(rows.len(), 17, "{rows:?}");
    let busy = rows.iter().find(|row| row.0 == "busy").unwrap();
    assert!(
        busy.1.as_deref().unwrap().contains("tasks working"),
        "{busy:?}"
    );
    let refused: Vec<_> = rows.iter().filter(|row| row.0 == "forbidden").collect();
    assert_eq!(refused.len(), 2);
    for row in refused {
        assert_eq!(
            row.2.as_deref(),
            Some(r#"{"tenant":"acme"}"#),
            "the claim kept: {row:?}"
        );
    }
    let bindings: std::collections::BTreeSet<(&str, &str)> = rows
        .iter()
        .map(|row| (row.3.as_str(), row.4.as_str()))
        .collect();
    for expected in [
        ("a2a", "jsonrpc"),
        ("a2a", "http+json"),
        ("a2a", "grpc"),
        ("mcp", "streamable-http"),
    ] {
        assert!(bindings.contains(&expected), "{bindings:?}");
    }
}

#[tokio::test]
async fn usage_rows_and_rollups_in_sqlite_match_the_mix() {
    let dir = scratch_dir();
    let server = the_mix_recorded_at(StoreLocation::Sqlite(dir.join("tasks.sqlite3"))).await;
    let pool = sqlx::SqlitePool::connect(&format!(
        "sqlite://{}",
        dir.join("records.sqlite3").display()
    ))
    .await
    .unwrap();
    let rows = sqlx::query("SELECT outcome, error, claims, protocol, binding FROM usage_calls")
        .fetch_all(&pool)
        .await
        .unwrap();
    let rows: Vec<Row> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4)))
        .collect();
    check_rows(&rows);
    drop(server);
}

#[tokio::test]
async fn usage_rows_and_rollups_in_postgres_match_the_mix() {
    let Some(url) = fresh_database("usage_mix").await else {
        return;
    };
    let _server = the_mix_recorded_at(StoreLocation::Postgres(url.clone())).await;
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let rows = sqlx::query("SELECT outcome, error, claims, protocol, binding FROM a2a_usage_calls")
        .fetch_all(&pool)
        .await
        .unwrap();
    let rows: Vec<Row> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4)))
        .collect();
    check_rows(&rows);
}

#[tokio::test]
async fn usage_is_for_callers_granted_the_admin_scope() {
    let mut config = ServeConfig::default();
    config.observe.usage = true;
    let server = start(
        Library
            .server()
            .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
            .config(config),
    )
    .await;
    let (status, answer, challenge) = usage(&server, "", None).await;
    assert_eq!(status, 401, "{answer}");
    assert!(challenge.unwrap().starts_with("Bearer"));
    let (status, answer, challenge) =
        usage(&server, "", Some(&token("ann", "library:loans:write"))).await;
    assert_eq!(status, 403, "{answer}");
    assert!(challenge.unwrap().contains("scope=\"a2a:admin\""));
    assert!(
        answer["message"].as_str().unwrap().contains("a2a:admin"),
        "{answer}"
    );
    let admin = token("root", "a2a:admin");
    let (status, answer, _) = usage(&server, "by=everything", Some(&admin)).await;
    assert_eq!(status, 400);
    assert_eq!(answer["parameter"], "by", "{answer}");
    let (status, answer, _) = usage(&server, "since=yesterday", Some(&admin)).await;
    assert_eq!(
        (status, &answer["parameter"]),
        (400, &json!("since")),
        "{answer}"
    );
    let (status, answer, _) = usage(&server, "by=skill", Some(&admin)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["by"], "skill");
}

#[tokio::test]
async fn every_caller_sees_its_own_usage_and_only_its_own() {
    let mut config = ServeConfig::default();
    config.observe.usage = true;
    let server = start(
        Library
            .server()
            .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
            .config(config),
    )
    .await;
    for sub in ["ann", "ann", "bob"] {
        let done = borrow(&server, sub).await;
        assert_eq!(
            done["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{done}"
        );
    }
    totals(&server, "caller", 3).await;
    // No admin scope needed: a caller's own calls, by skill unless asked by agent.
    let ann = token("ann", "library:members:read");
    let (status, mine, _) = usage(&server, "", Some(&ann)).await;
    assert_eq!(status, 403, "{mine}");
    let (status, mine, _) = usage_at(&server, "usage/me", "", Some(&ann)).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(mine["by"], "skill");
    assert!(mine["caller"].as_str().unwrap().ends_with("ann"), "{mine}");
    assert_eq!(mine["usage"][0]["skill"], "borrow");
    assert_eq!(
        mine["usage"][0]["calls"], 2,
        "bob's call is not ann's: {mine}"
    );
    let bob = token("bob", "");
    let (status, bobs, _) = usage_at(&server, "usage/me", "by=agent", Some(&bob)).await;
    assert_eq!(status, 200, "{bobs}");
    assert_eq!(bobs["usage"][0]["calls"], 1, "{bobs}");
    let (status, refused, _) = usage_at(&server, "usage/me", "by=caller", Some(&ann)).await;
    assert_eq!(
        (status, &refused["parameter"]),
        (400, &json!("by")),
        "{refused}"
    );
    let (status, _, _) = usage_at(&server, "usage/me", "", None).await;
    assert_eq!(status, 401);
}

/// `borrow` by `sub` over A2A: the JSON-RPC response.
async fn borrow(server: &TestServer, sub: &str) -> Value {
    let bearer = token(sub, "library:loans:write library:members:read");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"title": "Dune"}}],
        "metadata": {"skill": "borrow"}}}});
    let authorization = format!("Bearer {bearer}");
    server
        .rpc_with(&body, &[("authorization", &authorization)])
        .await
}

/// The library with a budget of two calls a month, keeping tasks and usage in `dir`, until
/// `stop` is canceled.
async fn budgeted_library(
    dir: &std::path::Path,
    stop: a2a_runtime::server::CancellationToken,
) -> (TestServer, tokio::task::JoinHandle<()>) {
    let mut config = ServeConfig::default();
    config.observe.usage = true;
    config.observe.call_budget = Some(2);
    config.store = Some(StoreLocation::Sqlite(dir.join("tasks.sqlite3")));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let server = Library
        .server()
        .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
        .config(config)
        .public_url(base.clone())
        .shutdown_signal(stop);
    let served = tokio::spawn(async move { server.serve_on(listener).await.unwrap() });
    (TestServer::at(base), served)
}

#[tokio::test]
async fn a_caller_past_its_monthly_budget_is_refused_as_busy_even_after_a_restart() {
    let dir = scratch_dir();
    let stop = a2a_runtime::server::CancellationToken::new();
    let (server, served) = budgeted_library(&dir, stop.clone()).await;
    for _ in 0..2 {
        let done = borrow(&server, "ann").await;
        assert_eq!(
            done["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{done}"
        );
    }
    let refused = borrow(&server, "ann").await;
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("monthly budget of 2"), "{message}");
    // Over MCP too, and another caller's budget is its own.
    let bearer = format!(
        "Bearer {}",
        token("ann", "library:loans:write library:members:read")
    );
    let params = json!({"name": "borrow", "arguments": {"title": "Dune"}});
    let headers = [("authorization", bearer.as_str())];
    let (_, body) = server
        .mcp_modern_with("tools/call", params, json!({}), &headers)
        .await;
    let refused = response_from(&body);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("budget"),
        "{refused}"
    );
    let other = borrow(&server, "bob").await;
    assert_eq!(
        other["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    // The rows are written before the server stops; a new one counts them.
    stop.cancel();
    served.await.unwrap();
    let (server, _served) =
        budgeted_library(&dir, a2a_runtime::server::CancellationToken::new()).await;
    let refused = borrow(&server, "ann").await;
    assert_eq!(
        refused["error"]["code"], -32029,
        "after a restart: {refused}"
    );
    let allowed = borrow(&server, "bob").await;
    assert_eq!(
        allowed["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn a_remote_agents_calls_are_usage_rows_by_agent_skill_and_caller() {
    let remote = start(currency::Currency::with_reference_rates().server()).await;
    let mut config = ServeConfig::default();
    config.observe.usage = true;
    let host = a2a_runtime::server::Host::new()
        .config(config)
        .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
        .remote_agent("fx", remote.base.clone())
        .agent("library", Library);
    let server = start_host(host).await;
    let fx = server.mounted("fx");
    let money = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-usage", "role": "ROLE_USER", "parts": [{"data": money}],
        "metadata": {"skill": "convert"}}}});
    let ann = format!("Bearer {}", token("ann", ""));
    let sent = fx.rpc_with(&body, &[("authorization", &ann)]).await;
    let state = &sent["result"]["task"]["status"]["state"];
    assert_eq!(state, "TASK_STATE_COMPLETED", "{sent}");
    let bob = format!("Bearer {}", token("bob", ""));
    let params = json!({"name": "convert", "arguments": money});
    let (_, called) = fx
        .mcp_modern_with("tools/call", params, json!({}), &[("authorization", &bob)])
        .await;
    let called = response_from(&called);
    assert_eq!(called["result"]["isError"], false, "{called}");
    let by_agent = totals(&server, "agent", 2).await;
    assert_eq!(line(&by_agent, "agent", "fx")["calls"], 2, "{by_agent:?}");
    let by_skill = totals(&server, "skill", 2).await;
    assert_eq!(
        line(&by_skill, "skill", "convert")["calls"],
        2,
        "{by_skill:?}"
    );
    let by_caller = totals(&server, "caller", 2).await;
    assert_eq!(by_caller.len(), 2, "one line per caller: {by_caller:?}");
}
