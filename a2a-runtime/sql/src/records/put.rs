//! [`Put`]: one write of a record, conditional, expiring or bounding its collection as asked
//! before it is awaited.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;

use super::{Condition, RecordError, Records, Write, check_names, now_us};

/// A write of one record, made when awaited; answers the record's new version. Made by
/// [`Records::put`].
#[must_use = "a put does nothing until it is awaited"]
pub struct Put<'a, T: ?Sized> {
    records: &'a Records,
    collection: &'a str,
    key: &'a str,
    value: &'a T,
    ttl: Option<Duration>,
    condition: Condition,
    keep: Option<usize>,
    at_most: Option<usize>,
}

impl<T: ?Sized> std::fmt::Debug for Put<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Put")
            .field("collection", &self.collection)
            .field("key", &self.key)
            .field("ttl", &self.ttl)
            .field("condition", &self.condition)
            .field("keep", &self.keep)
            .field("at_most", &self.at_most)
            .finish_non_exhaustive()
    }
}

impl<'a, T: Serialize + ?Sized> Put<'a, T> {
    pub(super) fn new(
        records: &'a Records,
        collection: &'a str,
        key: &'a str,
        value: &'a T,
    ) -> Self {
        Self {
            records,
            collection,
            key,
            value,
            ttl: None,
            condition: Condition::Any,
            keep: None,
            at_most: None,
        }
    }

    /// The record expires `ttl` after this write (a later write sets its own expiry, or none):
    /// readers stop seeing it then, and the sweep announces it as expired.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Writes only if there is no record under the key (an expired one counts as none); else
    /// the write fails with [`RecordError::Conflict`] naming the version there.
    pub fn if_absent(mut self) -> Self {
        self.condition = Condition::Absent;
        self
    }

    /// Writes only if the record is still at `version` (as an [`Entry`](super::Entry) read
    /// it); else the write fails with [`RecordError::Conflict`] naming the version there, if
    /// any. Of several writers holding one version, exactly one succeeds.
    pub fn if_version(mut self, version: u64) -> Self {
        self.condition = Condition::Version(version);
        self
    }

    /// After the write, the collection keeps only its `newest` most recently written records
    /// (at least the one just written); the others are deleted (and announced as deleted).
    pub fn keep_newest(mut self, newest: usize) -> Self {
        self.keep = Some(newest);
        self
    }

    /// Writes only if the collection then holds at most `limit` records: a new key in a
    /// collection already holding `limit` live records fails with [`RecordError::Full`] and
    /// changes nothing, where [`Put::keep_newest`] would drop the oldest (perhaps another
    /// writer's). Replacing a record the collection holds is always allowed. Exact under
    /// concurrent writers, in every store.
    pub fn at_most(mut self, limit: usize) -> Self {
        self.at_most = Some(limit);
        self
    }

    async fn run(self) -> Result<u64, RecordError> {
        check_names(self.collection, self.key)?;
        let json = serde_json::to_string(self.value).map_err(|e| RecordError::Json {
            collection: self.collection.into(),
            key: self.key.into(),
            reason: format!("cannot be written as JSON: {e}"),
        })?;
        let now_us = now_us();
        let expires_us = self.ttl.map(|ttl| {
            let ttl = i64::try_from(ttl.as_micros()).unwrap_or(i64::MAX);
            now_us.saturating_add(ttl)
        });
        let write = Write {
            collection: self.collection,
            key: self.key,
            json,
            now_us,
            expires_us,
            condition: self.condition,
            keep: self.keep,
            at_most: self.at_most,
            origin: self.records.inner.feed.origin(),
        };
        self.records.write(write).await
    }
}

impl<'a, T: Serialize + Sync + ?Sized> IntoFuture for Put<'a, T> {
    type Output = Result<u64, RecordError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}
