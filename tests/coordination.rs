//! The coordination hub (`examples/coordination-hub`) served as a process, as coding agents run
//! it, driven through its typed client over MCP and A2A: reaping silent agents, reservations on
//! globs and the lock guard, questions that wait for their answer, a `kill -9` and restart, and
//! two replicas on one Postgres. The official Python clients drive it in `interop.rs`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::client::ClientError;
use coordination_hub::model::{ReservationMode, TodoStatus};
use coordination_hub::{HubClient, Locked};
use serde_json::Value;

const HUB: &str = env!("CARGO_BIN_EXE_hub-under-test");

/// Hostile and careless callers: paths, globs, caps, names.
#[path = "coordination/hostile.rs"]
mod hostile;

#[path = "coordination/across_processes.rs"]
mod across_processes;

/// Liveness, hooks and the overseer's view, as coding agents meet them.
#[path = "coordination/field.rs"]
mod field;

/// Parallel agents in git worktrees of one repository.
#[path = "coordination/worktrees.rs"]
mod worktrees;

/// A hub process on an ephemeral port with `flags`; its base URL.
async fn start(flags: &[&str]) -> (tokio::process::Child, String) {
    a2a_tests::spawn_served_with(HUB, flags).await
}

async fn mcp(base: &str) -> HubClient {
    HubClient::connect_mcp(format!("{}/mcp", base.trim_end_matches('/')))
        .await
        .unwrap()
}

fn s(text: &str) -> String {
    text.to_owned()
}

async fn register(hub: &HubClient, project: &str, session: &str) {
    let registered = hub
        .register_agent(
            Some(s(project)),
            s(session),
            s("t"),
            s("main"),
            format!("{session}'s work"),
        )
        .await
        .unwrap();
    assert_eq!(registered.status, "registered");
}

async fn reserve(
    hub: &HubClient,
    project: &str,
    session: &str,
    path: &str,
    ttl: Option<u64>,
) -> Result<Locked, ClientError> {
    hub.announce_file_change(
        Some(s(project)),
        s(session),
        s(path),
        s("modify"),
        format!("{session} edits {path}"),
        Some(ReservationMode::Exclusive),
        ttl,
    )
    .await
}

/// The structured details of a skill's failure, which must carry `status`.
fn failure(error: ClientError, status: &str) -> Value {
    let ClientError::SkillFailed { data, message, .. } = error else {
        panic!("expected a skill failure, got {error}");
    };
    let data = data.unwrap_or_else(|| panic!("no details with {message:?}"));
    assert_eq!(data["status"], status, "{data}");
    data
}

#[tokio::test]
async fn a_silent_agent_is_reaped_and_its_glob_reservation_released_while_a_renewed_one_stays() {
    let (_hub, base) = start(&["--heartbeat-ttl", "2s"]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", "src/api/**", None)
        .await
        .unwrap();
    // A path under ann's glob conflicts, naming her reservation.
    let refused = reserve(&hub, "shop", "bob", "./src/api/users.rs", None).await;
    let data = failure(refused.unwrap_err(), "conflict");
    assert_eq!(data["lock_info"]["session"], "ann", "{data}");
    assert_eq!(data["lock_info"]["file_path"], "src/api/**", "{data}");
    // A glob that overlaps conflicts too; one beside it does not.
    failure(
        reserve(&hub, "shop", "bob", "src/**/*.rs", None)
            .await
            .unwrap_err(),
        "conflict",
    );
    reserve(&hub, "shop", "bob", "docs/*.md", None)
        .await
        .unwrap();
    // Bob keeps beating past the TTL, ann stays silent.
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(700)).await;
        hub.heartbeat(Some(s("shop")), s("bob")).await.unwrap();
    }
    let active = hub.list_active_agents(Some(s("shop"))).await.unwrap();
    assert_eq!(active.keys().collect::<Vec<_>>(), ["bob"], "{active:?}");
    let reaped = hub.heartbeat(Some(s("shop")), s("ann")).await.unwrap_err();
    failure(reaped, "not_found");
    // Her reservation went with her; bob's own stayed.
    reserve(&hub, "shop", "bob", "src/api/users.rs", None)
        .await
        .unwrap();
    let other = reserve(&hub, "shop", "carl", "docs/*.md", None)
        .await
        .unwrap_err();
    failure(other, "not_found"); // carl never registered
}

/// A typed client over A2A that authenticates with API key `key`.
async fn with_key(base: &str, key: &str) -> HubClient {
    let client = a2a_runtime::client::A2aClient::builder(base)
        .api_key("X-API-Key", key)
        .connect()
        .await
        .unwrap();
    HubClient::from_skills(a2a_runtime::client::SkillClient::a2a(std::sync::Arc::new(
        client,
    )))
}

#[tokio::test]
async fn a_session_belongs_to_the_authenticated_caller_that_registered_it() {
    let keys = "ann=ann-key-0123456789abcdef,bob=bob-key-0123456789abcdef";
    let (_hub, base) = start(&["--api-keys", keys]).await;
    let ann = with_key(&base, "ann-key-0123456789abcdef").await;
    let bob = with_key(&base, "bob-key-0123456789abcdef").await;
    register(&ann, "p", "builder").await;
    // Registering again as the same caller updates; another caller cannot take the name.
    register(&ann, "p", "builder").await;
    let taken = bob
        .register_agent(Some(s("p")), s("builder"), s("t"), s("b"), s("d"))
        .await
        .unwrap_err();
    failure(taken, "conflict");
    // Nor act as it.
    let heartbeat = bob.heartbeat(Some(s("p")), s("builder")).await.unwrap_err();
    failure(heartbeat, "forbidden");
    let lock = reserve(&bob, "p", "builder", "src/lib.rs", None)
        .await
        .unwrap_err();
    failure(lock, "forbidden");
    let inbox = bob
        .check_messages(Some(s("p")), s("builder"))
        .await
        .unwrap_err();
    failure(inbox, "forbidden");
    ann.heartbeat(Some(s("p")), s("builder")).await.unwrap();
    // Without credentials nothing is reached.
    let anonymous = HubClient::connect(&base).await.unwrap();
    let refused = anonymous
        .list_active_agents(Some(s("p")))
        .await
        .unwrap_err();
    assert!(
        !matches!(refused, ClientError::SkillFailed { .. }),
        "{refused}"
    );
}

#[tokio::test]
async fn shared_reservations_stand_together_and_a_reservation_lapses_unless_renewed() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    for session in ["ann", "bob", "carl"] {
        register(&hub, "p", session).await;
    }
    let shared = |session: &'static str, path: &'static str| {
        hub.announce_file_change(
            Some(s("p")),
            s(session),
            s(path),
            s("modify"),
            s("reading"),
            Some(ReservationMode::Shared),
            None,
        )
    };
    shared("ann", "docs/**").await.unwrap();
    shared("bob", "docs/*.md").await.unwrap();
    let exclusive = reserve(&hub, "p", "carl", "docs/guide.md", None)
        .await
        .unwrap_err();
    failure(exclusive, "conflict");
    // ann holds src/x.rs for a second at a time and renews it by announcing again.
    reserve(&hub, "p", "ann", "src/x.rs", Some(1))
        .await
        .unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        failure(
            reserve(&hub, "p", "bob", "src/x.rs", None)
                .await
                .unwrap_err(),
            "conflict",
        );
        reserve(&hub, "p", "ann", "src/x.rs", Some(1))
            .await
            .unwrap();
    }
    // Not renewed, it lapses.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    reserve(&hub, "p", "bob", "src/x.rs", None).await.unwrap();
}

#[tokio::test]
async fn bad_input_is_refused_naming_the_field() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    let bad = hub
        .register_agent(Some(s("shop/../x")), s("ann"), s("t"), s("b"), s("d"))
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("`project_id`"), "{bad}");
    register(&hub, "shop", "ann").await;
    let priority = hub
        .add_todo(Some(s("shop")), s("ann"), s("write tests"), 7)
        .await
        .unwrap_err();
    assert!(priority.to_string().contains("`priority`"), "{priority}");
    let escape = reserve(&hub, "shop", "ann", "../etc/passwd", None)
        .await
        .unwrap_err();
    assert!(
        escape.to_string().contains("inside the repository"),
        "{escape}"
    );
    let glob = reserve(&hub, "shop", "ann", "src/[", None)
        .await
        .unwrap_err();
    assert!(glob.to_string().contains("not a valid glob"), "{glob}");
    let unknown = hub
        .update_todo(
            Some(s("shop")),
            s("ann"),
            s("todo-nope"),
            TodoStatus::Completed,
        )
        .await
        .unwrap_err();
    failure(unknown, "not_found");
    let missing = hub
        .query_interface(Some(s("shop")), s("Usr"))
        .await
        .unwrap_err();
    assert_eq!(
        failure(missing, "not_found")["similar"],
        serde_json::json!([])
    );
}

#[tokio::test]
async fn a_broadcast_is_charged_per_recipient_to_the_callers_rate() {
    // A burst of 5 calls, one more each second: three registrations and the broadcast's own
    // call leave one, and a broadcast to two agents costs two more.
    let (_hub, base) = start(&[
        "--tasks-per-second-per-caller",
        "1",
        "--task-burst-per-caller",
        "5",
    ])
    .await;
    let hub = mcp(&base).await;
    for session in ["ann", "bob", "carl"] {
        register(&hub, "p", session).await;
    }
    let refused = hub
        .broadcast_message(Some(s("p")), s("ann"), s("info"), s("hello all"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("cannot spend 2 more"),
        "{refused}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    let sent = hub
        .broadcast_message(Some(s("p")), s("ann"), s("info"), s("hello all"))
        .await
        .unwrap();
    assert_eq!(sent.recipients, 2);
}

#[tokio::test]
async fn the_typed_clients_lock_guard_releases_when_dropped() {
    let (_hub, base) = start(&[]).await;
    let (ann, bob) = (mcp(&base).await, HubClient::connect(&base).await.unwrap());
    register(&ann, "lib", "ann").await;
    register(&bob, "lib", "bob").await;
    let lock = ann
        .lock("lib", "ann", "src/lib.rs", "splitting modules", None)
        .await
        .unwrap();
    assert_eq!(lock.info().file_path, "src/lib.rs");
    // Over A2A the conflict carries the same details.
    let held = bob
        .lock("lib", "bob", "src/lib.rs", "a fix", None)
        .await
        .unwrap_err();
    assert_eq!(failure(held, "conflict")["lock_info"]["session"], "ann");
    drop(lock);
    let mut taken = None;
    for _ in 0..50 {
        match bob.lock("lib", "bob", "src/lib.rs", "a fix", None).await {
            Ok(lock) => {
                taken = Some(lock);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let taken = taken.expect("the dropped guard released the file");
    let released = taken.release().await.unwrap();
    assert_eq!(released.status, "released");
}

#[tokio::test]
async fn an_a2a_follower_is_pushed_each_new_message_as_it_arrives() {
    use a2a_runtime::client::{A2aClient, StreamEvent};
    use a2a_runtime::futures::StreamExt as _;
    use a2a_runtime::model::PartContent;
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    register(&hub, "p", "ann").await;
    register(&hub, "p", "bob").await;
    hub.broadcast_message(Some(s("p")), s("bob"), s("info"), s("before"))
        .await
        .unwrap();
    let a2a = A2aClient::connect(&base).await.unwrap();
    let input = serde_json::json!({"project_id": "p", "session_name": "ann", "for_seconds": 20});
    let mut message = a2a_runtime::Message::user(vec![a2a_runtime::Part::data(input)]);
    message.metadata = Some(
        [(s("skill"), serde_json::json!("follow_inbox"))]
            .into_iter()
            .collect(),
    );
    let mut events = a2a.send_streaming(message).await.unwrap();
    // Each message is an artifact chunk as it arrives: the unread one first, then one sent
    // while the stream is open.
    let mut seen = Vec::new();
    let mut task_id = None;
    while seen.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(10), events.next())
            .await
            .expect("a message is pushed in time")
            .unwrap()
            .unwrap();
        match event {
            StreamEvent::Task(task) => task_id = Some(task.id.clone()),
            StreamEvent::Status(update) => task_id = Some(update.task_id.clone()),
            StreamEvent::Artifact(update) => {
                for part in &update.artifact.parts {
                    if let PartContent::Data(message) = &part.content {
                        seen.push(message["content"].as_str().unwrap().to_owned());
                    }
                }
                if seen == ["before"] {
                    hub.broadcast_message(Some(s("p")), s("bob"), s("info"), s("while following"))
                        .await
                        .unwrap();
                }
            }
            StreamEvent::Message(_) => {}
        }
    }
    assert_eq!(seen, ["before", "while following"]);
    // Sent while followed, they are read: nothing is left for check_messages.
    assert!(
        hub.check_messages(Some(s("p")), s("ann"))
            .await
            .unwrap()
            .is_empty()
    );
    a2a.cancel_task(&task_id.unwrap()).await.unwrap();
}

#[tokio::test]
async fn a_question_waits_for_its_answer_and_times_out_without_one() {
    let (_hub, base) = start(&[]).await;
    let (ann, bob) = (mcp(&base).await, mcp(&base).await);
    register(&ann, "p", "ann").await;
    register(&bob, "p", "bob").await;
    let asking = tokio::spawn({
        let ann = ann.clone();
        async move {
            ann.query_agent(
                Some(s("p")),
                s("ann"),
                s("bob"),
                s("interface"),
                s("User fields?"),
                None,
                Some(20),
            )
            .await
        }
    });
    // Bob finds the question in his inbox and answers it.
    let mut question = None;
    for _ in 0..100 {
        let unread = bob.check_messages(Some(s("p")), s("bob")).await.unwrap();
        if let Some(first) = unread.into_iter().next() {
            question = Some(first);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let question = question.expect("the question arrives");
    assert_eq!(
        (question.from.as_str(), question.content.as_str()),
        ("ann", "User fields?")
    );
    assert!(
        bob.check_messages(Some(s("p")), s("bob"))
            .await
            .unwrap()
            .is_empty(),
        "read once"
    );
    bob.respond_to_query(
        Some(s("p")),
        s("bob"),
        s("ann"),
        question.id.clone(),
        s("id, email"),
    )
    .await
    .unwrap();
    let answered = asking.await.unwrap().unwrap();
    assert_eq!(answered.status, "received");
    assert_eq!(answered.response.as_deref(), Some("id, email"));
    assert_eq!(answered.message_id, question.id);
    // The answer is in ann's inbox too.
    let inbox = ann.check_messages(Some(s("p")), s("ann")).await.unwrap();
    assert_eq!(inbox[0].in_reply_to.as_deref(), Some(question.id.as_str()));
    let unanswered = ann
        .query_agent(
            Some(s("p")),
            s("ann"),
            s("bob"),
            s("status"),
            s("done?"),
            Some(true),
            Some(1),
        )
        .await
        .unwrap_err();
    failure(unanswered, "timeout");
}

#[test]
fn globs_overlap_exactly_when_a_path_matches_both() {
    for (a, b) in [
        ("src/api/**", "src/**/*.rs"),
        ("src/api/**", "src/api/users.rs"),
        ("src/*.rs", "src/main.rs"),
        ("**", "README.md"),
        ("src/a*", "src/*b"),
        ("src/[abc].rs", "src/[!a].rs"),
        ("src/{lib,main}.rs", "src/main.rs"),
        ("docs/**/*.md", "docs/guide.md"),
        ("src/?.rs", "src/x.rs"),
        // A range too wide to list is not missed.
        ("src/[a-\u{10000}].rs", "src/x.rs"),
        // Braces inside a class are characters: two spellings of the file `src/{x}.rs`.
        ("src/[{]x[}].rs", "src/[{][x][}].rs"),
        // A file's real name, escaped, is that file.
        ("app/[[]id]/page.tsx", "app/[[]id[]]/page.tsx"),
        // Classes compared as sets: ranges meeting at one character.
        ("src/[a-m].rs", "src/[m-z].rs"),
        ("src/[a-z0-9].rs", "src/[!a-y].rs"),
    ] {
        assert!(
            coordination_hub::glob::intersect(a, b),
            "{a} and {b} share a path"
        );
        assert!(
            coordination_hub::glob::intersect(b, a),
            "{b} and {a} share a path"
        );
    }
    for (a, b) in [
        ("src/*.rs", "src/*.ts"),
        ("src/*.rs", "src/a/b.rs"),
        ("docs/**", "src/main.rs"),
        ("src/[ab].rs", "src/c.rs"),
        ("src/{lib,main}.rs", "src/mod.rs"),
        ("src/?.rs", "src/ab.rs"),
        ("src/a/*", "src/b/*"),
        ("src/[{]x[}].rs", "src/x.rs"),
        ("app/[[]id[]]/page.tsx", "app/i/page.tsx"),
        ("src/[a-l].rs", "src/[m-z].rs"),
        ("src/[a-c].rs", "src/[!a-z].rs"),
    ] {
        assert!(
            !coordination_hub::glob::intersect(a, b),
            "{a} and {b} share no path"
        );
        assert!(
            !coordination_hub::glob::intersect(b, a),
            "{b} and {a} share no path"
        );
    }
}
