//! A server opens each database once, whatever keeps something in it: beside a SQLite store's
//! tasks one records file that the agent's own records, the authorization server's grants and
//! usage rows share (one writer connection, one background task); on Postgres one pool.

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::server::{ServeConfig, StoreLocation};
use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, start};
use serde_json::json;

use super::scratch;

/// Everything that keeps something beside the tasks, on: usage rows, and (with the server's
/// authorization server) grants.
fn keeping_everything(store: StoreLocation) -> ServeConfig {
    let mut config = ServeConfig::default();
    config.store = Some(store);
    config.observe.usage = true;
    config
}

/// A call (refused for want of a token: a usage row all the same) and a client registration
/// (a grant).
async fn keep_something(server: &TestServer) {
    let sent = server
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "m1", "role": "ROLE_USER",
                "parts": [{"data": {"text": "hi"}}], "metadata": {"skill": "echo"}}}),
        )
        .await;
    assert_eq!(sent["error"]["code"], -32041, "{sent}");
    let registered = server
        .http
        .post(format!("{}oauth/register", server.base))
        .json(&json!({"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "t"}))
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status(), 201);
}

/// Serves the lab keeping its tasks at `store`, with the agent's own records opened before the
/// server as an application does (and returned), and keeps something of every kind.
async fn serve_keeping_everything(store: StoreLocation) -> a2a_runtime::records::Records {
    let config = keeping_everything(store);
    let records = config.open_records("Lab").await.unwrap();
    records.put("notes", "first", &1).await.unwrap();
    let server = Lab
        .server()
        .config(config)
        .authorization_server(OAuthServer::dev_user("alice"));
    keep_something(&start(server).await).await;
    records
}

/// The connections this process holds on the SQLite file `path` (each has it open once).
fn connections_on(path: &std::path::Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| target == path)
        .count()
}

#[tokio::test]
async fn the_agents_records_grants_and_usage_share_one_connection_to_the_records_file() {
    let dir = scratch("opened-once");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let records = serve_keeping_everything(StoreLocation::Sqlite(dir.join("tasks.sqlite3"))).await;
    records.put("notes", "second", &2).await.unwrap();
    // One handle: its writer and at most four readers (its pool's size; how many the
    // background readers open depends on how their reads overlap, which a loaded machine
    // changes). Three handles (the agent's, the grants', usage's) would hold at least six: a
    // writer and a reader each.
    let held = connections_on(&dir.join("records.sqlite3"));
    assert!(
        (1..=5).contains(&held),
        "{held} connections on the records file"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn on_postgres_the_tasks_records_grants_and_usage_share_one_pool() {
    let Some(url) = a2a_tests::postgres::fresh_database("opened_once").await else {
        return;
    };
    let _records = serve_keeping_everything(StoreLocation::Postgres(url.clone())).await;
    // Every connection of this process to the database is of one pool, named once.
    let names = application_names(&url).await;
    assert_eq!(names, ["a2a-runtime"], "the pools connected: {names:?}");
}

/// The application names of the connections to the database at `url`, other than this query's.
async fn application_names(url: &str) -> Vec<String> {
    use sqlx::Row as _;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(url)
        .await
        .unwrap();
    let rows = sqlx::query(
        "SELECT DISTINCT application_name FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
         ORDER BY application_name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    rows.iter().map(|row| row.get::<String, _>(0)).collect()
}
