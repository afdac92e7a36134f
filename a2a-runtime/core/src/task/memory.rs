//! The default [`TaskStore`]: in memory, bounded in count and in the lifetime of finished tasks.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::idempotency::{KeyClaim, KeyRecord, KeyScope};
use super::record::StoredTask;
use super::store::{
    ListQuery, StoreError, TaskPage, TaskStore, decode_page_token, encode_page_token,
};
use a2a_runtime_types::model::ByteSize;
use a2a_runtime_types::util::BoxFuture;

/// Limits of an [`InMemoryTaskStore`].
#[derive(Debug, Clone, Copy)]
pub struct MemoryStoreLimits {
    /// The most tasks kept. When full, the oldest finished tasks are evicted first; if every
    /// task is still running, new tasks are refused.
    pub max_tasks: usize,
    /// The most bytes of tasks kept (their messages, artifacts and metadata, estimated). When
    /// full, finished tasks are evicted first; if only live tasks remain, new tasks are refused.
    pub max_bytes: usize,
    /// How long a finished task stays readable.
    pub ttl: Duration,
}

impl Default for MemoryStoreLimits {
    fn default() -> Self {
        Self {
            max_tasks: 10_000,
            max_bytes: 256 * 1024 * 1024,
            ttl: Duration::from_secs(3600),
        }
    }
}

/// Tasks in memory. Lost on restart; fine for development and for stateless deployments.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    limits: MemoryStoreLimits,
    inner: Mutex<Inner>,
}

/// The three indexes name a task by one shared id: a task held costs one copy of it.
#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<Arc<str>, Entry>,
    /// (status timestamp in µs, id), for listing newest first.
    by_time: BTreeSet<(i64, Arc<str>)>,
    /// Finished tasks in the order they finished, for TTL expiry and eviction.
    finished: VecDeque<(Instant, Arc<str>)>,
    /// The estimated bytes of every task held.
    bytes: usize,
    /// Idempotency keys, each naming a task held (see [`Entry::keys`]).
    keys: HashMap<KeyScope, KeyRecord>,
}

#[derive(Debug)]
struct Entry {
    /// The record, at the version of its last write.
    stored: StoredTask,
    key: i64,
    bytes: usize,
    /// The idempotency keys naming this task: a store in memory keeps a key as long as the
    /// task it names (and no longer than the key's own expiry), so keys stay bounded too.
    keys: Vec<KeyScope>,
}

/// What a write requires of the stored task.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// No task with the id is stored.
    Absent,
    /// The task is stored at this version.
    Version(u64),
}

impl InMemoryTaskStore {
    /// A store with these limits.
    pub fn new(limits: MemoryStoreLimits) -> Self {
        Self {
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// How many tasks are held now.
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// The estimated bytes of the tasks held now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every mutation completes before
        // it can panic), so poisoning is ignored.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self, stored: StoredTask, expect: Expect) -> Result<(), StoreError> {
        // Tasks forgotten to make room are dropped after the lock is released: their memory
        // is cold, and freeing it need not hold up the other writers.
        let mut forgotten = Vec::new();
        let mut inner = self.lock();
        let written = self.write_locked(&mut inner, stored, expect, Vec::new(), &mut forgotten);
        drop(inner);
        drop(forgotten);
        written
    }

    /// [`write`](Self::write) under the lock already taken; `keys` are the idempotency keys
    /// the write's task holds from now on (forgotten with it).
    fn write_locked(
        &self,
        inner: &mut Inner,
        mut stored: StoredTask,
        expect: Expect,
        mut keys: Vec<KeyScope>,
        forgotten: &mut Vec<Entry>,
    ) -> Result<(), StoreError> {
        let task = &stored.task;
        let key = task.status.timestamp.timestamp_micros();
        let terminal = task.status.state.is_terminal();
        let bytes = task.byte_size();
        let now = Instant::now();
        inner.expire(now, self.limits.ttl, forgotten);
        let id = task.id.as_str();
        let version = match (expect, inner.tasks.get(id)) {
            (Expect::Absent, None) => 1,
            (Expect::Absent, Some(_)) => return Err(StoreError::Exists(id.to_owned())),
            (Expect::Version(_), None) => return Err(StoreError::Missing(id.to_owned())),
            (Expect::Version(expected), Some(old)) if old.stored.version != expected => {
                return Err(StoreError::Conflict {
                    id: id.to_owned(),
                    expected,
                    actual: old.stored.version,
                });
            }
            (Expect::Version(expected), Some(_)) => expected + 1,
        };
        // An update keeps the id the indexes already hold.
        let id = match inner.tasks.remove_entry(id) {
            Some((id, mut old)) => {
                inner.by_time.remove(&(old.key, Arc::clone(&id)));
                inner.bytes -= old.bytes;
                keys.append(&mut old.keys);
                forgotten.push(old);
                // An update of a task already held is never refused (that would lose its
                // progress); finished tasks make room when they can.
                while inner.bytes + bytes > self.limits.max_bytes
                    && inner.evict_oldest_finished(forgotten)
                {}
                id
            }
            None => {
                while inner.tasks.len() >= self.limits.max_tasks
                    || inner.bytes + bytes > self.limits.max_bytes
                {
                    if !inner.evict_oldest_finished(forgotten) {
                        return Err(StoreError::Full(inner.tasks.len()));
                    }
                }
                Arc::from(id)
            }
        };
        if terminal {
            inner.finished.push_back((now, Arc::clone(&id)));
        }
        inner.by_time.insert((key, Arc::clone(&id)));
        inner.bytes += bytes;
        stored.version = version;
        inner.tasks.insert(
            id,
            Entry {
                stored,
                key,
                bytes,
                keys,
            },
        );
        Ok(())
    }

    /// [`TaskStore::claim_key`], under one lock: the key and its task are written together.
    fn claim(&self, record: &KeyRecord, task: Option<&StoredTask>) -> Result<KeyClaim, StoreError> {
        let mut forgotten = Vec::new();
        let now = chrono::Utc::now();
        // Copied before the lock is taken, not while other writers wait for it (a claim that
        // finds its key held, which drops the copy, is the rare one).
        let task = task.cloned();
        let scope = record.scope.clone();
        let mut inner = self.lock();
        if let Some(held) = inner.keys.get(&scope).filter(|k| k.holds_at(now)) {
            let held = held.clone();
            drop(inner);
            return Ok(KeyClaim::Held(held));
        }
        match task {
            Some(task) => {
                let keys = vec![scope.clone()];
                self.write_locked(&mut inner, task, Expect::Absent, keys, &mut forgotten)?;
            }
            // A key for a change of an existing task is forgotten with that task.
            None => {
                let Some(entry) = inner.tasks.get_mut(record.task_id.as_str()) else {
                    return Err(StoreError::Missing(record.task_id.clone()));
                };
                let mut keys = std::mem::take(&mut entry.keys);
                keys.push(scope.clone());
                // The task's expired keys go as it takes a new one, so a long-lived task
                // changed under many keys holds only those still in force.
                keys.retain(|k| inner.keys.get(k).is_none_or(|held| held.holds_at(now)));
                if let Some(entry) = inner.tasks.get_mut(record.task_id.as_str()) {
                    entry.keys = keys;
                }
            }
        }
        inner.keys.insert(scope, record.clone());
        drop(inner);
        drop(forgotten);
        Ok(KeyClaim::Claimed)
    }

    /// Creates or updates `task` without a version check, for tests.
    #[cfg(test)]
    fn put_now(&self, task: a2a_runtime_types::model::Task) -> Result<(), StoreError> {
        let stored = self
            .lock()
            .tasks
            .get(task.id.as_str())
            .map(|e| e.stored.version);
        let record = StoredTask::new(task, "anonymous");
        match stored {
            Some(version) => self.write(record, Expect::Version(version)),
            None => self.write(record, Expect::Absent),
        }
    }

    fn list_now(&self, query: &ListQuery) -> Result<TaskPage, StoreError> {
        let inner = self.lock();
        let cursor = query
            .page_token
            .as_deref()
            .map(decode_page_token)
            .transpose()?;
        let matches = |entry: &Entry| {
            query
                .context_id
                .as_ref()
                .is_none_or(|c| *c == entry.stored.task.context_id)
                && query
                    .owner
                    .as_ref()
                    .is_none_or(|o| *o == entry.stored.owner)
                && query
                    .agent
                    .as_ref()
                    .is_none_or(|a| *a == entry.stored.agent)
                && query
                    .state
                    .is_none_or(|s| s == entry.stored.task.status.state)
                && query
                    .status_after
                    .is_none_or(|after| entry.stored.task.status.timestamp > after)
        };
        let mut total_size = 0;
        let mut tasks = Vec::with_capacity(query.page_size.min(100));
        let mut last = None;
        let mut more = false;
        let mut page_bytes = 0;
        let max_bytes = query.max_bytes.unwrap_or(usize::MAX);
        for (key, id) in inner.by_time.iter().rev() {
            let Some(entry) = inner.tasks.get(id) else {
                continue;
            };
            if !matches(entry) {
                continue;
            }
            total_size += 1;
            let after_cursor = cursor
                .as_ref()
                .is_none_or(|(ck, cid)| (*key, &**id) < (*ck, cid.as_str()));
            if !after_cursor {
                continue;
            }
            if more || tasks.len() >= query.page_size {
                more = true;
                continue;
            }
            let view = entry
                .stored
                .task
                .view(query.history_length, !query.without_artifacts);
            let size = view.byte_size();
            if !tasks.is_empty() && page_bytes + size > max_bytes {
                more = true;
                continue;
            }
            page_bytes += size;
            tasks.push(view);
            last = Some((*key, Arc::clone(id)));
        }
        let next_page_token = if more {
            last.map(|(key, id)| encode_page_token(key, &id))
        } else {
            None
        };
        Ok(TaskPage {
            tasks,
            next_page_token,
            total_size,
        })
    }
}

impl Inner {
    fn expire(&mut self, now: Instant, ttl: Duration, forgotten: &mut Vec<Entry>) {
        while let Some((at, _)) = self.finished.front() {
            if now.duration_since(*at) < ttl {
                break;
            }
            if let Some((_, id)) = self.finished.pop_front() {
                forgotten.extend(self.remove_finished(id));
            }
        }
    }

    fn evict_oldest_finished(&mut self, forgotten: &mut Vec<Entry>) -> bool {
        while let Some((_, id)) = self.finished.pop_front() {
            if let Some(entry) = self.remove_finished(id) {
                forgotten.push(entry);
                return true;
            }
        }
        false
    }

    /// Removes task `id` if it is finished (one lookup: an entry that is not finished, which
    /// the finished queue never names, would be put back).
    fn remove_finished(&mut self, id: Arc<str>) -> Option<Entry> {
        let entry = self.tasks.remove(&id)?;
        if !entry.stored.task.status.state.is_terminal() {
            self.tasks.insert(id, entry);
            return None;
        }
        self.by_time.remove(&(entry.key, id));
        self.bytes -= entry.bytes;
        self.forget_keys(&entry);
        Some(entry)
    }

    /// Forgets the keys that name `entry`'s task (a scope since claimed again for another
    /// task is that task's now).
    fn forget_keys(&mut self, entry: &Entry) {
        for scope in &entry.keys {
            if self
                .keys
                .get(scope)
                .is_some_and(|k| k.task_id == entry.stored.task.id)
            {
                self.keys.remove(scope);
            }
        }
    }
}

impl TaskStore for InMemoryTaskStore {
    fn retention(&self) -> Option<Duration> {
        Some(self.limits.ttl)
    }

    fn create<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        self.create_owned(task.clone())
    }

    fn update<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        self.update_owned(task.clone())
    }

    fn create_owned(&self, task: StoredTask) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(self.write(task, Expect::Absent)))
    }

    fn update_owned(&self, task: StoredTask) -> BoxFuture<'_, Result<(), StoreError>> {
        let expect = Expect::Version(task.version);
        Box::pin(std::future::ready(self.write(task, expect)))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        history_length: Option<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        let mut expired = Vec::new();
        let task = {
            let mut inner = self.lock();
            inner.expire(Instant::now(), self.limits.ttl, &mut expired);
            inner.tasks.get(id).map(|e| e.stored.view(history_length))
        };
        drop(expired);
        Box::pin(std::future::ready(Ok(task)))
    }

    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        Box::pin(std::future::ready(self.list_now(query)))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let deleted = {
            let mut inner = self.lock();
            match inner.tasks.remove_entry(id) {
                Some((id, entry)) => {
                    inner.by_time.remove(&(entry.key, id));
                    inner.bytes -= entry.bytes;
                    inner.forget_keys(&entry);
                    true
                }
                None => false,
            }
        };
        Box::pin(std::future::ready(Ok(deleted)))
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<StoredTask>, StoreError>> {
        let tasks = self
            .lock()
            .tasks
            .values()
            .filter(|e| !e.stored.task.status.state.is_terminal())
            .map(|e| e.stored.clone())
            .collect();
        Box::pin(std::future::ready(Ok(tasks)))
    }

    fn claim_key<'a>(
        &'a self,
        key: &'a KeyRecord,
        task: Option<&'a StoredTask>,
    ) -> BoxFuture<'a, Result<KeyClaim, StoreError>> {
        Box::pin(std::future::ready(self.claim(key, task)))
    }

    fn find_key<'a>(
        &'a self,
        scope: &'a KeyScope,
    ) -> BoxFuture<'a, Result<Option<KeyRecord>, StoreError>> {
        let now = chrono::Utc::now();
        let held = self
            .lock()
            .keys
            .get(scope)
            .filter(|k| k.holds_at(now))
            .cloned();
        Box::pin(std::future::ready(Ok(held)))
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        let mut expired = Vec::new();
        self.lock()
            .expire(Instant::now(), self.limits.ttl, &mut expired);
        Box::pin(std::future::ready(Ok(expired.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_runtime_types::model::{Task, TaskState, TaskStatus};

    fn task(id: &str, state: TaskState) -> Task {
        Task {
            id: id.into(),
            context_id: "c".into(),
            status: TaskStatus::now(state, None),
            artifacts: vec![],
            history: vec![],
            metadata: None,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn full_store_evicts_oldest_finished_task_first() {
        let store = InMemoryTaskStore::new(MemoryStoreLimits {
            max_tasks: 2,
            ttl: Duration::from_secs(60),
            ..MemoryStoreLimits::default()
        });
        store.put_now(task("a", TaskState::Completed)).unwrap();
        store.put_now(task("b", TaskState::Working)).unwrap();
        store.put_now(task("c", TaskState::Working)).unwrap();
        assert_eq!(store.len(), 2);
        assert!(matches!(
            store.put_now(task("d", TaskState::Working)),
            Err(StoreError::Full(2))
        ));
    }

    #[test]
    fn a_store_over_its_bytes_evicts_finished_tasks_then_refuses() {
        let store = InMemoryTaskStore::new(MemoryStoreLimits {
            max_bytes: 2_500,
            ..MemoryStoreLimits::default()
        });
        let big = |id: &str, state| {
            let mut task = task(id, state);
            task.history
                .push(a2a_runtime_types::model::Message::agent_text(
                    "x".repeat(1_000),
                ));
            task
        };
        store.put_now(big("a", TaskState::Completed)).unwrap();
        store.put_now(big("b", TaskState::Working)).unwrap();
        store.put_now(big("c", TaskState::Working)).unwrap();
        assert_eq!(store.len(), 2, "the finished task made room");
        assert!(matches!(
            store.put_now(big("d", TaskState::Working)),
            Err(StoreError::Full(2))
        ));
        assert!(store.bytes() <= 2_500);
        // Live tasks keep being updated even when the store is over its bytes.
        store.put_now(big("b", TaskState::Completed)).unwrap();
    }

    #[test]
    fn finished_tasks_expire_after_ttl() {
        let store = InMemoryTaskStore::new(MemoryStoreLimits {
            max_tasks: 10,
            ttl: Duration::ZERO,
            ..MemoryStoreLimits::default()
        });
        store.put_now(task("a", TaskState::Failed)).unwrap();
        store.put_now(task("b", TaskState::Working)).unwrap();
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn pages_cover_every_task_once() {
        let store = InMemoryTaskStore::new(MemoryStoreLimits::default());
        for i in 0..7 {
            store
                .put_now(task(&format!("t{i}"), TaskState::Completed))
                .unwrap();
        }
        let mut seen = Vec::new();
        let mut query = ListQuery {
            page_size: 3,
            ..Default::default()
        };
        loop {
            let page = store.list_now(&query).unwrap();
            assert_eq!(page.total_size, 7);
            seen.extend(page.tasks.into_iter().map(|t| t.id));
            match page.next_page_token {
                Some(token) => query.page_token = Some(token),
                None => break,
            }
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 7);
    }
}
