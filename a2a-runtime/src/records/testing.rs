//! The [`Records`] contract as one suite (the `testing` feature): versions, conditional writes
//! (concurrent ones included: exactly one winner), expiry and its announcement, bounded
//! collections (trimmed, or refusing new records, exactly under racing writers), change notifications between two handles on one store, and leases. Every
//! backend of this workspace passes it:
//!
//! ```no_run
//! # async fn check(path: &std::path::Path) -> Result<(), a2a_runtime::records::RecordError> {
//! use a2a_runtime::records::Records;
//! // Two handles on one store: as two processes sharing a file, or two replicas a database.
//! let (one, other) = (Records::sqlite(path).await?, Records::sqlite(path).await?);
//! a2a_runtime::records::testing::run(one, other).await; // panics naming the broken rule
//! # Ok(()) }
//! ```

#![allow(clippy::unwrap_used, clippy::panic)] // A test suite: a failed step fails loudly.

use std::collections::HashSet;
use std::time::Duration;

use futures::future::join_all;

use super::{Change, ChangeKind, Changes, LeaseError, RecordError, Records};

/// How long a change may take to reach another handle.
const NOTICE: Duration = Duration::from_secs(5);

/// Runs every check on `one` and `other`, two handles on one store that starts empty (for a
/// store only one process can open, a clone of `one`).
pub async fn run(one: Records, other: Records) {
    let one = one.sweep_every(Duration::from_millis(100));
    let other = other.sweep_every(Duration::from_millis(100));
    versions_only_grow(&one, &other).await;
    conditional_writes(&one).await;
    concurrent_writers_have_one_winner(&one, &other).await;
    names_are_checked(&one).await;
    changes_reach_the_other_handle(&one, &other).await;
    records_expire_and_are_announced(&one, &other).await;
    collections_keep_their_newest(&one, &other).await;
    bounded_collections_refuse_rather_than_evict(&one, &other).await;
    records_are_counted_by_key_prefix(&one, &other).await;
    leases_hold_renew_and_lapse(&one, &other).await;
}

/// Each write gives a version above every earlier one, even for a key deleted and written
/// again, and reads name it.
async fn versions_only_grow(one: &Records, other: &Records) {
    let first = one.put("v", "a", &1).await.unwrap();
    let second = other.put("v", "a", &2).await.unwrap();
    assert!(second > first, "{second} after {first}");
    assert!(one.delete("v", "a").await.unwrap());
    let third = one.put("v", "a", &3).await.unwrap();
    assert!(
        third > second,
        "a key written again after a delete reuses no version"
    );
    let entry = other.entry::<u32>("v", "a").await.unwrap().unwrap();
    assert_eq!(
        (entry.key.as_str(), entry.value, entry.version),
        ("a", 3, third)
    );
    assert_eq!(entry.expires_at, None);
    let other_key = other.put("v", "b", &4).await.unwrap();
    assert!(other_key > third, "versions grow across keys");
    let listed: Vec<u32> = one.list("v", None).await.unwrap();
    assert_eq!(listed, [4, 3], "the most recently written first");
}

/// `if_absent` and `if_version` write only what they promise, and a refusal names the version
/// there; `delete_if` deletes only its version.
async fn conditional_writes(records: &Records) {
    let v1 = records.put("c", "k", &"first").if_absent().await.unwrap();
    let taken = records.put("c", "k", &"second").if_absent().await;
    let Err(RecordError::Conflict { current, .. }) = taken else {
        panic!("an existing record refuses if_absent: {taken:?}");
    };
    assert_eq!(current, Some(v1));
    let v2 = records
        .put("c", "k", &"third")
        .if_version(v1)
        .await
        .unwrap();
    let stale = records.put("c", "k", &"fourth").if_version(v1).await;
    assert!(
        matches!(stale, Err(RecordError::Conflict { current: Some(v), .. }) if v == v2),
        "a stale version is refused naming the current one: {stale:?}"
    );
    let absent = records.put("c", "none", &"x").if_version(v2).await;
    assert!(
        matches!(absent, Err(RecordError::Conflict { current: None, .. })),
        "if_version never creates a record: {absent:?}"
    );
    assert_eq!(records.get::<String>("c", "none").await.unwrap(), None);
    assert!(
        !records.delete_if("c", "k", v1).await.unwrap(),
        "a stale delete does nothing"
    );
    assert_eq!(
        records.get::<String>("c", "k").await.unwrap().as_deref(),
        Some("third")
    );
    assert!(records.delete_if("c", "k", v2).await.unwrap());
    assert!(!records.delete("c", "k").await.unwrap(), "deleted once");
}

/// Of 16 writers racing from one version (through both handles), exactly one wins; so does
/// exactly one of 16 racing to create a record.
async fn concurrent_writers_have_one_winner(one: &Records, other: &Records) {
    let base = one.put("race", "cas", &0).await.unwrap();
    let writes = (0..16).map(|i| {
        let records = if i % 2 == 0 { one } else { other };
        async move { records.put("race", "cas", &i).if_version(base).await }
    });
    let results = join_all(writes).await;
    let winners = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(winners, 1, "compare-and-set has one winner: {results:?}");
    for result in &results {
        if let Err(error) = result {
            assert!(matches!(error, RecordError::Conflict { .. }), "{error}");
        }
    }
    let creates = (0..16).map(|i| {
        let records = if i % 2 == 0 { one } else { other };
        async move { records.put("race", "new", &i).if_absent().await }
    });
    let created = join_all(creates).await;
    assert_eq!(
        created.iter().filter(|r| r.is_ok()).count(),
        1,
        "{created:?}"
    );
}

/// Empty and overlong names are refused, naming what is wrong.
async fn names_are_checked(records: &Records) {
    let empty = records.put("c", "", &1).await.unwrap_err();
    assert!(matches!(empty, RecordError::InvalidName(_)), "{empty}");
    assert!(empty.to_string().contains("key is empty"), "{empty}");
    let long = "k".repeat(super::MAX_NAME_BYTES + 1);
    let overlong = records.put(&long, "k", &1).await.unwrap_err();
    assert!(overlong.to_string().contains("collection is"), "{overlong}");
}

/// A watcher sees the other handle's writes and deletes, and only in the collections it
/// watches.
async fn changes_reach_the_other_handle(one: &Records, other: &Records) {
    let mut watching = other.watch("inbox/").await.unwrap();
    one.put("elsewhere", "x", &1).await.unwrap();
    let version = one.put("inbox/ann", "m1", &"hello").await.unwrap();
    let change = next(&mut watching).await;
    assert_eq!(
        (change.collection.as_str(), change.key.as_str(), change.kind),
        ("inbox/ann", "m1", ChangeKind::Written { version }),
        "the first change seen is the watched collection's"
    );
    assert!(one.delete("inbox/ann", "m1").await.unwrap());
    let change = next(&mut watching).await;
    assert_eq!(
        (change.key.as_str(), change.kind),
        ("m1", ChangeKind::Deleted)
    );
    // The writer's own watchers hear of its changes too.
    let mut own = one.watch("inbox/").await.unwrap();
    one.put("inbox/bob", "m2", &"hi").await.unwrap();
    assert_eq!(next(&mut own).await.key, "m2");
}

/// An expiring record is gone for readers once its time is up (and may be created again), and
/// the sweep announces it as expired to the other handle.
async fn records_expire_and_are_announced(one: &Records, other: &Records) {
    let mut watching = other.watch("ttl").await.unwrap();
    let ttl = Duration::from_millis(400);
    one.put("ttl", "short", &1).ttl(ttl).await.unwrap();
    one.put("ttl", "kept", &2).await.unwrap();
    let entry = other.entry::<u32>("ttl", "short").await.unwrap().unwrap();
    assert!(entry.expires_at.is_some());
    assert!(
        one.put("ttl", "short", &3).if_absent().await.is_err(),
        "not yet expired"
    );
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert_eq!(
        other.get::<u32>("ttl", "short").await.unwrap(),
        None,
        "expired"
    );
    let listed: Vec<u32> = other.list("ttl", None).await.unwrap();
    assert_eq!(listed, [2], "lists skip what expired");
    let expired = until(&mut watching, |c| {
        c.key == "short" && c.kind == ChangeKind::Expired
    })
    .await;
    assert_eq!(expired.collection, "ttl");
    one.put("ttl", "short", &4).if_absent().await.unwrap();
    assert_eq!(other.get::<u32>("ttl", "short").await.unwrap(), Some(4));
    // A write without a TTL makes the record permanent again.
    one.put("ttl", "renewed", &5).ttl(ttl).await.unwrap();
    one.put("ttl", "renewed", &6).await.unwrap();
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert_eq!(other.get::<u32>("ttl", "renewed").await.unwrap(), Some(6));
}

/// `keep_newest(n)` leaves the newest `n` records and announces the ones it drops.
async fn collections_keep_their_newest(one: &Records, other: &Records) {
    let mut watching = other.watch("recent").await.unwrap();
    for i in 0..10 {
        one.put("recent", &format!("e{i}"), &i)
            .keep_newest(3)
            .await
            .unwrap();
    }
    let kept: Vec<u32> = other.list("recent", None).await.unwrap();
    assert_eq!(kept, [9, 8, 7]);
    let mut dropped = HashSet::new();
    while dropped.len() < 7 {
        let change = next(&mut watching).await;
        if change.kind == ChangeKind::Deleted {
            dropped.insert(change.key.clone());
        }
    }
    assert_eq!(dropped, (0..7).map(|i| format!("e{i}")).collect());
}

/// `at_most(n)` refuses a new key once the collection holds `n` live records, never dropping
/// one; replacing a record, or adding one after another expired or was deleted, is allowed; of
/// writers racing for the last places, exactly as many win as there are places.
async fn bounded_collections_refuse_rather_than_evict(one: &Records, other: &Records) {
    for i in 0..3 {
        one.put("capped", &format!("k{i}"), &i)
            .at_most(3)
            .await
            .unwrap();
    }
    let full = other.put("capped", "k3", &3).at_most(3).await.unwrap_err();
    assert!(
        matches!(&full, RecordError::Full { collection, limit: 3 } if collection == "capped"),
        "{full}"
    );
    assert_eq!(one.list::<u32>("capped", None).await.unwrap().len(), 3);
    other.put("capped", "k1", &10).at_most(3).await.unwrap();
    assert!(one.delete("capped", "k0").await.unwrap());
    other.put("capped", "k3", &3).at_most(3).await.unwrap();
    let ttl = Duration::from_millis(300);
    one.put("capped", "k3", &3).ttl(ttl).await.unwrap();
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    one.put("capped", "k4", &4).at_most(3).await.unwrap();
    // Twenty writers race for two free places.
    let racers = (0..20).map(|i| {
        let records = if i % 2 == 0 { one } else { other };
        async move {
            records
                .put("capped-race", &format!("r{i}"), &i)
                .at_most(2)
                .await
                .is_ok()
        }
    });
    let won = join_all(racers)
        .await
        .into_iter()
        .filter(|won| *won)
        .count();
    assert_eq!(won, 2, "exactly the free places are taken");
    assert_eq!(one.list::<u32>("capped-race", None).await.unwrap().len(), 2);
}

/// `count` counts the live records whose keys start with a prefix, whichever process wrote
/// them: not another prefix's, not an expired or a deleted one (and another prefix's expired
/// records take nothing off).
async fn records_are_counted_by_key_prefix(one: &Records, other: &Records) {
    for key in ["ann/1", "ann/2", "ann/3", "anna/1", "bob/1"] {
        one.put("counted", key, &1).await.unwrap();
    }
    other.put("counted-not", "ann/9", &1).await.unwrap();
    let ttl = Duration::from_millis(300);
    other.put("counted", "ann/4", &4).ttl(ttl).await.unwrap();
    // Expires outside the counted range: nothing is taken off the range's count for it.
    other.put("counted", "bob/2", &2).ttl(ttl).await.unwrap();
    assert_eq!(other.count("counted", "ann/").await.unwrap(), 4);
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert!(other.delete("counted", "ann/1").await.unwrap());
    assert_eq!(one.count("counted", "ann/").await.unwrap(), 2);
    assert_eq!(one.count("counted", "ann").await.unwrap(), 3);
    assert_eq!(one.count("counted", "").await.unwrap(), 4);
    assert_eq!(one.count("counted", "carl/").await.unwrap(), 0);
}

/// A lease names its holder to others, is renewed by its holder only, lapses when not renewed,
/// and of racing acquirers one wins.
async fn leases_hold_renew_and_lapse(one: &Records, other: &Records) {
    let (a, b) = (one.leases("locks"), other.leases("locks"));
    let ttl = Duration::from_millis(600);
    let lease = a
        .acquire("src/lib.rs", "ann", ttl, &"refactor".to_owned())
        .await
        .unwrap();
    assert_eq!(
        (lease.holder.as_str(), lease.data.as_str()),
        ("ann", "refactor")
    );
    let refused = b
        .acquire("src/lib.rs", "bob", ttl, &"fix".to_owned())
        .await
        .unwrap_err();
    let LeaseError::Held {
        holder, expires_at, ..
    } = &refused
    else {
        panic!("another holder is refused: {refused}");
    };
    assert_eq!((holder.as_str(), *expires_at), ("ann", lease.expires_at));
    assert!(refused.to_string().contains("held by ann"), "{refused}");
    assert!(matches!(
        b.renew::<String>("src/lib.rs", "bob", ttl).await,
        Err(LeaseError::Held { .. })
    ));
    assert!(matches!(
        b.release("src/lib.rs", "bob").await,
        Err(LeaseError::Held { .. })
    ));
    // Renewed in time, it outlives its first term.
    for _ in 0..3 {
        tokio::time::sleep(ttl / 3).await;
        let renewed = a.renew::<String>("src/lib.rs", "ann", ttl).await.unwrap();
        assert_eq!(renewed.acquired_at, lease.acquired_at);
        assert!(renewed.version > lease.version);
    }
    let again = a
        .acquire("src/lib.rs", "ann", ttl, &"still".to_owned())
        .await
        .unwrap();
    assert_eq!(
        (again.acquired_at, again.data.as_str()),
        (lease.acquired_at, "still")
    );
    assert!(a.release("src/lib.rs", "ann").await.unwrap());
    assert!(
        !a.release("src/lib.rs", "ann").await.unwrap(),
        "released once"
    );
    // Not renewed, it lapses and another may take it.
    b.acquire("src/main.rs", "bob", ttl, &()).await.unwrap();
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert!(b.inspect::<()>("src/main.rs").await.unwrap().is_none());
    assert!(matches!(
        b.renew::<()>("src/main.rs", "bob", ttl).await,
        Err(LeaseError::NotHeld { .. })
    ));
    a.acquire("src/main.rs", "ann", ttl, &()).await.unwrap();
    let holders = (0..8).map(|i| {
        let leases = if i % 2 == 0 { &a } else { &b };
        async move {
            leases
                .acquire("race", &format!("agent-{i}"), ttl, &())
                .await
        }
    });
    let won = join_all(holders).await;
    assert_eq!(won.iter().filter(|r| r.is_ok()).count(), 1, "{won:?}");
    assert_eq!(a.list::<()>().await.unwrap().len(), 2);
}

/// The next change, within [`NOTICE`].
async fn next(changes: &mut Changes) -> std::sync::Arc<Change> {
    tokio::time::timeout(NOTICE, changes.next())
        .await
        .expect("a change arrives in time")
        .expect("no change is missed")
}

/// The first change that `matches`, within [`NOTICE`].
async fn until(changes: &mut Changes, matches: impl Fn(&Change) -> bool) -> std::sync::Arc<Change> {
    let deadline = tokio::time::Instant::now() + NOTICE;
    loop {
        let change = tokio::time::timeout_at(deadline, changes.next())
            .await
            .expect("the change arrives in time")
            .expect("no change is missed");
        if matches(&change) {
            return change;
        }
    }
}
