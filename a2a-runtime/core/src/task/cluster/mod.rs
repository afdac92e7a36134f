//! Several replicas of one agent on one shared store. A task runs on the replica that created
//! (or resumed) it; any other replica serves it by asking that one: a cancel or an answer is
//! forwarded to it, and a subscription there follows a *mirror* of the task, fed with the
//! events the running replica forwards. How replicas find each other (leases, who runs which
//! task) and exchange messages is the store's [`Coordinator`]; this module is the protocol on
//! top, the same for any such store.

pub mod serve;
pub mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

pub use super::coordination::{Coordination, Coordinator};
use super::error::TaskError;
use super::live::LiveTask;
use super::push_edit::PushEdit;
use super::store::StoreError;
use crate::auth::Caller;
use a2a_runtime_types::model::Task;
use a2a_runtime_types::model::new_id;
use a2a_runtime_types::util::BoxFuture;
use wire::Envelope;
pub use wire::{Answering, Outcome, RemoteError, Request};

/// How long a replica waits for another to answer a request before giving up on it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What the replica protocol asks of an agent's task manager on this replica (the manager,
/// narrowed to it): the tasks live here, and the cancels, push edits and answers other
/// replicas forward for them.
pub trait Member: Send + Sync + 'static {
    /// The key of the agent whose tasks it runs.
    fn agent(&self) -> &str;
    /// Task `task` of `owner`, if it is live here.
    fn live(&self, task: &str, owner: &str) -> Option<Arc<LiveTask>>;
    /// Cancels task `task`, live here.
    fn cancel_here<'a>(
        &'a self,
        task: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Task, TaskError>>;
    /// Applies `edit` to the push configs of task `task`, if it is live here.
    fn edit_here<'a>(
        &'a self,
        task: &'a str,
        owner: &'a str,
        edit: &'a PushEdit,
    ) -> BoxFuture<'a, Option<Result<(), TaskError>>>;
    /// Hands an answer to the question of a task live here; the task's revision after it.
    fn answer_here(&self, answering: Answering) -> BoxFuture<'_, Result<u64, TaskError>>;
}

/// This replica's side of the protocol: requests in flight, and the mirrors of tasks other
/// replicas run.
pub struct Cluster {
    coordinator: Arc<dyn Coordinator>,
    /// The task managers of this replica, by agent key: a request names the agent whose
    /// manager serves it. Weak, so a manager dropped (a server built and not served) goes.
    members: Mutex<HashMap<String, Weak<dyn Member>>>,
    /// Set once this replica holds its lease and reads its mailbox.
    joined: std::sync::atomic::AtomicBool,
    pending: Mutex<HashMap<String, Pending>>,
    mirrors: Mutex<HashMap<String, Arc<LiveTask>>>,
    /// Serializes making mirrors, so one task is watched once.
    watching: tokio::sync::Mutex<()>,
    buffer: usize,
    /// Cancelled when this replica leaves (after its tasks are settled at shutdown).
    stop: CancellationToken,
}

impl Cluster {
    pub fn new(coordination: Coordination, buffer: usize) -> Arc<Self> {
        Arc::new(Self {
            coordinator: coordination.into_inner(),
            members: Mutex::new(HashMap::new()),
            joined: std::sync::atomic::AtomicBool::new(false),
            pending: Mutex::new(HashMap::new()),
            mirrors: Mutex::new(HashMap::new()),
            watching: tokio::sync::Mutex::new(()),
            buffer,
            stop: CancellationToken::new(),
        })
    }

    /// How long a silent replica counts as alive.
    pub fn lease(&self) -> Duration {
        self.coordinator.lease()
    }

    /// How many replicas hold a lease now, this one included.
    pub fn live_replicas(&self) -> usize {
        self.coordinator.live_replicas().max(1)
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn mirrors(&self) -> MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.mirrors.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Joins the replicas with `manager`'s agent: the first manager to join makes this replica
    /// hold its lease and serve requests for the tasks running here, until
    /// [`leave`](Self::leave); each request goes to the manager of the agent it names.
    pub fn start<M: Member>(self: &Arc<Self>, manager: &Arc<M>) {
        let member: Weak<dyn Member> = Arc::downgrade(manager) as Weak<M>;
        self.members
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(manager.agent().to_owned(), member);
        if self.joined.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        let (inbox, mut messages) = mpsc::unbounded_channel();
        tokio::spawn(self.coordinator.run(inbox, self.stop.clone()));
        let cluster = Arc::clone(self);
        tokio::spawn(async move {
            while let Some(message) = messages.recv().await {
                match serde_json::from_str::<Envelope>(&message) {
                    Ok(envelope) => cluster.receive(envelope),
                    Err(error) => tracing::warn!(%error, "unreadable message from a replica"),
                }
            }
        });
    }

    /// The manager here of the agent keyed `agent`.
    fn member(&self, agent: &str) -> Option<Arc<dyn Member>> {
        self.members
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
            .and_then(Weak::upgrade)
    }

    /// Leaves the replicas: the lease is given up, so survivors take over at once what this
    /// one leaves unfinished.
    pub fn leave(&self) {
        self.stop.cancel();
    }

    /// The live replica, other than this one, running `task`.
    pub async fn runner(&self, task: &str) -> Result<Option<String>, StoreError> {
        self.coordinator.runner(task).await
    }

    /// Sends `request` about a task of agent `agent` to replica `to` and waits for its outcome.
    pub async fn request(
        &self,
        to: &str,
        agent: &str,
        request: Request,
    ) -> Result<Outcome, RequestError> {
        self.request_for(to, agent, request, None).await
    }

    /// [`request`](Self::request); a watch names the `caller` its mirror is made for.
    async fn request_for(
        &self,
        to: &str,
        agent: &str,
        request: Request,
        watcher: Option<(Caller, String)>,
    ) -> Result<Outcome, RequestError> {
        let id = new_id();
        let (done, outcome) = oneshot::channel();
        self.pending().insert(id.clone(), Pending { done, watcher });
        let envelope = Envelope::Request {
            id: id.clone(),
            from: self.coordinator.replica().to_owned(),
            agent: agent.to_owned(),
            request,
        };
        let sent = self.send(to, &envelope).await;
        let outcome = match sent {
            Ok(()) => tokio::time::timeout(REQUEST_TIMEOUT, outcome).await,
            Err(error) => {
                self.pending().remove(&id);
                return Err(RequestError::Store(error));
            }
        };
        self.pending().remove(&id);
        match outcome {
            Ok(Ok(outcome)) => outcome.map_err(RequestError::Refused),
            _ => Err(RequestError::Silent(to.to_owned())),
        }
    }

    async fn send(&self, to: &str, envelope: &Envelope) -> Result<(), StoreError> {
        let body = serde_json::to_string(envelope).map_err(StoreError::backend)?;
        self.coordinator.send(to, body).await
    }

    /// The mirror of `task` (of `owner` and agent `agent`), which replica `runner` runs: the
    /// one this replica already follows, or a new one (the runner then forwards the task's
    /// events here).
    pub async fn mirror(
        self: &Arc<Self>,
        runner: &str,
        agent: &str,
        task: &str,
        owner: &Caller,
    ) -> Result<Arc<LiveTask>, RequestError> {
        let _one_at_a_time = self.watching.lock().await;
        if let Some(mirror) = self.mirrors().get(task) {
            // Followed already, perhaps for another caller or agent: theirs is not this one's.
            return if mirror.caller.owner() == owner.owner() && mirror.agent == agent {
                Ok(Arc::clone(mirror))
            } else {
                Err(RequestError::Refused(RemoteError::NotHere))
            };
        }
        let request = Request::Watch {
            task: task.to_owned(),
            owner: owner.owner().to_owned(),
        };
        let watched = self
            .request_for(
                runner,
                agent,
                request,
                Some((owner.clone(), agent.to_owned())),
            )
            .await?;
        let Outcome::Watching { task: snapshot, .. } = watched else {
            return Err(RequestError::Silent(runner.to_owned()));
        };
        // The reply was received in order with the events that follow it: the inbox made the
        // mirror before it handed the reply over.
        let mirror = self.mirrors().get(&snapshot.id).cloned();
        let mirror = mirror.ok_or_else(|| RequestError::Silent(runner.to_owned()))?;
        self.watch_runner(runner, &mirror);
        Ok(mirror)
    }

    /// Closes `mirror` if its replica stops running the task without saying so (it died):
    /// checked every lease.
    fn watch_runner(self: &Arc<Self>, runner: &str, mirror: &Arc<LiveTask>) {
        let cluster = Arc::clone(self);
        let runner = runner.to_owned();
        let mirror = Arc::downgrade(mirror);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(cluster.lease()).await;
                let Some(live) = mirror.upgrade() else { return };
                if live.state.borrow().is_terminal() {
                    return;
                }
                match cluster.runner(&live.id).await {
                    Ok(Some(current)) if current == runner => {}
                    Ok(_) => {
                        cluster.forget_mirror(&live.id);
                        live.close();
                        return;
                    }
                    Err(error) => tracing::debug!(%error, "checking a mirrored task's replica"),
                }
            }
        });
    }

    /// The mirror this replica follows of `task`, if any.
    pub fn followed(&self, task: &str) -> Option<Arc<LiveTask>> {
        self.mirrors().get(task).cloned()
    }

    fn forget_mirror(&self, task: &str) {
        self.mirrors().remove(task);
    }

    /// Handles one message from another replica.
    fn receive(self: &Arc<Self>, envelope: Envelope) {
        match envelope {
            Envelope::Request {
                id,
                from,
                agent,
                request,
            } => {
                let cluster = Arc::clone(self);
                let manager = self.member(&agent);
                tokio::spawn(async move { cluster.serve(manager, id, from, request).await });
            }
            Envelope::Reply { id, outcome } => {
                let Some(Pending { done, watcher }) = self.pending().remove(&id) else {
                    return;
                };
                if let (Ok(Outcome::Watching { task, revision }), Some((watcher, agent))) =
                    (&outcome, watcher)
                {
                    let mirror =
                        LiveTask::mirror((**task).clone(), agent, *revision, watcher, self.buffer);
                    self.mirrors().insert(task.id.clone(), Arc::new(mirror));
                }
                let _ = done.send(outcome);
            }
            Envelope::Event {
                task,
                revision,
                event,
            } => {
                if let Some(mirror) = self.followed(&task) {
                    mirror.apply_forwarded(*event, revision);
                }
            }
            Envelope::Stored { task, revision } => {
                if let Some(mirror) = self.followed(&task) {
                    mirror.durability.stored(revision);
                }
            }
            Envelope::WatchEnded { task } => {
                if let Some(mirror) = self.mirrors().remove(&task) {
                    mirror.close();
                }
            }
        }
    }
}

/// A request in flight: where its outcome goes, and for a watch, who its mirror is for (the
/// caller, and the agent of the task).
struct Pending {
    done: oneshot::Sender<Result<Outcome, RemoteError>>,
    watcher: Option<(Caller, String)>,
}

/// Why a request to another replica did not come back done.
#[derive(Debug)]
pub enum RequestError {
    /// The replica refused it.
    Refused(RemoteError),
    /// The replica did not answer in time.
    Silent(String),
    /// The message could not be sent.
    Store(StoreError),
}
