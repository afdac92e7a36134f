//! The task store contract as one suite (the `testing` feature): conditional writes (concurrent
//! ones included), owners, bounded history reads, lists (filters, paging, byte bounds), delete,
//! the unfinished tasks a restart settles, every part kind kept as is, and idempotency keys
//! (written with their tasks, scoped, expiring, one winner among concurrent claims). Every store of this
//! workspace passes it; run it on yours from a test:
//!
//! ```no_run
//! # async fn check(store: std::sync::Arc<dyn a2a_runtime::store::TaskStore>) {
//! a2a_runtime::store::testing::run(store).await; // panics naming the first broken rule
//! # }
//! ```

#![allow(clippy::unwrap_used, clippy::panic)] // A test suite: a failed step fails loudly.

mod keys;

use std::sync::Arc;

use chrono::{Duration as Span, Utc};

use crate::model::{
    Artifact, Message, Part, PushAuthentication, PushConfig, PushWire, Task, TaskState, TaskStatus,
};
use crate::store::{ListQuery, StoreError, StoredTask, TaskStore};

/// A task of `owner` in `state`, not stored yet, its status `age_ms` milliseconds old, with
/// `messages` messages.
pub fn task(id: &str, owner: &str, state: TaskState, age_ms: i64, messages: usize) -> StoredTask {
    let mut status = TaskStatus::now(state, None);
    status.timestamp = Utc::now() - Span::milliseconds(age_ms);
    let task = Task {
        id: id.into(),
        context_id: format!("ctx-{owner}"),
        status,
        artifacts: vec![],
        history: (0..messages)
            .map(|i| Message::agent_text(format!("message {i}")))
            .collect(),
        metadata: None,
        created_at: Utc::now() - Span::milliseconds(age_ms),
    };
    StoredTask::new(task, owner)
}

/// Runs every check against `store`, which must start empty.
pub async fn run(store: Arc<dyn TaskStore>) {
    conditional_writes(&*store).await;
    concurrent_writers_cannot_both_win(Arc::clone(&store)).await;
    reads_bound_the_history(&*store).await;
    every_part_kind_is_kept(&*store).await;
    push_configs_are_kept(&*store).await;
    lists_filter_page_and_bound(&*store).await;
    agents_keep_their_tasks_apart(&*store).await;
    unfinished_and_delete(&*store).await;
    keys::run(store).await;
}

/// Each task keeps its agent, written and updated, and a list by agent shows only that agent's
/// tasks, even of one owner and one context.
async fn agents_keep_their_tasks_apart(store: &dyn TaskStore) {
    for (id, agent) in [
        ("ag-c1", "currency"),
        ("ag-c2", "currency"),
        ("ag-b1", "booking"),
    ] {
        let mut t = task(id, "carol", TaskState::Working, 0, 1);
        t.agent = agent.into();
        store.create(&t).await.expect("create");
    }
    let mut stored = store.get("ag-b1", None).await.unwrap().expect("stored");
    assert_eq!(
        stored.agent, "booking",
        "a task is read back with its agent"
    );
    stored.task_mut().status = TaskStatus::now(TaskState::Completed, None);
    store.update(&stored).await.expect("update");
    let updated = store.get("ag-b1", None).await.unwrap().expect("stored");
    assert_eq!(updated.agent, "booking", "an update keeps the agent");
    let listed = |agent: &str| ListQuery {
        owner: Some("carol".into()),
        agent: Some(agent.into()),
        context_id: Some("ctx-carol".into()),
        page_size: 100,
        ..ListQuery::default()
    };
    let ids = |page: crate::store::TaskPage| -> Vec<String> {
        page.tasks.into_iter().map(|t| t.id).collect()
    };
    let currency = store.list(&listed("currency")).await.unwrap();
    assert_eq!(currency.total_size, 2, "the count is the agent's");
    assert_eq!(ids(currency), ["ag-c2", "ag-c1"]);
    assert_eq!(
        ids(store.list(&listed("booking")).await.unwrap()),
        ["ag-b1"]
    );
    assert!(
        ids(store.list(&listed("")).await.unwrap()).is_empty(),
        "a server of one agent (the empty key) sees no hosted agent's tasks"
    );
    let every = store
        .list(&ListQuery {
            agent: None,
            ..listed("")
        })
        .await
        .unwrap();
    assert_eq!(every.total_size, 3, "no agent filter lists every agent's");
    let unfinished = store.unfinished().await.unwrap();
    assert!(
        unfinished
            .iter()
            .any(|s| s.task.id == "ag-c1" && s.agent == "currency"),
        "unfinished tasks carry their agent, for that agent's manager to settle"
    );
    for id in ["ag-c1", "ag-c2", "ag-b1"] {
        store.delete(id).await.unwrap();
    }
}

async fn conditional_writes(store: &dyn TaskStore) {
    let mut t = task("cw", "alice", TaskState::Submitted, 0, 1);
    store.create(&t).await.expect("create");
    let stored = store.get("cw", None).await.expect("get").expect("stored");
    assert_eq!(stored.version, 1, "a new task is version 1");
    assert_eq!(stored.task, t.task, "read back as written");
    assert_eq!(stored.owner, "alice", "with its owner");
    assert!(
        matches!(store.create(&t).await, Err(StoreError::Exists(id)) if id == "cw"),
        "create of a stored id"
    );
    t.task_mut().status = TaskStatus::now(TaskState::Working, None);
    t.version = 1;
    store
        .update(&t)
        .await
        .expect("update at the stored version");
    assert_eq!(store.get("cw", None).await.unwrap().unwrap().version, 2);
    t.task_mut().status = TaskStatus::now(TaskState::Completed, None);
    match store.update(&t).await {
        Err(StoreError::Conflict {
            expected: 1,
            actual: 2,
            ..
        }) => {}
        other => panic!("a stale write must be a conflict, got {other:?}"),
    }
    let kept = store.get("cw", None).await.unwrap().unwrap();
    assert_eq!(
        kept.task.status.state,
        TaskState::Working,
        "a refused write changes nothing"
    );
    let mut unknown = task("nope", "alice", TaskState::Working, 0, 0);
    unknown.version = 1;
    assert!(
        matches!(store.update(&unknown).await,
            Err(StoreError::Missing(id)) if id == "nope"),
        "update of an unknown id"
    );
    assert!(store.get("nope", None).await.unwrap().is_none());
    assert!(store.delete("cw").await.unwrap());
}

async fn concurrent_writers_cannot_both_win(store: Arc<dyn TaskStore>) {
    let t = task("race", "alice", TaskState::Working, 0, 0);
    store.create(&t).await.expect("create");
    let writers = (0..8).map(|i| {
        let store = Arc::clone(&store);
        let mut t = t.clone();
        t.version = 1;
        t.task_mut().metadata = Some(
            serde_json::json!({ "writer": i })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        tokio::spawn(async move { store.update(&t).await.map(|()| i) })
    });
    let mut winners = Vec::new();
    for writer in writers {
        match writer.await.expect("writer task") {
            Ok(i) => winners.push(i),
            Err(StoreError::Conflict { .. }) => {}
            Err(other) => panic!("a losing writer gets a conflict, got {other:?}"),
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "exactly one of 8 writers at version 1 wins: {winners:?}"
    );
    let stored = store.get("race", None).await.unwrap().unwrap();
    assert_eq!(stored.version, 2);
    assert_eq!(
        stored.task.metadata.as_ref().and_then(|m| m.get("writer")),
        Some(&serde_json::json!(winners[0])),
        "the winner's write is the one stored"
    );
    assert!(store.delete("race").await.unwrap());
}

async fn reads_bound_the_history(store: &dyn TaskStore) {
    let t = task("hist", "alice", TaskState::Completed, 0, 5);
    store.create(&t).await.unwrap();
    let all = store.get("hist", None).await.unwrap().unwrap().task;
    assert_eq!(all.history.len(), 5);
    let last_two = store.get("hist", Some(2)).await.unwrap().unwrap().task;
    assert_eq!(
        last_two.history,
        t.task.history[3..].to_vec(),
        "the most recent ones"
    );
    let none = store.get("hist", Some(0)).await.unwrap().unwrap().task;
    assert!(none.history.is_empty());
    assert!(store.delete("hist").await.unwrap());
}

async fn every_part_kind_is_kept(store: &dyn TaskStore) {
    let mut t = task("parts", "alice", TaskState::Completed, 0, 0);
    let mut file = Part::raw(vec![0, 1, 2, 254, 255], "application/octet-stream");
    file.filename = Some("blob.bin".into());
    let mut message = Message::agent(vec![
        Part::text("text with ünïcode and \"quotes\""),
        file.clone(),
        Part::url("https://example.com/report.pdf"),
        Part::data(serde_json::json!({"nested": {"list": [1, 2.5, null, true]}})),
    ]);
    message.metadata = serde_json::json!({"skill": "x"}).as_object().cloned();
    message.reference_task_ids = vec!["other".into()];
    t.task_mut().history.push(message.clone());
    t.task_mut().status.message = Some(message);
    t.task_mut()
        .artifacts
        .push(Artifact::new(vec![file]).with_name("out"));
    t.task_mut().metadata = serde_json::json!({"k": "v"}).as_object().cloned();
    store.create(&t).await.unwrap();
    let back = store.get("parts", None).await.unwrap().unwrap().task;
    assert_eq!(
        back, t.task,
        "every field and part kind comes back unchanged"
    );
    assert!(store.delete("parts").await.unwrap());
}

async fn push_configs_are_kept(store: &dyn TaskStore) {
    let mut t = task("push", "alice", TaskState::Working, 0, 1);
    t.push_configs = vec![
        PushConfig {
            id: "c1".into(),
            url: "https://hooks.example/a2a".into(),
            token: Some("tok".into()),
            authentication: Some(PushAuthentication {
                schemes: vec!["Bearer".into()],
                credentials: Some("secret".into()),
            }),
            wire: PushWire::V1,
        },
        PushConfig {
            id: "c2".into(),
            url: "http://hooks.example/draft".into(),
            token: None,
            authentication: None,
            wire: PushWire::Draft {
                task_alias: "client-id".into(),
            },
        },
    ];
    store.create(&t).await.expect("create");
    let stored = store.get("push", Some(0)).await.unwrap().unwrap();
    assert_eq!(stored.push_configs, t.push_configs, "configs as written");
    t.push_configs.truncate(1);
    t.version = 1;
    store.update(&t).await.expect("update");
    let stored = store.get("push", None).await.unwrap().unwrap();
    assert_eq!(
        stored.push_configs.len(),
        1,
        "a deleted config stays deleted"
    );
    store.delete("push").await.expect("delete");
}

async fn lists_filter_page_and_bound(store: &dyn TaskStore) {
    // 7 of alice's (newest first: a0 … a6), 3 of bob's.
    for i in 0..7 {
        let state = if i % 2 == 0 {
            TaskState::Completed
        } else {
            TaskState::Working
        };
        store
            .create(&task(&format!("a{i}"), "alice", state, i * 10, 2))
            .await
            .unwrap();
    }
    for i in 0..3 {
        store
            .create(&task(
                &format!("b{i}"),
                "bob",
                TaskState::Completed,
                5 + i * 10,
                0,
            ))
            .await
            .unwrap();
    }
    pages_cover_each_once(store).await;
    filters_select(store).await;
    views_trim_and_bound(store).await;
    for id in ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "b0", "b1", "b2"] {
        assert!(store.delete(id).await.unwrap(), "{id}");
    }
}

/// A listing of `owner`'s tasks, three to a page.
fn owned(owner: &str) -> ListQuery {
    ListQuery {
        owner: Some(owner.into()),
        page_size: 3,
        ..ListQuery::default()
    }
}

async fn pages_cover_each_once(store: &dyn TaskStore) {
    let query = owned;
    // Pages of alice's tasks cover each once, newest first, and never show bob's.
    let mut seen = Vec::new();
    let mut q = query("alice");
    loop {
        let page = store.list(&q).await.expect("list");
        assert_eq!(page.total_size, 7, "total counts every match");
        assert!(page.tasks.len() <= 3);
        seen.extend(page.tasks.into_iter().map(|t| t.id));
        match page.next_page_token {
            Some(token) => q.page_token = Some(token),
            None => break,
        }
    }
    assert_eq!(
        seen,
        ["a0", "a1", "a2", "a3", "a4", "a5", "a6"],
        "newest first, once each"
    );
}

async fn filters_select(store: &dyn TaskStore) {
    let query = owned;
    // Filters.
    let working = store
        .list(&ListQuery {
            state: Some(TaskState::Working),
            page_size: 100,
            ..query("alice")
        })
        .await
        .unwrap();
    assert_eq!(working.total_size, 3);
    assert!(
        working
            .tasks
            .iter()
            .all(|t| t.status.state == TaskState::Working)
    );
    let a3 = store.get("a3", None).await.unwrap().unwrap().task;
    let recent = store
        .list(&ListQuery {
            status_after: Some(a3.status.timestamp),
            page_size: 100,
            ..query("alice")
        })
        .await
        .unwrap();
    let ids: Vec<_> = recent.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["a0", "a1", "a2"], "status changed after a3's");
    let by_context = store
        .list(&ListQuery {
            context_id: Some("ctx-bob".into()),
            page_size: 100,
            owner: None,
            ..ListQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(by_context.total_size, 3, "context filter across owners");
}

async fn views_trim_and_bound(store: &dyn TaskStore) {
    let query = owned;
    // Views: history trimmed, artifacts dropped, pages bounded by bytes (at least one task).
    let trimmed = store
        .list(&ListQuery {
            history_length: Some(1),
            without_artifacts: true,
            page_size: 100,
            ..query("alice")
        })
        .await
        .unwrap();
    assert!(trimmed.tasks.iter().all(|t| t.history.len() == 1));
    let tight = store
        .list(&ListQuery {
            max_bytes: Some(1),
            page_size: 100,
            ..query("alice")
        })
        .await
        .unwrap();
    assert_eq!(
        tight.tasks.len(),
        1,
        "a byte-bounded page still holds one task"
    );
    assert!(tight.next_page_token.is_some());
    assert!(matches!(
        store
            .list(&ListQuery {
                page_token: Some("not-a-token".into()),
                ..query("alice")
            })
            .await,
        Err(StoreError::InvalidPageToken)
    ));
}

async fn unfinished_and_delete(store: &dyn TaskStore) {
    store
        .create(&task("u-working", "alice", TaskState::Working, 0, 0))
        .await
        .unwrap();
    store
        .create(&task("u-waiting", "alice", TaskState::InputRequired, 0, 0))
        .await
        .unwrap();
    store
        .create(&task("u-done", "alice", TaskState::Completed, 0, 0))
        .await
        .unwrap();
    let mut unfinished: Vec<StoredTask> = store.unfinished().await.expect("unfinished");
    unfinished.sort_by(|a, b| a.task.id.cmp(&b.task.id));
    let ids: Vec<_> = unfinished.iter().map(|s| s.task.id.as_str()).collect();
    assert_eq!(ids, ["u-waiting", "u-working"]);
    assert!(unfinished.iter().all(|s| s.version == 1));
    assert!(store.delete("u-done").await.unwrap());
    assert!(!store.delete("u-done").await.unwrap(), "deleting twice");
    assert!(store.get("u-done", None).await.unwrap().is_none());
    store.delete("u-working").await.unwrap();
    store.delete("u-waiting").await.unwrap();
}
