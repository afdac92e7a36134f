//! Where the authorization server keeps its grants: the server's records (a SQLite file beside
//! the tasks', or the Postgres database replicas share), or memory beside a memory store.

use std::sync::Arc;

use a2a_runtime_oauth::{GrantStore, GrantStoreError, MemoryGrants};
use a2a_runtime_types::util::BoxFuture;
use serde_json::Value;

use crate::server::config::StoreLocation;
use crate::server::storage::Storage;
use a2a_runtime_core::error::Error;

/// Grants as [`Records`](a2a_runtime_sql::Records) documents.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
struct RecordGrants(a2a_runtime_sql::Records);

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl GrantStore for RecordGrants {
    fn put<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), GrantStoreError>> {
        Box::pin(async move {
            self.0
                .put(collection, key, &value)
                .await
                .map(drop)
                .map_err(GrantStoreError::backend)
        })
    }

    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, GrantStoreError>> {
        Box::pin(async move {
            self.0
                .get(collection, key)
                .await
                .map_err(GrantStoreError::backend)
        })
    }

    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>> {
        Box::pin(async move {
            self.0
                .delete(collection, key)
                .await
                .map_err(GrantStoreError::backend)
        })
    }

    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Value>, GrantStoreError>> {
        Box::pin(async move {
            self.0
                .list(collection, Some(limit))
                .await
                .map_err(GrantStoreError::backend)
        })
    }

    fn put_within<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
        limit: usize,
    ) -> BoxFuture<'a, Result<bool, GrantStoreError>> {
        Box::pin(async move {
            // Counted and written in one step: exact under racing registrations.
            match self.0.put(collection, key, &value).at_most(limit).await {
                Ok(_) => Ok(true),
                Err(a2a_runtime_sql::records::RecordError::Full { .. }) => Ok(false),
                Err(other) => Err(GrantStoreError::backend(other)),
            }
        })
    }
}

/// The grant store of a server keeping what `storage` keeps: the records beside its tasks
/// (shared with the rest of the server), in memory beside memory.
pub(crate) async fn open(storage: &Storage) -> Result<Arc<dyn GrantStore>, Error> {
    if let StoreLocation::Memory = storage.location {
        return Ok(Arc::new(MemoryGrants::default()));
    }
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    {
        Ok(Arc::new(RecordGrants(storage.records().await?)))
    }
    #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
    Err(Error::Config(format!(
        "the authorization server's grant store: the store {} needs a feature this build \
         leaves out",
        storage.location
    )))
}
