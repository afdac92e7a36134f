//! The hub across processes and restarts: a stdio registration tied to its pipe, a killed hub that
//! comes back with everything it held, replicas sharing one Postgres.

use super::*;

#[tokio::test]
async fn a_stdio_registration_lives_while_its_pipe_is_open_and_ends_with_it() {
    let data = a2a_tests::scratch_dir();
    let a2a_tests::StdioServer {
        child: mut hub,
        stdin,
        ..
    } = stdio_with_ann(&data).await;
    // Silent for more than twice its TTL, but its host is still there.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        ann_registered(&data).await,
        "the open pipe keeps ann registered"
    );
    drop(stdin);
    assert!(
        unregistered_soon(&data).await,
        "closing the pipe ends the registration"
    );
    let _ = tokio::time::timeout(Duration::from_secs(10), hub.wait()).await;
}

/// Whether `ann` is no longer registered within five seconds.
async fn unregistered_soon(data: &std::path::Path) -> bool {
    for _ in 0..50 {
        if !ann_registered(data).await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn a_killed_hub_restarts_with_todos_interfaces_reservations_and_unread_messages() {
    let data = a2a_tests::scratch_dir();
    let dir = data.to_str().unwrap();
    let (mut first, base) = start(&["--data-dir", dir]).await;
    let hub = mcp(&base).await;
    register(&hub, "p", "ann").await;
    register(&hub, "p", "bob").await;
    let todo = hub
        .add_todo(Some(s("p")), s("ann"), s("schema"), 1)
        .await
        .unwrap();
    hub.update_todo(
        Some(s("p")),
        s("ann"),
        todo.todo_id.clone(),
        TodoStatus::InProgress,
    )
    .await
    .unwrap();
    hub.register_interface(
        Some(s("p")),
        s("ann"),
        s("User"),
        s("interface User {}"),
        None,
    )
    .await
    .unwrap();
    let locked = reserve(&hub, "p", "ann", "src/user.ts", Some(600))
        .await
        .unwrap();
    hub.broadcast_message(Some(s("p")), s("bob"), s("info"), s("starting"))
        .await
        .unwrap();
    first.start_kill().unwrap(); // SIGKILL: nothing is flushed on the way out.
    first.wait().await.unwrap();

    let (_second, base) = start(&["--data-dir", dir]).await;
    let hub = mcp(&base).await;
    let mine = hub.get_my_todos(Some(s("p")), s("ann")).await.unwrap();
    assert_eq!(mine.todos[0].status, TodoStatus::InProgress);
    let interfaces = hub.list_interfaces(Some(s("p"))).await.unwrap();
    assert_eq!(interfaces["User"].definition, "interface User {}");
    let held = reserve(&hub, "p", "bob", "src/user.ts", None)
        .await
        .unwrap_err();
    let data = failure(held, "conflict");
    let expires: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(data["lock_info"]["expires_at"].clone()).unwrap();
    assert_eq!(
        expires, locked.expires_at,
        "the reservation kept its expiry"
    );
    let unread = hub.check_messages(Some(s("p")), s("ann")).await.unwrap();
    assert_eq!(unread.len(), 1, "{unread:?}");
    assert_eq!(unread[0].content, "starting");
}

#[tokio::test]
async fn two_replicas_on_one_postgres_share_reservations_and_answers() {
    let Some(url) = a2a_tests::postgres::fresh_database("hub").await else {
        return;
    };
    let (_a, base_a) = start(&["--store", &url]).await;
    let (_b, base_b) = start(&["--store", &url]).await;
    let (a, b) = (mcp(&base_a).await, mcp(&base_b).await);
    register(&a, "p", "ann").await;
    register(&b, "p", "bob").await;
    reserve(&a, "p", "ann", "src/**", None).await.unwrap();
    let refused = reserve(&b, "p", "bob", "src/main.rs", None)
        .await
        .unwrap_err();
    assert_eq!(failure(refused, "conflict")["lock_info"]["session"], "ann");
    // A question asked on one replica is answered on the other.
    let asking = tokio::spawn({
        let b = b.clone();
        async move {
            b.query_agent(
                Some(s("p")),
                s("bob"),
                s("ann"),
                s("status"),
                s("done?"),
                None,
                Some(20),
            )
            .await
        }
    });
    let mut question = None;
    for _ in 0..100 {
        if let Some(first) = a
            .check_messages(Some(s("p")), s("ann"))
            .await
            .unwrap()
            .pop()
        {
            question = Some(first);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let question = question.expect("the question reaches the other replica");
    a.respond_to_query(Some(s("p")), s("ann"), s("bob"), question.id, s("soon"))
        .await
        .unwrap();
    let answered = asking.await.unwrap().unwrap();
    assert_eq!(answered.response.as_deref(), Some("soon"));
}

/// A stdio hub on `data` with `ann` registered in project `p` through it.
async fn stdio_with_ann(data: &std::path::Path) -> a2a_tests::StdioServer {
    use tokio::io::AsyncWriteExt;
    let mut server = a2a_tests::spawn_stdio(
        HUB,
        &[
            "--stdio",
            "--heartbeat-ttl",
            "1s",
            "--data-dir",
            data.to_str().unwrap(),
        ],
    );
    let register = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "register_agent", "arguments": {
            "project_id": "p", "session_name": "ann", "task_id": "1", "branch": "b",
            "description": "d"}}});
    for line in [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        register,
    ] {
        let line = format!("{line}\n");
        server.stdin.write_all(line.as_bytes()).await.unwrap();
    }
    let mut answered = 0;
    while answered < 2 {
        let line = server.stdout.next_line().await.unwrap().unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        if reply.get("id").is_some() {
            assert!(reply.get("error").is_none(), "{reply}");
            answered += 1;
        }
    }
    server
}

/// Whether `ann` is registered in project `p` of the records under `data`.
async fn ann_registered(data: &std::path::Path) -> bool {
    let file = data.join("coordination-hub").join("records.sqlite3");
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", file.display()))
        .await
        .unwrap();
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM records WHERE collection = 'hub/p/agents' AND key = 'ann' \
         AND (expires_us IS NULL OR expires_us > ?)",
    )
    .bind(chrono::Utc::now().timestamp_micros())
    .fetch_one(&pool)
    .await
    .unwrap();
    pool.close().await;
    count == 1
}

#[tokio::test]
async fn a_session_run_through_two_stdio_processes_stays_until_the_last_closes() {
    let data = a2a_tests::scratch_dir();
    // Two windows of one worktree: two MCP hosts start a hub each, for one session.
    let first = stdio_with_ann(&data).await;
    let second = stdio_with_ann(&data).await;
    let a2a_tests::StdioServer {
        child: mut first_hub,
        stdin: first_stdin,
        ..
    } = first;
    drop(first_stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), first_hub.wait()).await;
    // Past twice the TTL: the second process keeps ann (and what ann holds).
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        ann_registered(&data).await,
        "closing one window keeps the session"
    );
    let a2a_tests::StdioServer {
        child: mut second_hub,
        stdin: second_stdin,
        ..
    } = second;
    drop(second_stdin);
    assert!(
        unregistered_soon(&data).await,
        "closing the last window ends it"
    );
    let _ = tokio::time::timeout(Duration::from_secs(10), second_hub.wait()).await;
}
