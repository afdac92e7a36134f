use super::*;

async fn round_trip(records: &Records) {
    records
        .put("agents", "a", &serde_json::json!({"n": 1}))
        .await
        .unwrap();
    records
        .put("agents", "b", &serde_json::json!({"n": 2}))
        .await
        .unwrap();
    records
        .put("agents", "a", &serde_json::json!({"n": 3}))
        .await
        .unwrap();
    records
        .put("tasks", "a", &serde_json::json!({"n": 9}))
        .await
        .unwrap();
    let a: Option<serde_json::Value> = records.get("agents", "a").await.unwrap();
    assert_eq!(a, Some(serde_json::json!({"n": 3})));
    let listed: Vec<serde_json::Value> = records.list("agents", None).await.unwrap();
    assert_eq!(
        listed,
        [serde_json::json!({"n": 3}), serde_json::json!({"n": 2})]
    );
    let one: Vec<serde_json::Value> = records.list("agents", Some(1)).await.unwrap();
    assert_eq!(one.len(), 1);
    assert!(records.delete("agents", "b").await.unwrap());
    assert!(!records.delete("agents", "b").await.unwrap());
    let wrong = records.get::<u64>("agents", "a").await.unwrap_err();
    assert!(wrong.to_string().contains("agents/a"), "{wrong}");
}

#[tokio::test]
async fn memory_and_sqlite_records_keep_list_and_delete_the_same_way() {
    round_trip(&Records::memory()).await;
    let dir = std::env::temp_dir().join(format!("records-{}", a2a_runtime_types::model::new_id()));
    let path = dir.join("records.sqlite3");
    round_trip(&Records::sqlite(&path).await.unwrap()).await;
    // Written values outlive the handle.
    let again = Records::sqlite(&path).await.unwrap();
    let a: Option<serde_json::Value> = again.get("agents", "a").await.unwrap();
    assert_eq!(a, Some(serde_json::json!({"n": 3})));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_sqlite_file_written_before_versions_is_migrated_in_place() {
    let dir = std::env::temp_dir().join(format!("records-{}", a2a_runtime_types::model::new_id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("records.sqlite3");
    {
        use sqlx::Connection as _;
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query(
            "CREATE TABLE records (collection TEXT NOT NULL, key TEXT NOT NULL,
             value TEXT NOT NULL, updated_us INTEGER NOT NULL, PRIMARY KEY (collection, key))",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query("INSERT INTO records VALUES ('c', 'old', '7', 1)")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let records = Records::sqlite(&path).await.unwrap();
    let old: Entry<u32> = records.entry("c", "old").await.unwrap().unwrap();
    assert_eq!((old.value, old.version, old.expires_at), (7, 0, None));
    let version = records.put("c", "old", &8).if_version(0).await.unwrap();
    assert!(version > 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_sqlite_file_written_before_counts_is_counted_once_and_kept_counted() {
    let dir = std::env::temp_dir().join(format!("records-{}", a2a_runtime_types::model::new_id()));
    let path = dir.join("records.sqlite3");
    {
        let records = Records::sqlite(&path).await.unwrap();
        for i in 0..3 {
            records.put("capped", &format!("k{i}"), &i).await.unwrap();
        }
    }
    // As a file of an earlier release: the rows, without counts or the triggers keeping them.
    {
        use sqlx::Connection as _;
        let url = format!("sqlite://{}", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        for ddl in [
            "DROP TRIGGER records_count_insert",
            "DROP TRIGGER records_count_delete",
            "DROP TABLE record_counts",
        ] {
            sqlx::query(ddl).execute(&mut conn).await.unwrap();
        }
    }
    let records = Records::sqlite(&path).await.unwrap();
    let full = records
        .put("capped", "k3", &3)
        .at_most(3)
        .await
        .unwrap_err();
    assert!(matches!(full, RecordError::Full { limit: 3, .. }), "{full}");
    // Trimmed and deleted rows leave the count as they leave the collection.
    for i in 0..5 {
        let key = format!("t{i}");
        records
            .put("trimmed", &key, &i)
            .keep_newest(2)
            .await
            .unwrap();
    }
    records.put("trimmed", "t5", &5).at_most(3).await.unwrap();
    let full = records
        .put("trimmed", "t6", &6)
        .at_most(3)
        .await
        .unwrap_err();
    assert!(matches!(full, RecordError::Full { limit: 3, .. }), "{full}");
    assert!(records.delete("capped", "k0").await.unwrap());
    records.put("capped", "k3", &3).at_most(3).await.unwrap();
    drop(records);
    let _ = std::fs::remove_dir_all(dir);
}

/// Expired records the sweep has not deleted yet are taken off the count of their own key
/// range only, and off their collection's bound (the count reads the key index and the expiry
/// index, never the rows).
#[tokio::test]
async fn unswept_expired_records_leave_only_their_own_ranges_count() {
    let dir = std::env::temp_dir().join(format!("records-{}", a2a_runtime_types::model::new_id()));
    let records = Records::sqlite(dir.join("records.sqlite3"))
        .await
        .unwrap()
        .sweep_every(Duration::from_secs(3600));
    let ttl = Duration::from_millis(100);
    for key in ["ann/1", "bob/2"] {
        records.put("counted", key, &1).await.unwrap();
    }
    for key in ["ann/2", "bob/1"] {
        records.put("counted", key, &1).ttl(ttl).await.unwrap();
    }
    assert_eq!(records.count("counted", "ann/").await.unwrap(), 2);
    tokio::time::sleep(ttl * 2).await;
    assert_eq!(records.count("counted", "ann/").await.unwrap(), 1);
    assert_eq!(records.count("counted", "bob/").await.unwrap(), 1);
    assert_eq!(records.count("counted", "").await.unwrap(), 2);
    // Two live of a bound of three: one more fits, then none.
    records
        .put("counted", "carl/1", &1)
        .at_most(3)
        .await
        .unwrap();
    let full = records
        .put("counted", "carl/2", &1)
        .at_most(3)
        .await
        .unwrap_err();
    assert!(matches!(full, RecordError::Full { limit: 3, .. }), "{full}");
    drop(records);
    let _ = std::fs::remove_dir_all(dir);
}
