//! An agent's own durable state, as JSON documents under a collection and a key, beside its
//! tasks: in a SQLite file (by default under the data directory `serve()` uses), in Postgres
//! (shared by replicas) or in memory. For what an agent keeps across calls (a registry, a
//! cache, bookings, who holds which lock), not for task state, which the task store holds.
//!
//! Records can coordinate the processes and replicas that share them:
//!
//! - each write gives its record a new version, so a write can require the record to be absent
//!   ([`Put::if_absent`]) or unchanged since it was read ([`Put::if_version`]);
//! - records can expire ([`Put::ttl`]), and a collection can keep only its newest
//!   ([`Put::keep_newest`]);
//! - every change is announced to [`Records::watch`]ers, whichever process made it;
//! - [`Leases`] are exclusive holds on keys that lapse unless renewed.
//!
//! ```no_run
//! use std::time::Duration;
//! use a2a_runtime::records::{LeaseError, Records};
//!
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let records = Records::for_agent("Coordination Hub").await?;
//! let locks = records.leases("locks");
//! match locks.acquire("src/lib.rs", "ann", Duration::from_secs(60), "refactor").await {
//!     Ok(lease) => println!("held until {}", lease.expires_at),
//!     Err(LeaseError::Held { holder, .. }) => println!("{holder} has it"),
//!     Err(other) => return Err(other.into()),
//! }
//! # Ok(()) }
//! ```

pub use a2a_runtime_sql::records::{
    Change, ChangeKind, Changes, Entry, Lease, LeaseError, Leases, MAX_NAME_BYTES, Missed, Put,
    RecordError, Records,
};

#[cfg(feature = "testing")]
pub mod testing;
