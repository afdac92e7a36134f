//! The idempotency key rules of the store contract.

use std::sync::Arc;

use chrono::{Duration as Span, Utc};

use super::task;
use crate::model::TaskState;
use crate::store::{KeyClaim, KeyRecord, KeyScope, TaskStore};

fn scope(caller: &str, key: &str) -> KeyScope {
    KeyScope {
        agent: "keyed".into(),
        caller: caller.into(),
        key: key.into(),
    }
}

fn record(scope: &KeyScope, task_id: &str, fingerprint: &str, ttl: Span) -> KeyRecord {
    KeyRecord {
        scope: scope.clone(),
        fingerprint: fingerprint.into(),
        task_id: task_id.into(),
        item: None,
        expires_at: Utc::now() + ttl,
    }
}

/// Every key rule.
pub(super) async fn run(store: Arc<dyn TaskStore>) {
    a_key_and_its_task_are_written_together(&*store).await;
    keys_are_scoped_and_expire(&*store).await;
    concurrent_claims_of_one_key_create_one_task(Arc::clone(&store)).await;
    claims_and_other_writes_at_once_keep_their_own_outcomes(store).await;
}

async fn a_key_and_its_task_are_written_together(store: &dyn TaskStore) {
    let key = scope("principal:alice", "k-1");
    let first = record(&key, "key-task-1", "fp", Span::hours(1));
    let claimed = store
        .claim_key(
            &first,
            Some(&task("key-task-1", "alice", TaskState::Submitted, 0, 1)),
        )
        .await
        .expect("claim");
    assert_eq!(claimed, KeyClaim::Claimed, "a fresh key is claimed");
    let stored = store.get("key-task-1", None).await.unwrap().expect("task");
    assert_eq!(stored.version, 1, "the task is created with its key");
    let found = store.find_key(&key).await.unwrap().expect("key held");
    assert_eq!(
        (found.task_id.as_str(), found.fingerprint.as_str()),
        ("key-task-1", "fp")
    );
    let again = record(&key, "key-task-2", "other", Span::hours(1));
    let held = store
        .claim_key(
            &again,
            Some(&task("key-task-2", "alice", TaskState::Submitted, 0, 1)),
        )
        .await
        .expect("claim of a held key");
    match held {
        KeyClaim::Held(held) => assert_eq!(held.task_id, "key-task-1", "names the first task"),
        KeyClaim::Claimed => panic!("a held key must not be claimed again"),
    }
    assert!(
        store.get("key-task-2", None).await.unwrap().is_none(),
        "a claim that lost writes no task"
    );
    // A key for a change of an existing task (a cancel) holds without a task of its own.
    let change = scope("principal:alice", "k-cancel");
    let claimed = store
        .claim_key(
            &record(&change, "key-task-1", "cancel", Span::hours(1)),
            None,
        )
        .await
        .expect("claim for a change");
    assert_eq!(claimed, KeyClaim::Claimed);
    // A task id already stored fails the claim whole: the key is not taken.
    let clash = scope("principal:alice", "k-clash");
    let refused = store
        .claim_key(
            &record(&clash, "key-task-1", "fp", Span::hours(1)),
            Some(&task("key-task-1", "alice", TaskState::Submitted, 0, 1)),
        )
        .await;
    assert!(refused.is_err(), "creating a stored id fails the claim");
    assert!(
        store.find_key(&clash).await.unwrap().is_none(),
        "a failed claim holds no key"
    );
    store.delete("key-task-1").await.unwrap();
}

async fn keys_are_scoped_and_expire(store: &dyn TaskStore) {
    let alice = scope("principal:alice", "shared-key");
    let bob = scope("principal:bob", "shared-key");
    for (scope, id) in [(&alice, "scoped-a"), (&bob, "scoped-b")] {
        let claimed = store
            .claim_key(
                &record(scope, id, "fp", Span::hours(1)),
                Some(&task(id, "x", TaskState::Submitted, 0, 1)),
            )
            .await
            .expect("claim");
        assert_eq!(
            claimed,
            KeyClaim::Claimed,
            "one caller's key is not another's"
        );
    }
    let other_agent = KeyScope {
        agent: "other".into(),
        ..alice.clone()
    };
    assert!(store.find_key(&other_agent).await.unwrap().is_none());
    let expired = scope("principal:alice", "old-key");
    store
        .claim_key(
            &record(&expired, "expired-1", "fp", Span::milliseconds(-1)),
            Some(&task("expired-1", "alice", TaskState::Completed, 0, 1)),
        )
        .await
        .expect("claim");
    assert!(
        store.find_key(&expired).await.unwrap().is_none(),
        "an expired key is not found"
    );
    let reused = store
        .claim_key(
            &record(&expired, "expired-2", "new", Span::hours(1)),
            Some(&task("expired-2", "alice", TaskState::Submitted, 0, 1)),
        )
        .await
        .expect("claim");
    assert_eq!(
        reused,
        KeyClaim::Claimed,
        "an expired key may be claimed again"
    );
    for id in ["scoped-a", "scoped-b", "expired-1", "expired-2"] {
        store.delete(id).await.unwrap();
    }
}

async fn concurrent_claims_of_one_key_create_one_task(store: Arc<dyn TaskStore>) {
    let key = scope("principal:carol", "raced");
    let claims = (0..8).map(|i| {
        let store = Arc::clone(&store);
        let key = key.clone();
        tokio::spawn(async move {
            let id = format!("raced-{i}");
            let task = task(&id, "carol", TaskState::Submitted, 0, 1);
            let claim = store
                .claim_key(&record(&key, &id, "fp", Span::hours(1)), Some(&task))
                .await;
            (id, claim)
        })
    });
    let mut winners = Vec::new();
    let mut named = Vec::new();
    for claim in claims {
        match claim.await.expect("claim task") {
            (id, Ok(KeyClaim::Claimed)) => winners.push(id),
            (_, Ok(KeyClaim::Held(held))) => named.push(held.task_id),
            (_, Err(error)) => panic!("a losing claim finds the key held, got {error}"),
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "exactly one of 8 claims wins: {winners:?}"
    );
    assert!(
        named.iter().all(|id| *id == winners[0]),
        "losers name the winner's task"
    );
    for i in 0..8 {
        let id = format!("raced-{i}");
        let stored = store.get(&id, None).await.unwrap().is_some();
        assert_eq!(
            stored,
            id == winners[0],
            "only the winner's task is stored ({id})"
        );
        store.delete(&id).await.unwrap();
    }
}

/// Claims and plain writes made at the same moment (a store may commit them together) each get
/// their own outcome: every fresh key is claimed with its task, every update lands at its
/// version, and a stale update is still a conflict that writes nothing. (Seven claims and
/// three updates: counts a store rounding its statements up to a power of two pads.)
async fn claims_and_other_writes_at_once_keep_their_own_outcomes(store: Arc<dyn TaskStore>) {
    for i in 0..3 {
        let existing = task(&format!("mixed-{i}"), "dan", TaskState::Submitted, 0, 1);
        store.create(&existing).await.expect("create");
    }
    let claims = (0..7).map(|i| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let id = format!("mixed-claim-{i}");
            let key = scope("principal:dan", &format!("mixed-{i}"));
            let task = task(&id, "dan", TaskState::Submitted, 0, 1);
            store
                .claim_key(&record(&key, &id, "fp", Span::hours(1)), Some(&task))
                .await
        })
    });
    let updates = (0..4).map(|i| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            // The last one writes the task the first updates, at a version it never had.
            let id = format!("mixed-{}", i % 3);
            let mut changed = task(&id, "dan", TaskState::Working, 0, 2);
            changed.version = if i == 3 { 7 } else { 1 };
            store.update(&changed).await
        })
    });
    let (claims, updates): (Vec<_>, Vec<_>) = (claims.collect(), updates.collect());
    for claim in claims {
        let claimed = claim.await.expect("claim task").expect("claim");
        assert_eq!(claimed, KeyClaim::Claimed, "a fresh key among other writes");
    }
    let outcomes: Vec<_> = futures::future::join_all(updates).await;
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let outcome = outcome.expect("update task");
        match i {
            // Whichever of the two writes of mixed-0 comes first, 7 is never its version.
            3 => assert!(
                matches!(
                    outcome,
                    Err(crate::store::StoreError::Conflict { expected: 7, .. })
                ),
                "a stale update among claims is a conflict, got {outcome:?}"
            ),
            _ => outcome.expect("an update at its version among claims"),
        }
    }
    for i in 0..7 {
        let id = format!("mixed-claim-{i}");
        let stored = store.get(&id, None).await.unwrap().expect("claimed task");
        assert_eq!(stored.version, 1, "created with its key ({id})");
        store.delete(&id).await.unwrap();
    }
    for i in 0..3 {
        let id = format!("mixed-{i}");
        let stored = store.get(&id, None).await.unwrap().expect("updated task");
        assert_eq!(stored.version, 2, "updated once ({id})");
        assert_eq!(
            stored.task.history.len(),
            2,
            "with what the update wrote ({id})"
        );
        store.delete(&id).await.unwrap();
    }
}
