//! The SQLite store's schema: a file of an earlier schema is brought up to date with its tasks,
//! and lists are read through their index.

use super::*;
use a2a_runtime_types::model::{Task, TaskState, TaskStatus};

/// A finished task of `owner` whose status is `age_ms` old.
fn finished(id: &str, owner: &str, age_ms: i64) -> StoredTask {
    let mut status = TaskStatus::now(TaskState::Completed, None);
    status.timestamp -= chrono::Duration::milliseconds(age_ms);
    let task = Task {
        id: id.to_owned(),
        context_id: format!("ctx-{id}"),
        status,
        artifacts: vec![],
        history: vec![],
        metadata: None,
        created_at: chrono::Utc::now(),
    };
    StoredTask::new(task, owner)
}

/// A file at schema `migrations` (the first ones of [`MIGRATIONS`]) holding `tasks`, written as
/// that schema wrote them.
async fn file_at(path: &Path, migrations: usize, tasks: &[StoredTask]) {
    std::fs::create_dir_all(path.parent().expect("a directory")).expect("creates");
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut connection = SqliteConnection::connect(&url).await.expect("opens");
    for migration in &MIGRATIONS[..migrations] {
        sqlx::raw_sql(*migration)
            .execute(&mut connection)
            .await
            .expect("migrates");
    }
    sqlx::raw_sql(AssertSqlSafe(format!("PRAGMA user_version = {migrations}")))
        .execute(&mut connection)
        .await
        .expect("records the schema");
    for stored in tasks {
        let row = TaskRow::of(stored).expect("a row");
        sqlx::query(
            "INSERT INTO tasks
                 (id, owner, context_id, state, status_us, finished_us, version, body, agent)
             VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
        )
        .bind(row.id)
        .bind(row.owner)
        .bind(row.context_id)
        .bind(row.state)
        .bind(row.status_us)
        .bind(row.finished_us)
        .bind(row.body)
        .bind(row.agent)
        .execute(&mut connection)
        .await
        .expect("writes a task");
    }
    connection.close().await.expect("closes");
}

/// The ids of the tasks `query` lists, page after page of `page_size`.
async fn listed(store: &SqliteTaskStore, mut query: ListQuery, page_size: usize) -> Vec<String> {
    query.page_size = page_size;
    let mut ids = Vec::new();
    loop {
        let page = store.list(&query).await.expect("lists");
        ids.extend(page.tasks.into_iter().map(|task| task.id));
        match page.next_page_token {
            Some(token) => query.page_token = Some(token),
            None => return ids,
        }
    }
}

#[tokio::test]
async fn a_file_of_the_descending_index_keeps_its_tasks_and_lists_them_newest_first() {
    let dir = std::env::temp_dir().join(format!("sqlite-schema-{}", uuid::Uuid::now_v7()));
    let path = dir.join("tasks.sqlite3");
    let old = [finished("t1", "ada", 30), finished("t2", "ada", 20)];
    file_at(&path, 4, &old).await;
    let store = SqliteTaskStore::open(&path, SqliteStoreOptions::default())
        .await
        .expect("opens and migrates");
    store.create(&finished("t3", "ada", 10)).await.expect("t3");
    store.create(&finished("b1", "bob", 0)).await.expect("b1");
    let query = ListQuery {
        owner: Some("ada".to_owned()),
        agent: Some(String::new()),
        ..ListQuery::default()
    };
    assert_eq!(listed(&store, query.clone(), 1).await, ["t3", "t2", "t1"]);
    assert_eq!(listed(&store, query, 100).await, ["t3", "t2", "t1"]);
    let schema: String =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE name = 'tasks_by_agent_owner'")
            .fetch_one(&store.reads)
            .await
            .expect("the index");
    assert!(
        schema.ends_with("(agent, owner, status_us, id)"),
        "{schema}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_page_of_a_list_is_read_through_the_index_without_sorting() {
    let dir = std::env::temp_dir().join(format!("sqlite-plan-{}", uuid::Uuid::now_v7()));
    let store = SqliteTaskStore::open(dir.join("tasks.sqlite3"), SqliteStoreOptions::default())
        .await
        .expect("opens");
    let first = ListQuery {
        owner: Some("ada".to_owned()),
        agent: Some(String::new()),
        page_size: 10,
        ..ListQuery::default()
    };
    let next = ListQuery {
        page_token: Some(a2a_runtime_core::task::store::encode_page_token(1, "t1")),
        ..first.clone()
    };
    for query in [first, next] {
        let ListSql { page, .. } = list_sql(&query, "tasks", false).expect("a statement");
        let explained = Statement {
            sql: format!("EXPLAIN QUERY PLAN {}", page.sql),
            values: page.values,
        };
        let plan: Vec<String> = bound(explained)
            .fetch_all(&store.reads)
            .await
            .expect("a plan")
            .iter()
            .map(|row| row.get::<String, _>(3))
            .collect();
        let plan = plan.join("; ");
        assert!(plan.contains("USING INDEX tasks_by_agent_owner"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The record of key `key` for task `task_id`, held for an hour.
fn key_for(key: &str, task_id: &str) -> KeyRecord {
    KeyRecord {
        scope: KeyScope {
            agent: "".into(),
            caller: "principal:ada".into(),
            key: key.into(),
        },
        fingerprint: format!("fp-{key}"),
        task_id: task_id.to_owned(),
        item: None,
        expires_at: chrono::Utc::now() + chrono::Duration::hours(1),
    }
}

/// A claim round's transaction that fails after its key was written (a trigger refuses the
/// claim's task) is rolled back whole: the claim fails with the database's reason and leaves
/// neither key nor task, every write committed with it reports the same failure and is not
/// stored, the writes that report success are, and the writer goes on committing.
#[tokio::test]
async fn a_failed_claim_round_stores_nothing_it_reports_failed_and_the_writer_goes_on() {
    let dir = std::env::temp_dir().join(format!("sqlite-rollback-{}", uuid::Uuid::now_v7()));
    let path = dir.join("tasks.sqlite3");
    let store = SqliteTaskStore::open(&path, SqliteStoreOptions::default())
        .await
        .expect("opens");
    let url = format!("sqlite://{}", path.display());
    let mut other = SqliteConnection::connect(&url)
        .await
        .expect("a second connection");
    sqlx::raw_sql(
        "CREATE TRIGGER refuse_task BEFORE INSERT ON tasks WHEN NEW.id = 'k-refused'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    )
    .execute(&mut other)
    .await
    .expect("installs the trigger");
    let refused = finished("k-refused", "ada", 0);
    let beside: Vec<StoredTask> = (0..32)
        .map(|i| finished(&format!("beside-{i}"), "ada", 0))
        .collect();
    let refused_key = key_for("refused", "k-refused");
    let claim = store.claim_key(&refused_key, Some(&refused));
    let creates = futures::future::join_all(beside.iter().map(|task| store.create(task)));
    let (claimed, created) = tokio::join!(claim, creates);
    let error = claimed.expect_err("the claim's transaction failed");
    assert!(error.to_string().contains("refused by the test"), "{error}");
    assert!(store.get("k-refused", None).await.expect("reads").is_none());
    assert!(
        store
            .find_key(&refused_key.scope)
            .await
            .expect("reads")
            .is_none(),
        "no key stays"
    );
    for (task, outcome) in beside.iter().zip(created) {
        let stored = store.get(&task.task.id, None).await.expect("reads");
        match outcome {
            Ok(()) => assert!(
                stored.is_some(),
                "{} acknowledged, not stored",
                task.task.id
            ),
            Err(error) => {
                assert!(error.to_string().contains("refused by the test"), "{error}");
                assert!(stored.is_none(), "{} refused, yet stored", task.task.id);
            }
        }
    }
    let after = finished("k-after", "ada", 0);
    let after_key = key_for("after", "k-after");
    let outcome = store
        .claim_key(&after_key, Some(&after))
        .await
        .expect("the writer goes on");
    assert!(matches!(outcome, KeyClaim::Claimed));
    assert!(store.get("k-after", None).await.expect("reads").is_some());
    let _ = std::fs::remove_dir_all(dir);
}
