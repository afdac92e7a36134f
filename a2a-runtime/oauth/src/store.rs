//! Where the authorization server keeps what it grants: registered clients, requests waiting
//! for consent, codes, refresh-token families, sign-in sessions and signing keys, as JSON
//! documents by collection and key. The server facade keeps them in the agent's records
//! (SQLite by default, Postgres beside a Postgres task store); [`MemoryGrants`] keeps them in
//! memory.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use a2a_runtime_types::util::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::OAuthError;

/// Registered clients, by client id.
pub(crate) const CLIENTS: &str = "oauth_clients";
/// Authorization requests waiting for the user's decision, by request id.
pub(crate) const PENDING: &str = "oauth_pending";
/// Unredeemed codes, by digest.
pub(crate) const CODES: &str = "oauth_codes";
/// Redeemed codes, by digest: a second redemption revokes what the first was given.
pub(crate) const SPENT_CODES: &str = "oauth_spent_codes";
/// Live refresh tokens, by digest.
pub(crate) const REFRESH: &str = "oauth_refresh";
/// Rotated refresh tokens, by digest: presenting one again revokes its family.
pub(crate) const SPENT_REFRESH: &str = "oauth_spent_refresh";
/// Refresh-token families (one per authorization), by id; a revoked family is removed.
pub(crate) const FAMILIES: &str = "oauth_families";
/// Sign-in sessions of browsers, by digest of their cookie.
pub(crate) const SESSIONS: &str = "oauth_sessions";
/// Signing keys, by key id.
pub(crate) const KEYS: &str = "oauth_keys";
/// Sign-ins under way at an upstream provider, by `state`.
pub(crate) const UPSTREAM: &str = "oauth_upstream";
/// Access tokens revoked before they expire, by digest of their `jti`.
pub(crate) const REVOKED: &str = "oauth_revoked";

/// The collections whose documents expire (each has `key`, or for clients `client_id`, and
/// `expires` fields).
pub(crate) const EXPIRING: [&str; 10] = [
    CLIENTS,
    PENDING,
    CODES,
    SPENT_CODES,
    REFRESH,
    SPENT_REFRESH,
    FAMILIES,
    SESSIONS,
    UPSTREAM,
    REVOKED,
];

/// Why a [`GrantStore`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GrantStoreError {
    /// The database underneath failed (its own words).
    #[error("{0}")]
    Backend(String),
}

impl GrantStoreError {
    /// The database's failure `error`.
    pub fn backend(error: impl std::fmt::Display) -> Self {
        Self::Backend(error.to_string())
    }
}

/// JSON documents by collection and key. Of several callers deleting one document at once,
/// exactly one must be told it was there: that is what makes codes and refresh tokens
/// single-use.
pub trait GrantStore: Send + Sync + 'static {
    /// Stores `value`, replacing what was there.
    fn put<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), GrantStoreError>>;

    /// The value under `key`, if any.
    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, GrantStoreError>>;

    /// Removes the value under `key`; whether it was there.
    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>>;

    /// The values of `collection`, the most recently written first, at most `limit`.
    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Value>, GrantStoreError>>;

    /// Stores `value` under `key`, new in `collection`, unless the collection already holds
    /// `limit` documents; whether it was stored. This default counts by listing, so writers
    /// racing for the last places may pass the limit by as many as race: a store that can count
    /// and write in one step (as the server's records do) should.
    fn put_within<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
        limit: usize,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>> {
        Box::pin(async move {
            if self.list(collection, limit).await?.len() >= limit {
                return Ok(false);
            }
            self.put(collection, key, value).await.map(|()| true)
        })
    }
}

/// Grants kept in memory: lost when the process ends (tests, and servers that keep tasks in
/// memory too).
#[derive(Debug, Default)]
pub struct MemoryGrants {
    documents: Mutex<HashMap<(String, String), (u64, Value)>>,
    written: std::sync::atomic::AtomicU64,
}

impl MemoryGrants {
    fn documents(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), (u64, Value)>> {
        self.documents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl GrantStore for MemoryGrants {
    fn put<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), GrantStoreError>> {
        let order = self
            .written
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.documents()
            .insert((collection.to_owned(), key.to_owned()), (order, value));
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, GrantStoreError>> {
        let value = self
            .documents()
            .get(&(collection.to_owned(), key.to_owned()))
            .map(|(_, value)| value.clone());
        Box::pin(async { Ok(value) })
    }

    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>> {
        let removed = self
            .documents()
            .remove(&(collection.to_owned(), key.to_owned()))
            .is_some();
        Box::pin(async move { Ok(removed) })
    }

    fn put_within<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
        limit: usize,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>> {
        let order = self
            .written
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut documents = self.documents();
        let id = (collection.to_owned(), key.to_owned());
        let held = documents.keys().filter(|(c, _)| c == collection).count();
        let stored = documents.contains_key(&id) || held < limit;
        if stored {
            documents.insert(id, (order, value));
        }
        Box::pin(async move { Ok(stored) })
    }

    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Value>, GrantStoreError>> {
        let mut rows: Vec<(u64, Value)> = self
            .documents()
            .iter()
            .filter(|((c, _), _)| c == collection)
            .map(|(_, (order, value))| (*order, value.clone()))
            .collect();
        rows.sort_by_key(|row| std::cmp::Reverse(row.0));
        let values = rows.into_iter().take(limit).map(|(_, v)| v).collect();
        Box::pin(async move { Ok(values) })
    }
}

/// Typed access to a [`GrantStore`]; failures become [`OAuthError::Unavailable`].
#[derive(Clone)]
pub(crate) struct Grants {
    store: std::sync::Arc<dyn GrantStore>,
}

impl Grants {
    pub(crate) fn new(store: std::sync::Arc<dyn GrantStore>) -> Self {
        Self { store }
    }

    /// The store underneath.
    pub(crate) fn store(&self) -> std::sync::Arc<dyn GrantStore> {
        std::sync::Arc::clone(&self.store)
    }

    pub(crate) async fn put<T: Serialize>(
        &self,
        collection: &str,
        key: &str,
        value: &T,
    ) -> Result<(), OAuthError> {
        let value = serde_json::to_value(value)
            .map_err(|e| OAuthError::store(&format!("write {collection}"), e))?;
        self.store
            .put(collection, key, value)
            .await
            .map_err(|e| OAuthError::store(&format!("write {collection}"), e))
    }

    /// The document under `key`; one that has expired is removed and reads as absent.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<T>, OAuthError> {
        let value = self
            .store
            .get(collection, key)
            .await
            .map_err(|e| OAuthError::store(&format!("read {collection}"), e))?;
        let Some(value) = value else {
            return Ok(None);
        };
        if expired(&value, now()) {
            self.delete(collection, key).await?;
            return Ok(None);
        }
        read(collection, value).map(Some)
    }

    /// The document under `key`, removed: `None` when it was not there, had expired, or another
    /// request took it first.
    pub(crate) async fn take<T: DeserializeOwned>(
        &self,
        collection: &str,
        key: &str,
    ) -> Result<Option<T>, OAuthError> {
        let Some(value) = self.get::<Value>(collection, key).await? else {
            return Ok(None);
        };
        if !self.delete(collection, key).await? {
            return Ok(None);
        }
        read(collection, value).map(Some)
    }

    /// Stores `value` under `key` unless `collection` holds `limit` documents; whether it did.
    pub(crate) async fn put_new_within<T: Serialize>(
        &self,
        collection: &str,
        key: &str,
        value: &T,
        limit: usize,
    ) -> Result<bool, OAuthError> {
        let value = serde_json::to_value(value)
            .map_err(|e| OAuthError::store(&format!("write {collection}"), e))?;
        self.store
            .put_within(collection, key, value, limit)
            .await
            .map_err(|e| OAuthError::store(&format!("write {collection}"), e))
    }

    pub(crate) async fn delete(&self, collection: &str, key: &str) -> Result<bool, OAuthError> {
        self.store
            .delete(collection, key)
            .await
            .map_err(|e| OAuthError::store(&format!("delete from {collection}"), e))
    }

    pub(crate) async fn list<T: DeserializeOwned>(
        &self,
        collection: &str,
        limit: usize,
    ) -> Result<Vec<T>, OAuthError> {
        let values = self
            .store
            .list(collection, limit)
            .await
            .map_err(|e| OAuthError::store(&format!("list {collection}"), e))?;
        let now = now();
        values
            .into_iter()
            .filter(|value| !expired(value, now))
            .map(|value| read(collection, value))
            .collect()
    }

    /// Removes the expired documents of every expiring collection; how many.
    pub(crate) async fn sweep(&self) -> Result<usize, OAuthError> {
        let now = now();
        let mut removed = 0;
        for collection in EXPIRING {
            let values = self
                .store
                .list(collection, usize::MAX)
                .await
                .map_err(|e| OAuthError::store(&format!("list {collection}"), e))?;
            for value in values.iter().filter(|value| expired(value, now)) {
                let key = value.get("key").or_else(|| value.get("client_id"));
                if let Some(key) = key.and_then(Value::as_str)
                    && self.delete(collection, key).await?
                {
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn expired(value: &Value, now: i64) -> bool {
    value
        .get("expires")
        .and_then(Value::as_i64)
        .is_some_and(|expires| expires <= now)
}

fn read<T: DeserializeOwned>(collection: &str, value: Value) -> Result<T, OAuthError> {
    serde_json::from_value(value)
        .map_err(|e| OAuthError::store(&format!("read a document of {collection}"), e))
}
