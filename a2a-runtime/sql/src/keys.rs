//! What the SQL stores share about idempotency keys: a record read back from its columns, and
//! the claim outcome when a key held at the claim is gone by the read.

use a2a_runtime_core::task::{KeyClaim, KeyRecord, KeyScope, StoreError};

/// The record of `scope` from its columns: fingerprint, task id, item, expiry (µs).
pub(crate) fn record(
    scope: &KeyScope,
    (fingerprint, task_id, item, expires_us): (String, String, Option<String>, i64),
) -> KeyRecord {
    KeyRecord {
        scope: scope.clone(),
        fingerprint,
        task_id,
        item,
        expires_at: chrono::DateTime::from_timestamp_micros(expires_us).unwrap_or_default(),
    }
}

/// The outcome of a claim that found the key held: the record read back after it, if it is
/// still there (it may have expired in between, and the client's retry claims it then).
pub(crate) fn held(read: Option<KeyRecord>) -> Result<KeyClaim, StoreError> {
    read.map(KeyClaim::Held).ok_or_else(|| {
        StoreError::backend(
            "an idempotency key held a moment ago is gone (it expired): send the request again",
        )
    })
}
