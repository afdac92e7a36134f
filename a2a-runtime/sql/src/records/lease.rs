//! [`Leases`]: exclusive holds on keys that expire unless renewed, built on conditional,
//! expiring records, so they hold across the processes and replicas sharing the records.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Entry, RecordError, Records};

/// How many times an operation retries when another writer changed the lease under it.
const RETRIES: usize = 16;

/// A hold on one key: who holds it, since when, until when, and what they said about it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Lease<D = serde_json::Value> {
    /// The key held.
    pub key: String,
    /// Who holds it.
    pub holder: String,
    /// When the holder first acquired it (renewals keep this).
    pub acquired_at: DateTime<Utc>,
    /// When it lapses unless renewed.
    pub expires_at: DateTime<Utc>,
    /// The record's version: it changes at each renewal.
    pub version: u64,
    /// What the holder attached.
    pub data: D,
}

/// A lease as stored: its expiry is the record's.
#[derive(Serialize, Deserialize)]
struct Stored<D: ?Sized> {
    holder: String,
    acquired_at: DateTime<Utc>,
    data: D,
}

/// Why a lease could not be taken, renewed or released.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LeaseError {
    /// Someone else holds the key.
    #[error("`{key}` is held by {holder} until {expires_at}")]
    Held {
        /// The key.
        key: String,
        /// Who holds it.
        holder: String,
        /// Until when, unless they renew it.
        expires_at: DateTime<Utc>,
    },
    /// Nobody holds the key (it was released, or lapsed): there is nothing to renew.
    #[error("`{key}` is not held by {holder}")]
    NotHeld {
        /// The key.
        key: String,
        /// Who asked.
        holder: String,
    },
    /// Other writers kept changing the lease while this operation tried `attempts` times:
    /// the lease exists (or did), it was only contended. Trying again later may succeed.
    #[error("`{key}` kept changing under {attempts} attempts to write it; try again")]
    Contended {
        /// The key.
        key: String,
        /// How many times it was tried.
        attempts: usize,
    },
    /// The records failed.
    #[error(transparent)]
    Store(#[from] RecordError),
}

/// Leases on the keys of one collection ([`Records::leases`]).
#[derive(Debug, Clone)]
pub struct Leases {
    records: Records,
    collection: String,
}

impl Leases {
    pub(super) fn new(records: Records, collection: String) -> Self {
        Self {
            records,
            collection,
        }
    }

    /// Takes `key` for `holder` for `ttl`, attaching `data`. If `holder` holds it already, the
    /// lease is renewed with the new data; if someone else does, [`LeaseError::Held`] names
    /// them.
    pub async fn acquire<D>(
        &self,
        key: &str,
        holder: &str,
        ttl: Duration,
        data: &D,
    ) -> Result<Lease<D::Owned>, LeaseError>
    where
        D: Serialize + ToOwned + Sync + ?Sized,
        D::Owned: DeserializeOwned,
    {
        for _ in 0..RETRIES {
            let fresh = Stored {
                holder: holder.to_owned(),
                acquired_at: Utc::now(),
                data,
            };
            let taken = self
                .records
                .put(&self.collection, key, &fresh)
                .if_absent()
                .ttl(ttl)
                .await;
            match taken {
                Ok(_) => return self.current(key, holder).await,
                Err(RecordError::Conflict { .. }) => {}
                Err(error) => return Err(error.into()),
            }
            let Some(entry) = self.entry::<serde_json::Value>(key).await? else {
                // Released or lapsed in between: try again.
                continue;
            };
            if entry.value.holder != holder {
                return Err(held(entry));
            }
            let renewed = Stored {
                holder: holder.to_owned(),
                acquired_at: entry.value.acquired_at,
                data,
            };
            match self.replace(key, &renewed, entry.version, ttl).await {
                Ok(()) => return self.current(key, holder).await,
                Err(RecordError::Conflict { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Err(self.busy(key))
    }

    /// Extends `holder`'s lease on `key` to `ttl` from now, keeping its data.
    /// [`LeaseError::NotHeld`] if nobody holds it, [`LeaseError::Held`] if someone else does.
    pub async fn renew<D: Serialize + DeserializeOwned + Sync>(
        &self,
        key: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<Lease<D>, LeaseError> {
        for _ in 0..RETRIES {
            let Some(entry) = self.entry::<D>(key).await? else {
                return Err(LeaseError::NotHeld {
                    key: key.to_owned(),
                    holder: holder.to_owned(),
                });
            };
            if entry.value.holder != holder {
                return Err(held(entry));
            }
            match self.replace(key, &entry.value, entry.version, ttl).await {
                Ok(()) => return self.current(key, holder).await,
                Err(RecordError::Conflict { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Err(self.busy(key))
    }

    /// Gives up `holder`'s lease on `key`: whether there was one to give up.
    /// [`LeaseError::Held`] if someone else holds it.
    pub async fn release(&self, key: &str, holder: &str) -> Result<bool, LeaseError> {
        for _ in 0..RETRIES {
            let Some(entry) = self.entry::<serde_json::Value>(key).await? else {
                return Ok(false);
            };
            if entry.value.holder != holder {
                return Err(held(entry));
            }
            if self
                .records
                .delete_if(&self.collection, key, entry.version)
                .await?
            {
                return Ok(true);
            }
        }
        Err(self.busy(key))
    }

    /// Ends the lease on `key` whoever holds it (an administrator's or a reaper's act):
    /// whether there was one.
    pub async fn revoke(&self, key: &str) -> Result<bool, RecordError> {
        self.records.delete(&self.collection, key).await
    }

    /// The lease on `key`, if anyone holds it.
    pub async fn inspect<D: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<Lease<D>>, RecordError> {
        Ok(self.entry::<D>(key).await?.map(lease))
    }

    /// Every lease held in the collection, the most recently taken or renewed first.
    pub async fn list<D: DeserializeOwned>(&self) -> Result<Vec<Lease<D>>, RecordError> {
        let entries = self
            .records
            .entries::<Stored<D>>(&self.collection, None)
            .await?;
        Ok(entries.into_iter().map(lease).collect())
    }

    async fn entry<D: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<Entry<Stored<D>>>, RecordError> {
        self.records.entry(&self.collection, key).await
    }

    async fn replace<D: Serialize + Sync + ?Sized>(
        &self,
        key: &str,
        stored: &Stored<D>,
        version: u64,
        ttl: Duration,
    ) -> Result<(), RecordError> {
        self.records
            .put(&self.collection, key, stored)
            .if_version(version)
            .ttl(ttl)
            .await
            .map(drop)
    }

    /// The lease on `key` as `holder` just wrote it.
    async fn current<D: DeserializeOwned>(
        &self,
        key: &str,
        holder: &str,
    ) -> Result<Lease<D>, LeaseError> {
        match self.entry::<D>(key).await? {
            Some(entry) if entry.value.holder == holder => Ok(lease(entry)),
            Some(entry) => Err(held(entry)),
            None => Err(LeaseError::NotHeld {
                key: key.to_owned(),
                holder: holder.to_owned(),
            }),
        }
    }

    /// The error for a retry budget spent on conflicts: never "does not exist".
    fn busy(&self, key: &str) -> LeaseError {
        LeaseError::Contended {
            key: key.to_owned(),
            attempts: RETRIES,
        }
    }
}

fn lease<D>(entry: Entry<Stored<D>>) -> Lease<D> {
    Lease {
        expires_at: entry.expires_at.unwrap_or(entry.updated_at),
        key: entry.key,
        holder: entry.value.holder,
        acquired_at: entry.value.acquired_at,
        version: entry.version,
        data: entry.value.data,
    }
}

fn held<D>(entry: Entry<Stored<D>>) -> LeaseError {
    LeaseError::Held {
        key: entry.key,
        holder: entry.value.holder,
        expires_at: entry.expires_at.unwrap_or(entry.updated_at),
    }
}
