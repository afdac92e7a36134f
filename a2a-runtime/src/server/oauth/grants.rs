//! Where the authorization server keeps its grants: the server's records (a SQLite file beside
//! the tasks', or the Postgres database replicas share), or memory beside a memory store.

use std::sync::Arc;

use a2a_runtime_oauth::{GrantStore, MemoryGrants};
use a2a_runtime_types::util::BoxFuture;
use serde_json::Value;

use crate::server::config::StoreLocation;
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
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.0
                .put(collection, key, &value)
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        })
    }

    fn get<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, String>> {
        Box::pin(async move { self.0.get(collection, key).await.map_err(|e| e.to_string()) })
    }

    fn delete<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            self.0
                .delete(collection, key)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn list<'a>(
        &'a self,
        collection: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Value>, String>> {
        Box::pin(async move {
            self.0
                .list(collection, Some(limit))
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn put_within<'a>(
        &'a self,
        collection: &'a str,
        key: &'a str,
        value: Value,
        limit: usize,
    ) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            // Counted and written in one step: exact under racing registrations.
            match self.0.put(collection, key, &value).at_most(limit).await {
                Ok(_) => Ok(true),
                Err(a2a_runtime_sql::records::RecordError::Full { .. }) => Ok(false),
                Err(other) => Err(other.to_string()),
            }
        })
    }
}

/// The grant store of a server keeping tasks at `location`: in memory beside memory, the
/// `records.sqlite3` file beside a SQLite store's, the same Postgres database.
pub(crate) async fn open(location: &StoreLocation) -> Result<Arc<dyn GrantStore>, Error> {
    let failed = |e: &dyn std::fmt::Display| {
        Error::Config(format!("the authorization server's grant store: {e}"))
    };
    if let StoreLocation::Memory = location {
        return Ok(Arc::new(MemoryGrants::default()));
    }
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    {
        let location = crate::server::startup::records_beside(location);
        let records = crate::server::startup::open_records(&location)
            .await
            .map_err(|e| failed(&e))?;
        Ok(Arc::new(RecordGrants(records)))
    }
    #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
    Err(failed(&format!(
        "the store {location} needs a feature this build leaves out"
    )))
}
