//! What hostile or careless callers send the hub: one file under two spellings, paths outside
//! the repository, globs built to make the overlap check blow up, one agent filling its
//! project's todos or another agent's inbox, and names that are path segments.

use std::time::{Duration, Instant};

use coordination_hub::glob;
use coordination_hub::model::TodoStatus;

use super::{failure, mcp, register, reserve, s, start};

#[tokio::test]
async fn one_file_under_two_spellings_is_one_reservation() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", "src/x.rs", None)
        .await
        .unwrap();
    for spelling in [
        "src/./x.rs",
        "src//x.rs",
        "./src/x.rs",
        "src/x.rs/",
        "src/**/**/x.rs",
    ] {
        let refused = reserve(&hub, "shop", "bob", spelling, None)
            .await
            .unwrap_err();
        failure(refused, "conflict");
    }
    // Stored normalized; released under any spelling.
    let renewed = reserve(&hub, "shop", "ann", "src//./x.rs", None)
        .await
        .unwrap();
    assert_eq!(renewed.file_path, "src/x.rs");
    hub.release_file_lock(Some(s("shop")), s("ann"), s("./src/x.rs/"))
        .await
        .unwrap();
    reserve(&hub, "shop", "bob", "src/x.rs", None)
        .await
        .unwrap();
    // Unicode is compared in NFC: a decomposed é is the composed one.
    reserve(&hub, "shop", "ann", "docs/caf\u{e9}.md", None)
        .await
        .unwrap();
    let decomposed = reserve(&hub, "shop", "bob", "docs/cafe\u{301}.md", None)
        .await
        .unwrap_err();
    failure(decomposed, "conflict");
}

#[tokio::test]
async fn paths_outside_the_repository_or_unreadable_are_refused_naming_file_path() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    for (path, says) in [
        ("/etc/passwd", "not absolute"),
        ("C:/Windows/x.rs", "not on a drive"),
        ("src\\x.rs", "`/` as its separator"),
        ("src/x\0.rs", "control characters"),
        ("src/x\u{1b}.rs", "control characters"),
        ("src/../../x", "inside the repository"),
        ("./", "1 to 1024 bytes"),
    ] {
        let refused = reserve(&hub, "shop", "ann", path, None).await.unwrap_err();
        let text = refused.to_string();
        assert!(
            text.contains("`file_path`") && text.contains(says),
            "{path:?}: {text}"
        );
    }
    let braces = format!(
        "src/{{{}}}.rs",
        (0..100)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let refused = reserve(&hub, "shop", "ann", &braces, None)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("alternatives"), "{refused}");
}

#[tokio::test]
async fn a_case_insensitive_hub_takes_two_cases_for_one_file() {
    let (_hub, base) = start(&["--paths-case-insensitive"]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", "Src/Main.rs", None)
        .await
        .unwrap();
    let refused = reserve(&hub, "shop", "bob", "src/main.RS", None)
        .await
        .unwrap_err();
    failure(refused, "conflict");
}

/// `n` segments of `**` each followed by a segment that matches anything, then `last`: the
/// shape that made the old overlap check try every way of pairing the `**`s.
fn deep(n: usize, last: &str) -> String {
    let mut pattern = "**/*a/".repeat(n);
    pattern.push_str(last);
    pattern
}

#[tokio::test]
async fn globs_built_to_blow_up_the_overlap_check_are_answered_and_the_hub_stays_up() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", &deep(40, "x.rs"), None)
        .await
        .unwrap();
    // A hang guard only: the old check never answered this.
    let answered = tokio::time::timeout(
        Duration::from_secs(60),
        reserve(&hub, "shop", "bob", &deep(40, "y.rs"), None),
    )
    .await
    .expect("the overlap check answers");
    answered.unwrap();
    let health = a2a_tests::get(format!("{base}healthz")).await.unwrap();
    assert!(health.status().is_success());
    // The figures the issue asks for, printed (not asserted: machines are noisy).
    for pairs in [20, 200] {
        let (a, b) = (deep(pairs, "x.rs"), deep(pairs, "y.rs"));
        let started = Instant::now();
        assert!(!glob::intersect(&a, &b));
        eprintln!(
            "overlap check of two {pairs}-pair patterns: {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn an_agent_at_its_cap_is_refused_and_nobody_elses_todos_are_dropped() {
    let (_hub, base) = start(&[
        "--max-todos-per-session",
        "5",
        "--max-todos-per-project",
        "8",
    ])
    .await;
    let hub = mcp(&base).await;
    for session in ["ann", "bob", "cat"] {
        register(&hub, "shop", session).await;
    }
    for i in 0..3 {
        hub.add_todo(Some(s("shop")), s("ann"), format!("ann's {i}"), 1)
            .await
            .unwrap();
    }
    for i in 0..5 {
        hub.add_todo(Some(s("shop")), s("bob"), format!("bob's {i}"), 2)
            .await
            .unwrap();
    }
    let own_cap = hub
        .add_todo(Some(s("shop")), s("bob"), s("one more"), 2)
        .await
        .unwrap_err();
    failure(own_cap, "limit_reached");
    let project_cap = hub
        .add_todo(Some(s("shop")), s("cat"), s("cat's first"), 3)
        .await
        .unwrap_err();
    let details = failure(project_cap, "limit_reached");
    assert!(
        details["error"].as_str().unwrap().contains("8 todos"),
        "{details}"
    );
    let ann = hub.get_my_todos(Some(s("shop")), s("ann")).await.unwrap();
    assert_eq!(ann.total, 3, "ann's todos are all there");
    // Completing and leaving frees room for others.
    let first = &ann.todos[0].id;
    hub.update_todo(
        Some(s("shop")),
        s("ann"),
        first.clone(),
        TodoStatus::Completed,
    )
    .await
    .unwrap();
    hub.unregister_agent(Some(s("shop")), s("bob"))
        .await
        .unwrap();
    hub.add_todo(Some(s("shop")), s("cat"), s("cat's first"), 3)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_full_inbox_refuses_the_sender_and_never_drops_an_unread_message() {
    let (_hub, base) = start(&["--inbox-size", "10"]).await;
    let hub = mcp(&base).await;
    for session in ["ann", "bob", "cat", "dan", "eve", "fay", "gus"] {
        register(&hub, "shop", session).await;
    }
    let ask = |from: &'static str, n: usize| {
        let hub = &hub;
        async move {
            hub.query_agent(
                Some(s("shop")),
                s(from),
                s("ann"),
                s("status"),
                format!("{from} {n}"),
                Some(false),
                None,
            )
            .await
        }
    };
    // One sender may have a fifth of the inbox unread: bob's third message is refused.
    ask("bob", 1).await.unwrap();
    ask("bob", 2).await.unwrap();
    let details = failure(ask("bob", 3).await.unwrap_err(), "inbox_full");
    assert_eq!(details["recipient"], "ann");
    // Four more senders fill the inbox with unread messages; then everyone is refused.
    for from in ["cat", "dan", "eve", "fay"] {
        ask(from, 1).await.unwrap();
        ask(from, 2).await.unwrap();
    }
    failure(ask("gus", 1).await.unwrap_err(), "inbox_full");
    // A broadcast says whom it did not reach.
    let broadcast = hub
        .broadcast_message(Some(s("shop")), s("gus"), s("info"), s("lunch"))
        .await
        .unwrap();
    assert_eq!(broadcast.undelivered, ["ann"]);
    assert_eq!(broadcast.recipients, 5);
    // Ann reads all ten; read messages then make room for new ones.
    let read = hub.check_messages(Some(s("shop")), s("ann")).await.unwrap();
    assert_eq!(read.len(), 10, "no unread message was dropped");
    ask("gus", 1).await.unwrap();
    ask("gus", 2).await.unwrap();
    failure(ask("gus", 3).await.unwrap_err(), "inbox_full");
    let unread = hub.check_messages(Some(s("shop")), s("ann")).await.unwrap();
    assert_eq!(unread.len(), 2, "gus's two, in room the read ones made");
}

#[tokio::test]
async fn dot_and_dot_dot_are_not_project_or_session_names() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    for (project, session, field) in [
        (".", "ann", "project_id"),
        ("..", "ann", "project_id"),
        ("shop", "..", "session_name"),
    ] {
        let refused = hub
            .register_agent(Some(s(project)), s(session), s("t"), s("b"), s("d"))
            .await
            .unwrap_err();
        assert!(
            refused.to_string().contains(&format!("`{field}`")),
            "{refused}"
        );
    }
}
