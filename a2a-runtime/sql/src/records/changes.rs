//! Changes to records, announced to those who watch ([`Records::watch`]): this process's own
//! as it makes them, other processes' as the backend reports them (a SQLite file's change log,
//! Postgres notifications).

use std::sync::Arc;

use tokio::sync::broadcast;

use super::Records;

/// How many changes a slow watcher may fall behind before it is told it missed some.
const BACKLOG: usize = 1024;

/// What happened to a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// It was written, and is now at `version`.
    Written {
        /// Its new version.
        version: u64,
    },
    /// It was deleted (or dropped from a bounded collection).
    Deleted,
    /// It expired and the sweep deleted it.
    Expired,
}

impl ChangeKind {
    /// The kind's code in a SQLite change log.
    #[cfg(feature = "sqlite")]
    pub(crate) fn code(self) -> &'static str {
        match self {
            Self::Written { .. } => "w",
            Self::Deleted => "d",
            Self::Expired => "e",
        }
    }

    /// The kind a change log or notification names, with the version of a write.
    pub(crate) fn from_code(code: &str, version: u64) -> Option<Self> {
        match code {
            "w" => Some(Self::Written { version }),
            "d" => Some(Self::Deleted),
            "e" => Some(Self::Expired),
            _ => None,
        }
    }
}

/// One change to one record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// The record's collection.
    pub collection: String,
    /// The record's key.
    pub key: String,
    /// What happened to it.
    pub kind: ChangeKind,
}

impl Change {
    pub(crate) fn new(collection: &str, key: &str, kind: ChangeKind) -> Self {
        Self {
            collection: collection.to_owned(),
            key: key.to_owned(),
            kind,
        }
    }
}

/// Some changes were not seen (the watcher fell behind, or the connection that reports other
/// replicas' changes was lost): read again what you follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("some record changes were missed; read the records again")]
pub struct Missed;

/// What the feed carries.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    Changed(Arc<Change>),
    Missed,
}

/// Where one [`Records`]'s changes are announced.
#[derive(Debug)]
pub(crate) struct Feed {
    sender: broadcast::Sender<Event>,
    /// This handle's name in change logs and notifications, so it skips its own when they
    /// come back.
    origin: i64,
}

impl Feed {
    pub(crate) fn new() -> Self {
        // Random, and positive so it fits every database's integer.
        let origin = i64::try_from(uuid::Uuid::new_v4().as_u64_pair().0 >> 1).unwrap_or(1);
        Self {
            sender: broadcast::channel(BACKLOG).0,
            origin,
        }
    }

    pub(crate) fn origin(&self) -> i64 {
        self.origin
    }

    /// Announces `change` to the watchers, if any (free otherwise).
    pub(crate) fn publish(&self, change: Change) {
        if self.sender.receiver_count() > 0 {
            let _ = self.sender.send(Event::Changed(Arc::new(change)));
        }
    }

    /// Tells the watchers they missed changes.
    pub(crate) fn missed(&self) {
        if self.sender.receiver_count() > 0 {
            let _ = self.sender.send(Event::Missed);
        }
    }

    /// Whether anyone watches.
    #[cfg(feature = "sqlite")]
    pub(crate) fn watched(&self) -> bool {
        self.sender.receiver_count() > 0
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.sender.subscribe()
    }
}

/// The changes to some collections, as [`Records::watch`] follows them. Holding it keeps the
/// records (and their reading of other processes' changes) alive.
#[derive(Debug)]
pub struct Changes {
    receiver: broadcast::Receiver<Event>,
    prefix: String,
    _records: Records,
}

impl Changes {
    pub(crate) fn new(
        receiver: broadcast::Receiver<Event>,
        prefix: &str,
        records: Records,
    ) -> Self {
        Self {
            receiver,
            prefix: prefix.to_owned(),
            _records: records,
        }
    }

    /// The next change to a watched collection, or [`Missed`] when some went by unseen. Waits
    /// until there is one.
    pub async fn next(&mut self) -> Result<Arc<Change>, Missed> {
        loop {
            match self.receiver.recv().await {
                Ok(Event::Changed(change)) if change.collection.starts_with(&self.prefix) => {
                    return Ok(change);
                }
                Ok(Event::Changed(_)) => {}
                Ok(Event::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    return Err(Missed);
                }
                // The sender lives as long as the records this holds.
                Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
    }
}
