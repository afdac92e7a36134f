//! The task store contract (`a2a_runtime::store::testing`) on every backend, and what only durable
//! stores do (reopening, one process per file, retention).

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::Arc;

use a2a_runtime::{
    store::InMemoryTaskStore, store::MemoryStoreLimits, store::PostgresStoreOptions,
    store::PostgresTaskStore, store::SqliteStoreOptions, store::SqliteTaskStore, store::TaskStore,
};

#[tokio::test]
async fn the_memory_store_keeps_the_store_contract() {
    a2a_runtime::store::testing::run(Arc::new(InMemoryTaskStore::new(
        MemoryStoreLimits::default(),
    )))
    .await;
}

#[path = "stores/opened_once.rs"]
mod opened_once;

/// A fresh directory under the system's temporary one for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    a2a_tests::scratch_named(&format!("store-{name}"))
}

#[tokio::test]
async fn the_sqlite_store_keeps_the_store_contract() {
    let dir = scratch("suite");
    let store = SqliteTaskStore::open(dir.join("tasks.sqlite3"), SqliteStoreOptions::default())
        .await
        .expect("opens");
    a2a_runtime::store::testing::run(Arc::new(store)).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn the_postgres_store_keeps_the_store_contract() {
    let Some(url) = a2a_tests::postgres::fresh_database("suite").await else {
        return;
    };
    let store = PostgresTaskStore::connect(&url, PostgresStoreOptions::default())
        .await
        .expect("connects");
    a2a_runtime::store::testing::run(Arc::new(store)).await;
}

#[tokio::test]
async fn postgres_replicas_migrate_once_and_share_tasks_at_their_versions() {
    use a2a_runtime::TaskState;
    let Some(url) = a2a_tests::postgres::fresh_database("replicas").await else {
        return;
    };
    // Started together, as replicas are: the schema is created once.
    let (a, b) = tokio::join!(
        PostgresTaskStore::connect(&url, PostgresStoreOptions::default()),
        PostgresTaskStore::connect(&url, PostgresStoreOptions::default()),
    );
    let (a, b) = (a.expect("a connects"), b.expect("b connects"));
    let mut task = a2a_runtime::store::testing::task("shared", "alice", TaskState::Working, 0, 2);
    a.create(&task).await.unwrap();
    let seen = b
        .get("shared", None)
        .await
        .unwrap()
        .expect("b sees a's task");
    assert_eq!(seen.task, task.task);
    task.version = 1;
    b.update(&task).await.unwrap();
    let stale = a.update(&task).await.expect_err("a's write is stale");
    assert!(
        matches!(
            stale,
            a2a_runtime::store::StoreError::Conflict { actual: 2, .. }
        ),
        "{stale}"
    );
}

#[tokio::test]
async fn a_sqlite_file_keeps_its_tasks_and_belongs_to_one_process_at_a_time() {
    use a2a_runtime::TaskState;
    let dir = scratch("reopen");
    let path = dir.join("tasks.sqlite3");
    let task = a2a_runtime::store::testing::task("kept", "alice", TaskState::Completed, 0, 3);
    {
        let store = SqliteTaskStore::open(&path, SqliteStoreOptions::default())
            .await
            .expect("opens");
        store.create(&task).await.expect("create");
        let second = SqliteTaskStore::open(&path, SqliteStoreOptions::default()).await;
        let error = second.expect_err("a second opener is refused").to_string();
        assert!(
            error.contains("in use by another server process"),
            "{error}"
        );
    }
    // Closed (dropped): the file opens again with its task, at its version.
    let store = SqliteTaskStore::open(&path, SqliteStoreOptions::default())
        .await
        .expect("reopens");
    let stored = store.get("kept", None).await.expect("get").expect("kept");
    assert_eq!(stored.task, task.task);
    assert_eq!(stored.version, 1);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn sqlite_retention_forgets_the_oldest_finished_tasks_beyond_its_limits() {
    use a2a_runtime::TaskState;
    let dir = scratch("retention");
    let mut options = SqliteStoreOptions::default();
    options.max_finished = Some(2);
    let store = SqliteTaskStore::open(dir.join("tasks.sqlite3"), options)
        .await
        .expect("opens");
    for i in 0..4 {
        let task =
            a2a_runtime::store::testing::task(&format!("f{i}"), "a", TaskState::Completed, 0, 0);
        store.create(&task).await.unwrap();
    }
    let running = a2a_runtime::store::testing::task("r", "a", TaskState::Working, 0, 0);
    store.create(&running).await.unwrap();
    assert_eq!(store.sweep().await.unwrap(), 2);
    assert!(
        store.get("f0", None).await.unwrap().is_none(),
        "the oldest went first"
    );
    assert!(store.get("f3", None).await.unwrap().is_some());
    assert!(
        store.get("r", None).await.unwrap().is_some(),
        "live work is never swept"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn memory_records_keep_the_records_contract() {
    let records = a2a_runtime::records::Records::memory();
    a2a_runtime::records::testing::run(records.clone(), records).await;
}

#[tokio::test]
async fn sqlite_records_shared_by_two_handles_keep_the_records_contract() {
    use a2a_runtime::records::Records;
    let dir = scratch("records");
    let path = dir.join("records.sqlite3");
    let (one, other) = (
        Records::sqlite(&path).await.unwrap(),
        Records::sqlite(&path).await.unwrap(),
    );
    a2a_runtime::records::testing::run(one, other).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn postgres_records_shared_by_two_replicas_keep_the_records_contract() {
    use a2a_runtime::records::Records;
    let Some(url) = a2a_tests::postgres::fresh_database("records").await else {
        return;
    };
    let (one, other) = tokio::join!(Records::postgres(&url), Records::postgres(&url));
    a2a_runtime::records::testing::run(one.unwrap(), other.unwrap()).await;
}

/// A records table of an earlier release (its keys in a linguistic collation, no kept counts)
/// is migrated when a replica opens it: keys in byte order, so a key prefix is a range, and a
/// bounded collection counted once at its first bounded write, then kept counted by the
/// database as rows come and go.
#[tokio::test]
async fn a_postgres_records_table_of_an_earlier_release_is_migrated_and_counted() {
    use a2a_runtime::records::{RecordError, Records};
    use sqlx::Connection as _;
    let Some(url) = a2a_tests::postgres::fresh_database("records_migrated").await else {
        return;
    };
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let linguistic: String = sqlx::query_scalar(
        "SELECT collname FROM pg_collation WHERE collname IN ('en-x-icu', 'und-x-icu', 'en_US.utf8')
         ORDER BY collname LIMIT 1",
    )
    .fetch_one(&mut conn)
    .await
    .expect("the server has a linguistic collation (ICU or en_US)");
    let create = format!(
        "CREATE TABLE a2a_records (collection TEXT NOT NULL, key TEXT COLLATE \"{linguistic}\" \
         NOT NULL, value TEXT NOT NULL, updated_us BIGINT NOT NULL, version BIGINT NOT NULL \
         DEFAULT 0, expires_us BIGINT, PRIMARY KEY (collection, key))"
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(create))
        .execute(&mut conn)
        .await
        .unwrap();
    for key in ["ann/1", "Ann/2", "ann-3", "anna/4", "ann/5"] {
        sqlx::query("INSERT INTO a2a_records VALUES ('capped', $1, '1', 1, 1, NULL)")
            .bind(key)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    // Replicas started together migrate once.
    let (one, other) = tokio::join!(Records::postgres(&url), Records::postgres(&url));
    let (one, other) = (one.unwrap(), other.unwrap());
    let byte_order: bool = sqlx::query_scalar(
        "SELECT attcollation = (SELECT oid FROM pg_collation WHERE collname = 'C'
                                AND collnamespace = 'pg_catalog'::regnamespace)
         FROM pg_attribute WHERE attrelid = 'a2a_records'::regclass AND attname = 'key'",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(byte_order, "the keys are compared by their bytes");
    assert_eq!(one.count("capped", "ann/").await.unwrap(), 2);
    assert_eq!(one.count("capped", "ann").await.unwrap(), 4);
    assert_eq!(one.count("capped", "").await.unwrap(), 5);
    // Five stored before any count was kept: counted at the first bounded write.
    let full = one.put("capped", "bob/1", &1).at_most(5).await.unwrap_err();
    assert!(matches!(full, RecordError::Full { limit: 5, .. }), "{full}");
    other.put("capped", "bob/1", &1).at_most(6).await.unwrap();
    // A delete and an unbounded write by the other replica are counted by the database.
    assert!(other.delete("capped", "ann-3").await.unwrap());
    other.put("capped", "carl/1", &1).await.unwrap();
    let full = one.put("capped", "bob/2", &1).at_most(6).await.unwrap_err();
    assert!(matches!(full, RecordError::Full { limit: 6, .. }), "{full}");
    assert!(one.delete("capped", "carl/1").await.unwrap());
    one.put("capped", "bob/2", &1).at_most(6).await.unwrap();
    let kept: i64 =
        sqlx::query_scalar("SELECT stored FROM a2a_record_counts WHERE collection = 'capped'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(kept, 6);
}
