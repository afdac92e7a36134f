//! An agent's own durable state, as JSON documents under a collection and a key, beside its
//! tasks: in a SQLite file (by default under the data directory `serve()` uses), in Postgres
//! (shared by replicas) or in memory.
//! For what an agent keeps across calls (a registry, a cache, bookings), not for task state,
//! which the task store holds.

pub use a2a_runtime_sql::records::{RecordError, Records};
