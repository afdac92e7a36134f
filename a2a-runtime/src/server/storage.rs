//! Where a server keeps what it keeps, each database opened once: the task store at the
//! configured location, and beside it the records database (`records.sqlite3` beside a SQLite
//! store's file, the same Postgres database, memory beside memory) that an agent's records,
//! the authorization server's grants and usage rows share — one SQLite writer connection and
//! one background task per file, one pool per Postgres database, the task store's included.

use std::sync::Arc;

use super::config::StoreLocation;
use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_core::task::{InMemoryTaskStore, MemoryStoreLimits, TaskStore};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use a2a_runtime_sql::Records;

/// The connections a Postgres database's pool holds at most: the task store's writer and
/// readers, the replicas' listener, the records' listener and their reads and writes.
#[cfg(feature = "postgres")]
const POSTGRES_CONNECTIONS: u32 = 16;

/// What one server keeps, at one location.
// The records beside the tasks are read by usage and the authorization server, which a build
// may leave out.
#[cfg_attr(
    not(all(feature = "usage", feature = "oauth-server")),
    allow(dead_code)
)]
pub(crate) struct Storage {
    /// Where the tasks are.
    pub(crate) location: StoreLocation,
    tasks: Arc<dyn TaskStore>,
    /// The records database beside the tasks, opened when something first keeps records.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    records: tokio::sync::OnceCell<Records>,
}

impl Storage {
    /// Opens the task store at `location` (a memory store within `limits`; on a database
    /// replicas share, their leases `lease` long when set).
    pub(crate) async fn open(
        location: &StoreLocation,
        limits: &Limits,
        lease: Option<std::time::Duration>,
    ) -> Result<Self, Error> {
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        let records = tokio::sync::OnceCell::new();
        let tasks: Arc<dyn TaskStore> = match location {
            StoreLocation::Memory => Arc::new(memory_store(limits)),
            #[cfg(feature = "sqlite")]
            StoreLocation::Sqlite(path) => {
                let options = a2a_runtime_sql::SqliteStoreOptions::default();
                Arc::new(a2a_runtime_sql::SqliteTaskStore::open(path, options).await?)
            }
            // The task store takes the pool of the records the server keeps in the database.
            #[cfg(feature = "postgres")]
            StoreLocation::Postgres(_) => {
                let shared = open_records(location)
                    .await
                    .map_err(|e| records_failed(&e))?;
                let beside = match lease {
                    Some(lease) => shared.task_store_beside_leased(lease).await,
                    None => shared.task_store_beside().await,
                };
                let tasks = beside.ok_or_else(|| {
                    Error::Config(format!("--store {location}: not a Postgres database"))
                })??;
                let _ = records.set(shared);
                tasks
            }
            #[allow(unreachable_patterns)] // Only when a feature is left out.
            other => return Err(missing_store_feature(other)),
        };
        Ok(Self {
            location: location.clone(),
            tasks,
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            records,
        })
    }

    /// The task store.
    pub(crate) fn tasks(&self) -> Arc<dyn TaskStore> {
        Arc::clone(&self.tasks)
    }

    /// The records beside the tasks, shared with every other holder in this process (an
    /// agent's, through [`ServeConfig::open_records`](super::ServeConfig::open_records)).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    #[cfg_attr(
        not(all(feature = "usage", feature = "oauth-server")),
        allow(dead_code)
    )]
    pub(crate) async fn records(&self) -> Result<Records, Error> {
        let beside = records_beside(&self.location);
        let records = self
            .records
            .get_or_try_init(|| open_records(&beside))
            .await
            .map_err(|e| records_failed(&e))?;
        Ok(records.clone())
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn records_failed(error: &dyn std::fmt::Display) -> Error {
    Error::Config(format!("the records beside the tasks: {error}"))
}

/// A memory store within `limits`.
pub(crate) fn memory_store(limits: &Limits) -> InMemoryTaskStore {
    InMemoryTaskStore::new(MemoryStoreLimits {
        max_tasks: limits.max_tasks,
        max_bytes: limits.max_store_bytes,
        ttl: limits.task_ttl,
    })
}

/// Where the server's own records go beside tasks kept at `tasks` (grants, usage, an agent's
/// records): `records.sqlite3` beside a SQLite store's file, the same Postgres database, memory
/// beside memory.
pub(crate) fn records_beside(tasks: &StoreLocation) -> StoreLocation {
    match tasks {
        StoreLocation::Sqlite(path) => {
            StoreLocation::Sqlite(path.with_file_name("records.sqlite3"))
        }
        other => other.clone(),
    }
}

/// The records at `location` (for a SQLite location, that very file), shared in this process.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) async fn open_records(
    location: &StoreLocation,
) -> Result<Records, a2a_runtime_sql::RecordError> {
    match location {
        StoreLocation::Memory => Ok(Records::memory()),
        #[cfg(feature = "sqlite")]
        StoreLocation::Sqlite(path) => Records::shared_sqlite(path).await,
        #[cfg(feature = "postgres")]
        StoreLocation::Postgres(url) => Records::shared_postgres(url, POSTGRES_CONNECTIONS).await,
        #[allow(unreachable_patterns)] // Only when a store feature is left out.
        other => Err(a2a_runtime_sql::RecordError::Backend(format!(
            "the store {other} needs a feature this build leaves out"
        ))),
    }
}

/// The error for a store this build cannot open: its feature was left out.
#[allow(dead_code)] // Unused when every store feature is on.
fn missing_store_feature(location: &StoreLocation) -> Error {
    let feature = match location {
        StoreLocation::Sqlite(_) => "sqlite",
        StoreLocation::Postgres(_) => "postgres",
        StoreLocation::Memory => "server",
    };
    Error::Config(format!(
        "--store {location}: this store needs the `{feature}` feature of a2a-runtime, which \
         this build leaves out (add it to the a2a-runtime dependency in Cargo.toml)"
    ))
}
