//! Faults under load through the balancer: a rolling restart, a replica killed, the database
//! restarted. Each replica is a real process; the callers retry under idempotency keys where
//! a client would.

use std::collections::HashSet;

use a2a_tests::cluster::Cluster;
use serde_json::json;

use super::load::Load;

const HOST: &str = env!("CARGO_BIN_EXE_interop-host");

/// Limits that leave the load alone: the faults are what is tested.
const UNLIMITED: [&str; 6] = [
    "--tasks-per-second-per-caller",
    "1000000",
    "--task-burst-per-caller",
    "1000000",
    "--max-running-per-caller",
    "100000",
];

#[tokio::test]
async fn a_rolling_restart_under_load_fails_no_request() {
    let Some(cluster) = super::cluster::three("cluster_rolling", &UNLIMITED).await else {
        return;
    };
    // One attempt per request: any request the restart fails is counted.
    let load = Load::start(&cluster, 4, 1);
    load.flowing(50).await;
    for replica in 0..3 {
        cluster.stop(replica);
        cluster.stopped(replica).await;
        load.flowing(20).await;
        cluster.start(replica);
        load.flowing(20).await;
    }
    let outcome = load.finish().await;
    assert!(
        outcome.failed.is_empty(),
        "{} of {} failed: {:?}",
        outcome.failed.len(),
        outcome.answered.len() + outcome.failed.len(),
        &outcome.failed[..outcome.failed.len().min(5)]
    );
    assert!(outcome.answered.len() >= 170, "{}", outcome.answered.len());
}

#[tokio::test]
async fn a_replica_killed_under_load_loses_and_duplicates_no_task() {
    let Some(cluster) = super::cluster::three("cluster_killed", &UNLIMITED).await else {
        return;
    };
    let url = cluster.database.clone();
    // Retried under its key until answered, as a client does after a dropped connection.
    let load = Load::start(&cluster, 4, 100);
    load.flowing(50).await;
    cluster.kill(1);
    load.flowing(50).await;
    cluster.start(1);
    load.flowing(50).await;
    let outcome = load.finish().await;
    assert!(outcome.unanswered.is_empty(), "{:?}", outcome.unanswered);
    // Every request has its own task, and the store holds exactly those: none lost, none made
    // twice by a retry.
    let told: HashSet<&String> = outcome.answered.values().collect();
    assert_eq!(told.len(), outcome.answered.len());
    let stored = stored_tasks(&url).await;
    assert_eq!(
        stored,
        told.iter().map(|id| (*id).clone()).collect::<HashSet<_>>()
    );
    let reader = cluster.agent("hello", a2a_tests::cluster::ALICE);
    for id in told.iter().take(20) {
        let read = reader.rpc("GetTask", json!({"id": id})).await;
        assert!(read["result"]["id"] == **id, "{read}");
    }
}

/// The ids of every task in the database at `url`.
async fn stored_tasks(url: &str) -> HashSet<String> {
    use sqlx::Connection as _;
    let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
    let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM a2a_tasks")
        .fetch_all(&mut connection)
        .await
        .unwrap();
    ids.into_iter().collect()
}

#[tokio::test]
async fn the_database_restarted_under_load_refuses_clearly_stores_what_it_acknowledged_and_resumes()
{
    if !Cluster::available("outage") {
        return;
    }
    let Some(database) = a2a_tests::postgres::OwnServer::start("outage") else {
        return;
    };
    let cluster = Cluster::up(HOST, &database.url, 3, &UNLIMITED);
    let load = Load::start(&cluster, 4, 1);
    load.flowing(50).await;
    database.stop();
    // Longer than a write may take to be confirmed (5 s): shorter outages only delay answers.
    tokio::time::sleep(std::time::Duration::from_secs(7)).await;
    let before = load.answered();
    database.resume();
    // Service resumes by itself.
    load.flowing(50).await;
    let outcome = load.finish().await;
    assert!(!outcome.failed.is_empty(), "the outage was felt");
    for failed in &outcome.failed {
        assert!(
            failed.contains("TASK_NOT_STORED") || failed.contains("HTTP 503"),
            "a clear refusal: {failed}"
        );
    }
    assert!(outcome.answered.len() >= before + 50);
    // Nothing acknowledged that the store does not hold.
    let stored = stored_tasks(&database.url).await;
    let missing: Vec<_> = outcome
        .answered
        .values()
        .filter(|id| !stored.contains(*id))
        .collect();
    assert!(missing.is_empty(), "acknowledged, not stored: {missing:?}");
}
