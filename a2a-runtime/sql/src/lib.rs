//! The SQL task stores of [a2a-runtime](https://docs.rs/a2a-runtime): SQLite (one file, embedded)
//! and Postgres (shared by replicas: leases, the runner of each task, mailboxes rung by
//! `NOTIFY`, a durable push outbox), each behind its feature, [`Records`], an agent's own
//! durable documents, and [`UsageStore`], its calls as usage rows and rollups.
//!
//! Applications depend on `a2a-runtime` with the `sqlite` or `postgres` feature, which
//! re-exports these.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod connect;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod keys;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod list;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod records;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod usage;

#[cfg(feature = "postgres")]
pub use postgres::{PostgresStoreOptions, PostgresTaskStore};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use records::{RecordError, Records};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteStoreOptions, SqliteTaskStore};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use usage::{UsageBy, UsageError, UsageQuery, UsageRow, UsageStore, UsageTotal};
